// Prints the request latency of the service replica's schedule against the reference driven
// by requests, on the whole grid:
//   request_latency_report [timeslice|mps] [requests per replication (10000)] [seed (2026)]
//                          [replications per case (4)] [--cases]
// timeslice: the slice schedule against the kernel-level reference
// (bench/validation/timeslice/lib/request_latency_grid.h; figures in bench/validation/timeslice/RESULTS.md
// section 5); mps: the block schedule against the block-level reference
// (bench/validation/mps/lib/mps_request_latency_grid.h; bench/validation/mps/RESULTS.md, last section).
//
// Cases the reference finds overloaded (the service cannot keep up beside the co-runner: its
// queue grows with the window) are counted, not compared; a case that only one side finds
// overloaded is a disagreement and listed. "Reference noise" is the reference against itself
// with another seed, on the compared cases: errors of that order are sampling, not the model.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/validation/mps/lib/mps_request_latency_grid.h"
#include "bench/validation/timeslice/lib/request_latency_grid.h"

namespace {

struct Error {
  double abs_ms = 0, rel = 0;
};

Error error_of(double value, double truth) {
  return Error{std::abs(value - truth) / 1000.0, std::abs(value - truth) / truth};
}

void summary(const char* name, std::vector<Error> e) {
  if (e.empty()) return;
  double mae = 0, mre = 0;
  for (const Error& x : e) mae += x.abs_ms, mre += x.rel;
  mae /= static_cast<double>(e.size());
  mre /= static_cast<double>(e.size());
  std::sort(e.begin(), e.end(), [](const Error& a, const Error& b) { return a.rel < b.rel; });
  std::printf("  %s: MAE %.3f ms, mean relative %.1f%%, median %.1f%%, worst %.1f%%\n", name, mae,
              100 * mre, 100 * e[e.size() / 2].rel, 100 * e.back().rel);
}

}  // namespace

// Compares and summarises every case of `grid`; `compare(case, requests, seed, replications)`
// runs both sides.
template <class Case, class Compare>
void report(const std::vector<Case>& grid, Compare compare, double requests, std::uint64_t seed,
            int replications, bool every_case) {
  using namespace gpumux;
  std::vector<Error> p50, p95, p99, noise50, noise99;
  std::vector<Error> by_dist_p99[2], by_demand_p99[2], well_measured_p99;
  double worst_rel = -1;
  std::size_t worst = 0;
  RequestLatencyComparison worst_result;
  int overloaded = 0, disagree = 0, over15 = 0;
  if (every_case) {
    std::printf(
        "| case | ref p50 ms | fast p50 ms | ref p99 ms | fast p99 ms | p99 error |\n"
        "|---|--:|--:|--:|--:|--:|\n");
  }
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const Case& c = grid[i];
    const RequestLatencyComparison r = compare(c, requests, seed + 100 * i, replications);
    if (r.reference.overloaded() || r.fast.overloaded()) {
      if (r.reference.overloaded() != r.fast.overloaded()) {
        ++disagree;
        std::printf("disagreement (%s overloaded only): %s\n",
                    r.reference.overloaded() ? "reference" : "fast", describe(c).c_str());
      } else {
        ++overloaded;
      }
      continue;
    }
    const RequestLatencyComparison again = compare(c, requests, seed + 100 * i + 50, replications);
    p50.push_back(error_of(r.fast.p50_us, r.reference.p50_us));
    p95.push_back(error_of(r.fast.p95_us, r.reference.p95_us));
    p99.push_back(error_of(r.fast.p99_us, r.reference.p99_us));
    noise50.push_back(error_of(again.reference.p50_us, r.reference.p50_us));
    noise99.push_back(error_of(again.reference.p99_us, r.reference.p99_us));
    by_dist_p99[c.fixed_lengths ? 1 : 0].push_back(p99.back());
    by_demand_p99[c.load + c.other_duty > 0.8 ? 1 : 0].push_back(p99.back());
    if (noise99.back().rel <= 0.15) well_measured_p99.push_back(p99.back());
    if (p99.back().rel > 0.15) ++over15;
    if (p99.back().rel > 0.30) {
      std::printf("beyond 30%%: %s: p99 reference %.2f ms (%.2f with another seed), fast %.2f ms\n",
                  describe(c).c_str(), r.reference.p99_us / 1000, again.reference.p99_us / 1000,
                  r.fast.p99_us / 1000);
    }
    if (p99.back().rel > worst_rel) worst_rel = p99.back().rel, worst = i, worst_result = r;
    if (every_case) {
      std::printf("| %s | %.2f | %.2f | %.2f | %.2f | %+.1f%% |\n", describe(c).c_str(),
                  r.reference.p50_us / 1000, r.fast.p50_us / 1000, r.reference.p99_us / 1000,
                  r.fast.p99_us / 1000,
                  100 * (r.fast.p99_us - r.reference.p99_us) / r.reference.p99_us);
    }
  }
  std::printf(
      "%zu cases, %d x %.0f requests each, seed %llu: %zu compared, %d overloaded on both "
      "sides, %d classified differently\n",
      grid.size(), replications, requests, static_cast<unsigned long long>(seed), p99.size(),
      overloaded, disagree);
  summary("p50", p50);
  summary("p95", p95);
  summary("p99", p99);
  summary("p99, exponential co-runner", by_dist_p99[0]);
  summary("p99, fixed co-runner", by_dist_p99[1]);
  summary("p99, load + co-runner duty <= 0.8", by_demand_p99[0]);
  summary("p99, load + co-runner duty > 0.8", by_demand_p99[1]);
  std::printf("  cases whose reference p99 moves <= 15%% with the seed: %zu\n",
              well_measured_p99.size());
  summary("p99 on those", well_measured_p99);
  summary("reference noise p50", noise50);
  summary("reference noise p99", noise99);
  if (!p99.empty()) {
    std::printf("  p99 beyond 15%%: %d cases; worst: %s: reference %.2f ms, fast %.2f ms\n", over15,
                describe(grid[worst]).c_str(), worst_result.reference.p99_us / 1000,
                worst_result.fast.p99_us / 1000);
  }
}

int main(int argc, char** argv) {
  using namespace gpumux;
  int a = 1;
  const bool mps = argc > a && std::strcmp(argv[a], "mps") == 0;
  if (argc > a && (mps || std::strcmp(argv[a], "timeslice") == 0)) ++a;
  const double requests = argc > a ? std::atof(argv[a]) : 10000.0;
  const std::uint64_t seed = argc > a + 1 ? std::strtoull(argv[a + 1], nullptr, 10) : 2026;
  const int replications = argc > a + 2 ? std::atoi(argv[a + 2]) : 4;
  const bool every_case = argc > a + 3 && std::strcmp(argv[a + 3], "--cases") == 0;
  if (mps) {
    report(
        mps_request_latency_grid(),
        [](const MpsRequestLatencyCase& c, double n, std::uint64_t s, int r) {
          return compare_mps_request_latency(c, n, s, r);
        },
        requests, seed, replications, every_case);
  } else {
    report(
        request_latency_grid(),
        [](const RequestLatencyCase& c, double n, std::uint64_t s, int r) {
          return compare_request_latency(c, n, s, r);
        },
        requests, seed, replications, every_case);
  }
  return 0;
}
