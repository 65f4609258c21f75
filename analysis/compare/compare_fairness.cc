#include "analysis/compare/compare_fairness.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/output/number_text.h"
#include "analysis/stats/mean_interval.h"

namespace gpumux {
namespace {

// Index of a metric row, or npos.
std::size_t row_of(const CompareResult& r, const std::string& name) {
  for (std::size_t m = 0; m < r.metrics.size(); ++m) {
    if (r.metrics[m].name == name) return m;
  }
  return static_cast<std::size_t>(-1);
}

std::string count_text(double x) { return fixed_text(x, 0); }

}  // namespace

bool seeds_changed_nothing(const CompareResult& r) {
  if (r.seeds.size() < 2) return false;
  for (const CompareVariant& v : r.variants) {
    for (const CompareCell& c : v.cells) {
      for (const auto& x : c.values) {
        if (x != c.values.front()) return false;
      }
    }
  }
  return true;
}

std::vector<std::string> compare_warnings(const CompareResult& r) {
  std::vector<std::string> warnings;
  const std::size_t arrived = row_of(r, "jobs.arrived");
  const std::size_t finished = row_of(r, "jobs.finished");
  const bool counted =
      arrived != static_cast<std::size_t>(-1) && finished != static_cast<std::size_t>(-1);
  // The first seed whose variants finished different job counts, or not every arrival.
  for (std::size_t s = 0; counted && s < r.seeds.size() && r.variants.size() > 1; ++s) {
    bool differ = false, short_of_arrivals = false;
    std::optional<double> first;
    for (const CompareVariant& v : r.variants) {
      const auto& f = v.cells[finished].values[s];
      const auto& a = v.cells[arrived].values[s];
      if (!f || !a) continue;
      if (first && *first != *f) differ = true;
      if (!first) first = *f;
      if (*f < *a) short_of_arrivals = true;
    }
    if (!differ) continue;
    std::ostringstream w;
    w << "the latency rows (JCT, queueing) are over different job sets: seed " << r.seeds[s]
      << " finished ";
    for (std::size_t i = 0; i < r.variants.size(); ++i) {
      const auto& f = r.variants[i].cells[finished].values[s];
      const auto& a = r.variants[i].cells[arrived].values[s];
      w << (i ? ", " : "") << r.variants[i].model << " "
        << (f ? count_text(*f) : std::string("n/a")) << (a ? " of " + count_text(*a) : "");
    }
    w << (short_of_arrivals ? "; a variant that finished fewer jobs may look faster only because "
                              "its slow jobs never finished (compare jobs finished and unfinished, "
                              "or run long enough for every job to end)"
                            : "");
    warnings.push_back(w.str());
    break;
  }
  if (seeds_changed_nothing(r)) {
    warnings.push_back(
        "the " + std::to_string(r.seeds.size()) +
        " seeds gave identical results for every variant and metric: nothing the runs use is "
        "drawn (every field comes from the trace), so the tables give each value once, marked '" +
        std::string(kSameInEverySeedMark) +
        "', instead of a ± 0 interval that would say nothing about variability; to make the seeds "
        "vary the workload, resample the trace by seed (trace.resample, e.g. --set "
        "trace.resample.method=bootstrap, or arrival-order), or vary the inputs (several traces, "
        "or trace.inflation, which draws jobs by seed)");
  }
  return warnings;
}

PairedDifferences paired_differences(const CompareResult& r, std::size_t baseline) {
  PairedDifferences p;
  p.baseline = baseline;
  p.cells.resize(r.variants.size());
  const CompareVariant& base = r.variants[baseline];
  for (std::size_t v = 0; v < r.variants.size(); ++v) {
    if (v == baseline) continue;
    for (std::size_t m = 0; m < r.metrics.size(); ++m) {
      std::vector<double> d;
      for (std::size_t s = 0; s < r.seeds.size(); ++s) {
        const auto& x = r.variants[v].cells[m].values[s];
        const auto& b = base.cells[m].values[s];
        if (x && b) d.push_back(*x - *b);
      }
      PairedCell c;
      c.n = d.size();
      if (c.n == r.seeds.size()) {
        const MeanInterval mi = mean_interval(d);
        c.mean = mi.mean;
        c.half_width = mi.half_width;
      }
      p.cells[v].push_back(c);
    }
  }
  return p;
}

}  // namespace gpumux
