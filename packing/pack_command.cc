#include "packing/pack_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "analysis/output/number_text.h"
#include "analysis/output/output_folder.h"
#include "analysis/report/html_report.h"
#include "packing/openb_csv.h"
#include "packing/pack_study.h"
#include "packing/packing_sim.h"
#include "sim/base/input_error.h"
#include "sim/base/integer_text.h"
#include "sim/placement/fgd/policy.h"

namespace gpumux::packing {
namespace {

// Percentages as the study's tables print them: two decimals.
std::string fixed2(double x) { return fixed_text(x, 2); }

void report_load(std::ostream& err, const std::string& what, const std::string& path,
                 const LoadReport& r) {
  err << "pack: " << path << ": " << r.loaded << " " << what << " loaded";
  if (r.skipped.empty()) {
    err << ", none skipped\n";
    return;
  }
  err << ", " << r.skipped_total() << " skipped:";
  for (const auto& s : r.skipped) err << " " << s.rows << " (" << s.reason << ")";
  err << "\n";
}

// --policy "FGD,BestFit": each name once, in the order given.
std::vector<Policy> parse_policies(const std::string& text) {
  std::vector<Policy> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string name =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto policy = parse_policy(name);
    if (!policy) {
      throw InputError("command line", "--policy",
                       "unknown policy '" + name + "'; valid: " + policy_name_list() +
                           " (several separated by commas)");
    }
    if (std::find(out.begin(), out.end(), *policy) != out.end()) {
      throw InputError("command line", "--policy",
                       "policy '" + std::string(policy_name(*policy)) + "' given twice");
    }
    out.push_back(*policy);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

nlohmann::ordered_json skipped_json(const LoadReport& rep) {
  nlohmann::ordered_json s = nlohmann::ordered_json::array();
  for (const auto& k : rep.skipped) s.push_back({{"reason", k.reason}, {"rows", k.rows}});
  return s;
}

// Several policies or seeds, or a folder: the aggregate (pack_study.h).
int run_pack_study_command(const PackCommand& cmd, const std::vector<Policy>& policies,
                           const NodeList& nodes, const PodList& pods, std::ostream& out,
                           std::ostream& err) {
  std::unique_ptr<OutputFolder> folder;
  if (!cmd.out_dir.empty()) folder = std::make_unique<OutputFolder>(cmd.out_dir, OutputKind::kPack);
  PackStudyRequest request;
  request.policies = policies;
  request.seed = cmd.seed;
  request.seeds = cmd.seeds;
  request.arrive_to = cmd.arrive_to;
  request.tie_break = cmd.tie_break == "uniform" ? TieBreak::kUniform : TieBreak::kNodeOrder;
  request.threads = cmd.threads;
  const PackStudy study = run_pack_study(nodes.nodes, pods.pods, request);
  if (study.policies.front().runs.front().total_gpus == 0) {
    throw InputError(cmd.nodes_csv, "gpu", "the cluster has no GPUs");
  }
  for (const PackStudyPolicy& p : study.policies) {
    err << "pack: policy " << policy_name(p.policy) << ", " << study.seeds.size() << " seeds from "
        << cmd.seed << ": allocation at " << cmd.arrive_to << "% arrived ";
    const PackStat& last = p.curve.back().alloc_pct;
    if (last.mean) {
      err << fixed2(*last.mean) << "% [" << fixed2(last.low) << ", " << fixed2(last.high) << "]\n";
    } else {
      err << "n/a\n";
    }
  }
  nlohmann::ordered_json j;
  j["nodes_csv"] = cmd.nodes_csv;
  j["pods_csv"] = cmd.pods_csv;
  j["arrive_to_pct"] = cmd.arrive_to;
  j["tie_break"] = cmd.tie_break;
  j["total_gpus"] = study.policies.front().runs.front().total_gpus;
  j["skipped_node_rows"] = skipped_json(nodes.report);
  j["skipped_pod_rows"] = skipped_json(pods.report);
  const nlohmann::ordered_json aggregate = pack_study_json(study);
  for (const auto& [key, value] : aggregate.items()) j[key] = value;
  const std::string csv = pack_study_csv(study);
  if (folder) {
    folder->write_text("pack.json", j.dump(2) + "\n");
    folder->write_text("pack.csv", csv);
    if (cmd.report) {
      write_html_report(read_run_and_plan_folders({folder->temp_path()}, {cmd.out_dir}),
                        folder->file("report.html"));
    }
    folder->commit();
  }
  if (cmd.format == "csv") {
    out << csv;
  } else {
    out << j.dump(2) << '\n';
  }
  return 0;
}

}  // namespace

void configure_pack_command(CLI::App& sub, PackCommand& cmd) {
  // The footer, not the description: `gpumux --help` lists the command table's one line.
  sub.footer(
      "Pack GPU-sharing pods onto a cluster until the arrived GPU request reaches --arrive-to % "
      "of its GPU capacity, as in the FGD study (USENIX ATC'23), and print the GPU allocation "
      "ratio at each arrived %. Pods are sampled from the pod list with --seed; pods that fit "
      "nowhere fail and are not retried. Average several seeds before comparing policies.");
  sub.add_option("--nodes", cmd.nodes_csv,
                 "node list CSV with columns sn,cpu_milli,memory_mib,gpu,model (e.g. "
                 "openb_node_list_gpu_node.csv of the Alibaba GPU trace 2023)")
      ->required();
  sub.add_option("--pods", cmd.pods_csv,
                 "pod list CSV with columns name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,"
                 "...]; gpu_milli < 1000 with num_gpu 1 is a share of one GPU; gpu_spec lists "
                 "acceptable GPU models separated by '|'")
      ->required();
  sub.add_option("--policy", cmd.policy,
                 "placement policy, or several separated by commas: " + policy_name_list() +
                     " (FGD minimises fragmentation growth; see sim/placement/fgd/policy.h)")
      ->required();
  sub.add_option("--seeds", cmd.seeds,
                 "runs per policy, seeds --seed, --seed + 1, ... (default 1); with several "
                 "seeds or policies the output is each policy's mean and 95% interval per "
                 "arrived %")
      ->check(CLI::Range(1, 1000));
  sub.add_option("--threads", cmd.threads,
                 "runs at once (default 1); the output does not depend on it")
      ->check(CLI::Range(1, 1024));
  sub.add_option("--out", cmd.out_dir,
                 "also write DIR/pack.json and DIR/pack.csv (the aggregate), whole or not at "
                 "all; `gpumux report DIR` draws the allocation curves")
      ->check(CLI::Validator(
          [](std::string& text) { return text.empty() ? std::string("must not be empty") : ""; },
          "DIR"));
  sub.add_flag("--report", cmd.report, "with --out: also DIR/report.html");
  // CLI11 would read "-1" as 2^64 - 1, "" as 0, and clamp a number past 2^64 - 1.
  sub.add_option("--seed", cmd.seed, "seed of the pod sampling and tie-breaking (default 42)")
      ->check(
          CLI::Validator([](std::string& text) { return unsigned_text_error(text, 0, UINT64_MAX); },
                         "NON-NEGATIVE"));
  sub.add_option("--arrive-to", cmd.arrive_to,
                 "stop when the arrived GPU request reaches this % of cluster GPU capacity, "
                 "1..200 (default 130, as in the study)");
  sub.add_option("--format", cmd.format,
                 "csv: rows arrived_pct,alloc_pct,frag_pct; json: the same curve plus a summary")
      ->check(CLI::IsMember({"csv", "json"}));
  sub.add_option("--tie-break", cmd.tie_break,
                 "how equal node scores are settled: node-order (default; the first node in a "
                 "per-run random node order, which is what reproduces the study) or uniform "
                 "(random per pod, as upstream Kubernetes)")
      ->check(CLI::IsMember({"node-order", "uniform"}));
}

int run_pack_command(const PackCommand& cmd, std::ostream& out, std::ostream& err) {
  const std::vector<Policy> policies = parse_policies(cmd.policy);
  const auto policy = std::optional<Policy>(policies.front());
  if (cmd.seeds < 1 || cmd.seeds > 1000) {
    throw InputError("command line", "--seeds",
                     "expected 1..1000, got " + std::to_string(cmd.seeds));
  }
  if (cmd.report && cmd.out_dir.empty()) {
    throw InputError("command line", "--report", "needs --out DIR: the report is drawn from it");
  }
  if (cmd.arrive_to < 1 || cmd.arrive_to > 200) {
    throw InputError("command line", "--arrive-to",
                     "expected a percentage in 1..200, got " + std::to_string(cmd.arrive_to));
  }
  if (cmd.format != "csv" && cmd.format != "json") {
    throw InputError("command line", "--format", "expected csv or json, got '" + cmd.format + "'");
  }
  if (cmd.tie_break != "node-order" && cmd.tie_break != "uniform") {
    throw InputError("command line", "--tie-break",
                     "expected node-order or uniform, got '" + cmd.tie_break + "'");
  }
  const NodeList nodes = load_openb_nodes(cmd.nodes_csv);
  report_load(err, "nodes", cmd.nodes_csv, nodes.report);
  const PodList pods = load_openb_pods(cmd.pods_csv);
  report_load(err, "pods", cmd.pods_csv, pods.report);
  if (pods.pods.empty()) throw InputError(cmd.pods_csv, "", "no pods to sample from");
  // The pods are drawn until their GPU request reaches --arrive-to % of the cluster's GPUs:
  // CPU-only pods never get there.
  if (std::none_of(pods.pods.begin(), pods.pods.end(),
                   [](const PodSpec& p) { return p.num_gpus > 0 && p.gpu_milli > 0; })) {
    throw InputError(cmd.pods_csv, "num_gpu",
                     "no pod requests a GPU (" + std::to_string(pods.pods.size()) +
                         " CPU-only pods): their GPU request can never reach --arrive-to " +
                         std::to_string(cmd.arrive_to) + " % of the cluster's GPUs");
  }

  if (policies.size() > 1 || cmd.seeds > 1 || !cmd.out_dir.empty()) {
    return run_pack_study_command(cmd, policies, nodes, pods, out, err);
  }
  PackOptions opt;
  opt.policy = *policy;
  opt.seed = cmd.seed;
  opt.arrive_to = cmd.arrive_to;
  opt.tie_break = cmd.tie_break == "uniform" ? TieBreak::kUniform : TieBreak::kNodeOrder;
  const PackResult r = run_inflation(nodes.nodes, pods.pods, opt);
  if (r.total_gpus == 0) throw InputError(cmd.nodes_csv, "gpu", "the cluster has no GPUs");
  err << "pack: policy " << policy_name(*policy) << ", seed " << cmd.seed << ": " << r.pods_arrived
      << " pods arrived, " << r.pods_failed << " failed; " << r.typical_pod_kinds
      << " typical pod kinds; final allocation "
      << fixed2(100.0 * static_cast<double>(r.allocated_gpu_milli) /
                (static_cast<double>(r.total_gpus) * kGpuMilli))
      << "% of " << r.total_gpus << " GPUs\n";

  if (cmd.format == "csv") {
    out << "arrived_pct,alloc_pct,frag_pct\n";
    for (const auto& p : r.curve) {
      out << p.arrived_pct << ',' << (p.alloc_pct ? fixed2(*p.alloc_pct) : "") << ','
          << (p.frag_pct ? fixed2(*p.frag_pct) : "") << '\n';
    }
    return 0;
  }
  nlohmann::ordered_json j;
  j["policy"] = std::string(policy_name(*policy));
  j["seed"] = cmd.seed;
  j["arrive_to_pct"] = cmd.arrive_to;
  j["tie_break"] = cmd.tie_break;
  j["nodes_csv"] = cmd.nodes_csv;
  j["pods_csv"] = cmd.pods_csv;
  j["total_gpus"] = r.total_gpus;
  j["pods_arrived"] = r.pods_arrived;
  j["pods_failed"] = r.pods_failed;
  j["arrived_gpu_milli"] = r.arrived_gpu_milli;
  j["allocated_gpu_milli"] = r.allocated_gpu_milli;
  j["typical_pod_kinds"] = r.typical_pod_kinds;
  auto skipped = [](const LoadReport& rep) {
    nlohmann::ordered_json s = nlohmann::ordered_json::array();
    for (const auto& k : rep.skipped) s.push_back({{"reason", k.reason}, {"rows", k.rows}});
    return s;
  };
  j["skipped_node_rows"] = skipped(nodes.report);
  j["skipped_pod_rows"] = skipped(pods.report);
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const auto& p : r.curve) {
    nlohmann::ordered_json c;
    c["arrived_pct"] = p.arrived_pct;
    c["alloc_pct"] = p.alloc_pct ? nlohmann::ordered_json(*p.alloc_pct) : nlohmann::ordered_json();
    c["frag_pct"] = p.frag_pct ? nlohmann::ordered_json(*p.frag_pct) : nlohmann::ordered_json();
    curve.push_back(std::move(c));
  }
  j["curve"] = std::move(curve);
  out << j.dump(2) << '\n';
  return 0;
}

}  // namespace gpumux::packing
