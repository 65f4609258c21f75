#include "packing/pack_study.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "analysis/output/number_text.h"
#include "analysis/stats/mean_interval.h"
#include "sim/base/parallel_tasks.h"

namespace gpumux::packing {

namespace {

// Percentages as the study's tables print them: two decimals.
std::string fixed2(double x) { return fixed_text(x, 2); }

PackStat stat_of(const std::vector<double>& values) {
  PackStat s;
  s.n = values.size();
  const MeanInterval mi = mean_interval(values);
  if (!mi.mean) return s;
  s.mean = *mi.mean;
  s.low = s.high = *mi.mean;
  if (mi.half_width) {
    const ClippedInterval ci = clip_interval(*mi.mean, *mi.half_width, 0.0, 100.0);
    s.low = ci.low;
    s.high = ci.high;
    s.clipped = ci.clipped;
  }
  return s;
}

nlohmann::ordered_json stat_json(const PackStat& s) {
  if (!s.mean) return nullptr;
  nlohmann::ordered_json j;
  j["mean"] = *s.mean;
  j["ci95_low"] = s.low;
  j["ci95_high"] = s.high;
  j["n"] = s.n;
  j["clipped"] = s.clipped;
  return j;
}

std::string stat_csv(const PackStat& s) {
  if (!s.mean) return ",,";
  return fixed2(*s.mean) + "," + fixed2(s.low) + "," + fixed2(s.high);
}

}  // namespace

PackStudy run_pack_study(const std::vector<NodeSpec>& nodes, const std::vector<PodSpec>& pods,
                         const PackStudyRequest& request) {
  PackStudy study;
  const int seeds = std::max(1, request.seeds);
  for (int k = 0; k < seeds; ++k)
    study.seeds.push_back(request.seed + static_cast<std::uint64_t>(k));
  const std::size_t jobs = request.policies.size() * study.seeds.size();
  std::vector<PackResult> results(jobs);
  run_indexed(jobs, request.threads, [&](std::size_t i) {
    PackOptions opt;
    opt.policy = request.policies[i / study.seeds.size()];
    opt.seed = study.seeds[i % study.seeds.size()];
    opt.arrive_to = request.arrive_to;
    opt.tie_break = request.tie_break;
    results[i] = run_inflation(nodes, pods, opt);
  });
  for (std::size_t p = 0; p < request.policies.size(); ++p) {
    PackStudyPolicy out;
    out.policy = request.policies[p];
    for (std::size_t s = 0; s < study.seeds.size(); ++s) {
      out.runs.push_back(std::move(results[p * study.seeds.size() + s]));
    }
    for (int pct = 0; pct <= request.arrive_to; ++pct) {
      std::vector<double> alloc, frag;
      for (const PackResult& r : out.runs) {
        for (const CurvePoint& c : r.curve) {
          if (c.arrived_pct != pct) continue;
          if (c.alloc_pct) alloc.push_back(*c.alloc_pct);
          if (c.frag_pct) frag.push_back(*c.frag_pct);
        }
      }
      out.curve.push_back({pct, stat_of(alloc), stat_of(frag)});
    }
    study.policies.push_back(std::move(out));
  }
  return study;
}

std::string pack_study_csv(const PackStudy& study) {
  std::ostringstream out;
  out << "policy,arrived_pct,seeds,alloc_pct_mean,alloc_pct_ci95_low,alloc_pct_ci95_high,"
         "frag_pct_mean,frag_pct_ci95_low,frag_pct_ci95_high\n";
  for (const PackStudyPolicy& p : study.policies) {
    for (const PackStudyPoint& c : p.curve) {
      out << policy_name(p.policy) << ',' << c.arrived_pct << ',' << c.alloc_pct.n << ','
          << stat_csv(c.alloc_pct) << ',' << stat_csv(c.frag_pct) << '\n';
    }
  }
  return out.str();
}

nlohmann::ordered_json pack_study_json(const PackStudy& study) {
  nlohmann::ordered_json j;
  j["seeds"] = study.seeds;
  nlohmann::ordered_json policies = nlohmann::ordered_json::array();
  for (const PackStudyPolicy& p : study.policies) {
    nlohmann::ordered_json pj;
    pj["policy"] = std::string(policy_name(p.policy));
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    for (std::size_t s = 0; s < p.runs.size(); ++s) {
      const PackResult& r = p.runs[s];
      nlohmann::ordered_json rj;
      rj["seed"] = study.seeds[s];
      rj["pods_arrived"] = r.pods_arrived;
      rj["pods_failed"] = r.pods_failed;
      rj["final_alloc_pct"] = r.total_gpus > 0
                                  ? 100.0 * static_cast<double>(r.allocated_gpu_milli) /
                                        (static_cast<double>(r.total_gpus) * kGpuMilli)
                                  : 0.0;
      runs.push_back(std::move(rj));
    }
    pj["runs"] = std::move(runs);
    nlohmann::ordered_json curve = nlohmann::ordered_json::array();
    for (const PackStudyPoint& c : p.curve) {
      nlohmann::ordered_json cj;
      cj["arrived_pct"] = c.arrived_pct;
      cj["alloc_pct"] = stat_json(c.alloc_pct);
      cj["frag_pct"] = stat_json(c.frag_pct);
      curve.push_back(std::move(cj));
    }
    pj["curve"] = std::move(curve);
    policies.push_back(std::move(pj));
  }
  j["policies"] = std::move(policies);
  return j;
}

}  // namespace gpumux::packing
