// Reproduces the FGD study's allocation results and compares them with the published ones.
//
//   gpumux_fgd_validate --data ../shared/data [--lists default,gpushare40] [--policies FGD]
//                       [--jobs 2] [--tie-break node-order|uniform]
//
// For each pod list in the expected-results CSV (data/fgd/fgd_expected_allocation.csv) and each
// policy, runs the same seeds on data/alibaba-gpu-v2023/openb_node_list_gpu_node.csv and prints
// a Markdown table of the seed-mean allocation % at 100/110/120/130 % arrived: published,
// gpumux and the difference, and the wall time of each list (all its policies and seeds).
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "packing/openb_csv.h"
#include "packing/packing_sim.h"
#include "sim/base/terminal_text.h"
#include "sim/placement/fgd/policy.h"
#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"

using namespace gpumux::packing;

namespace {

constexpr int kCheckpoints[] = {100, 110, 120, 130};

struct Expected {
  std::vector<std::uint64_t> seeds;
  std::map<int, double> sum;  // checkpoint -> sum over seeds
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  return out;
}

// The published table: per row a pod list (workload "...openb_pod_list_NAME"), a policy
// ("NN-Name"), a seed, and the allocation % at every arrived % (one column per %). Adds each
// row's allocation at kCheckpoints to `expected`. Errors name the file, line and column.
void read_expected(const std::string& path,
                   std::map<std::string, std::map<std::string, Expected>>& expected) {
  gpumux::CsvReader in(path);
  std::vector<std::string> f;
  if (!in.next(f)) throw gpumux::InputError(path, "", "empty table: expected a header row");
  if (f.size() < 5 || f[0] != "workload" || f[1] != "sc_policy" || f[3] != "seed") {
    throw gpumux::InputError(in.where(), "header",
                             "expected workload,sc_policy,tune,seed,total_gpus,0,1,...");
  }
  std::map<int, std::size_t> col;
  for (std::size_t c = 5; c < f.size(); ++c) {
    col[static_cast<int>(gpumux::parse_int_cell(f[c], in.where(), "header", 0, 1000))] = c;
  }
  for (int cp : kCheckpoints) {
    if (!col.count(cp)) {
      throw gpumux::InputError(in.where(), "header",
                               "no column for " + std::to_string(cp) + " % arrived");
    }
  }
  const std::size_t width = f.size();
  while (in.next(f)) {
    const std::string at = in.where();
    if (f.size() != width) {
      throw gpumux::InputError(
          at, "", "expected " + std::to_string(width) + " cells, got " + std::to_string(f.size()));
    }
    const std::string prefix = "openb_pod_list_";
    const auto list_at = f[0].find(prefix);
    const auto dash = f[1].find('-');
    if (list_at == std::string::npos) {
      throw gpumux::InputError(at, "workload", "expected a name ending in openb_pod_list_NAME");
    }
    if (dash == std::string::npos) {
      throw gpumux::InputError(at, "sc_policy", "expected NN-Policy");
    }
    Expected& e = expected[f[0].substr(list_at + prefix.size())][f[1].substr(dash + 1)];
    e.seeds.push_back(static_cast<std::uint64_t>(
        gpumux::parse_int_cell(f[3], at, "seed", 0, std::int64_t{1} << 62)));
    for (int cp : kCheckpoints) {
      e.sum[cp] += gpumux::parse_number_cell(f[col.at(cp)], at, std::to_string(cp), 0.0, 100.0);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = "../shared/data", lists_arg, policies_arg;
  int jobs = 1;
  TieBreak tie_break = TieBreak::kNodeOrder;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--data")
      data = v;
    else if (k == "--lists")
      lists_arg = v;
    else if (k == "--policies")
      policies_arg = v;
    else if (k == "--jobs")
      jobs = std::stoi(v);
    else if (k == "--tie-break")
      tie_break = v == "uniform" ? TieBreak::kUniform : TieBreak::kNodeOrder;
    else {
      std::cerr << "unknown option " << k << "\n";
      return 2;
    }
  }
  try {
    // workload -> policy -> expected
    std::map<std::string, std::map<std::string, Expected>> expected;
    read_expected(data + "/fgd/fgd_expected_allocation.csv", expected);
    std::vector<std::string> lists =
        lists_arg.empty() ? std::vector<std::string>{} : split(lists_arg, ',');
    if (lists.empty()) {
      for (const auto& [w, _] : expected) lists.push_back(w);
    }
    std::vector<Policy> policies;
    if (policies_arg.empty()) {
      policies.assign(kAllPolicies.begin(), kAllPolicies.end());
    } else {
      for (const auto& name : split(policies_arg, ',')) {
        auto p = parse_policy(name);
        if (!p) throw gpumux::InputError("--policies", "", "unknown policy " + name);
        policies.push_back(*p);
      }
    }
    const NodeList nodes =
        load_openb_nodes(data + "/alibaba-gpu-v2023/openb_node_list_gpu_node.csv");
    std::printf(
        "| pod list | policy | pub 100 | ours 100 | d100 | pub 110 | ours 110 | d110 | pub 120 | "
        "ours 120 | d120 | pub 130 | ours 130 | d130 | max abs d |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int within = 0, cells = 0;
    for (const auto& list : lists) {
      const PodList pods =
          load_openb_pods(data + "/alibaba-gpu-v2023/openb_pod_list_" + list + ".csv");
      const auto t0 = std::chrono::steady_clock::now();
      struct Task {
        Policy policy;
        std::uint64_t seed;
        std::map<int, double> at;
      };
      std::vector<Task> tasks;
      for (Policy p : policies) {
        auto it = expected[list].find(std::string(policy_name(p)));
        if (it == expected[list].end()) continue;
        for (auto s : it->second.seeds) tasks.push_back({p, s, {}});
      }
      std::atomic<std::size_t> next{0};
      auto worker = [&] {
        for (std::size_t i; (i = next++) < tasks.size();) {
          PackOptions opt;
          opt.policy = tasks[i].policy;
          opt.seed = tasks[i].seed;
          opt.tie_break = tie_break;
          const PackResult r = run_inflation(nodes.nodes, pods.pods, opt);
          for (int cp : kCheckpoints) {
            tasks[i].at[cp] = r.curve[static_cast<std::size_t>(cp)].alloc_pct.value_or(NAN);
          }
        }
      };
      std::vector<std::thread> threads;
      for (int t = 0; t < jobs; ++t) threads.emplace_back(worker);
      for (auto& t : threads) t.join();
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      for (Policy p : policies) {
        auto it = expected[list].find(std::string(policy_name(p)));
        if (it == expected[list].end()) continue;
        const Expected& e = it->second;
        std::map<int, double> ours;
        int n = 0;
        for (const auto& t : tasks) {
          if (t.policy != p) continue;
          ++n;
          for (int cp : kCheckpoints) ours[cp] += t.at.at(cp);
        }
        double max_abs = 0;
        std::printf("| %s | %s |", list.c_str(), std::string(policy_name(p)).c_str());
        for (int cp : kCheckpoints) {
          const double pub = e.sum.at(cp) / static_cast<double>(e.seeds.size());
          const double mine = ours[cp] / n;
          max_abs = std::max(max_abs, std::fabs(mine - pub));
          std::printf(" %.2f | %.2f | %+.2f |", pub, mine, mine - pub);
        }
        std::printf(" %.2f |\n", max_abs);
        ++cells;
        within += max_abs <= 1.0;
        std::fflush(stdout);
      }
      std::fprintf(stderr, "%s: %zu runs in %.1f s wall (%d jobs)\n", list.c_str(), tasks.size(),
                   secs, jobs);
    }
    std::printf("\n%d of %d policy x list cells within 1.0 pp at all four checkpoints\n", within,
                cells);
  } catch (const gpumux::InputError& e) {
    std::cerr << "error: " << gpumux::terminal_text(e.what()) << "\n";
    return 2;
  }
  return 0;
}
