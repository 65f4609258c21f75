#include "packing/pack_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "packing/openb_csv.h"
#include "packing/packing_sim.h"
#include "sim/base/input_error.h"
#include "sim/base/integer_text.h"
#include "sim/placement/fgd/policy.h"

namespace gpumux::packing {
namespace {

std::string fixed2(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

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
                 "placement policy: " + policy_name_list() +
                     " (FGD minimises fragmentation growth; see sim/placement/fgd/policy.h)")
      ->required();
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
  const auto policy = parse_policy(cmd.policy);
  if (!policy) {
    throw InputError("command line", "--policy",
                     "unknown policy '" + cmd.policy + "'; valid: " + policy_name_list());
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
