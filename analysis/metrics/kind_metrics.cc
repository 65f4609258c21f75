#include "analysis/metrics/kind_metrics.h"

namespace gpumux {

void KindMetrics::set_exact_limit(std::size_t exact_limit) {
  for (Kind& k : kinds_) {
    k.jct_s = k.queueing_delay_s = k.slowdown = QuantileSketch(exact_limit);
  }
}

void KindMetrics::finished(const JobSpec& job, double jct_s, double queueing_s) {
  Kind& k = of(job);
  ++k.finished;
  k.jct_s.add(jct_s);
  k.queueing_delay_s.add(queueing_s);
  if (job.runtime > Time::zero()) k.slowdown.add(jct_s / job.runtime.seconds());
}

nlohmann::json KindMetrics::to_json() {
  int kinds_arrived = 0;
  for (const Kind& k : kinds_) kinds_arrived += k.arrived > 0 ? 1 : 0;
  if (kinds_arrived < 2) return nullptr;
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < kinds_.size(); ++i) {
    Kind& k = kinds_[i];
    if (k.arrived == 0) continue;
    out[std::string(kNames[i])] = {{"arrived", k.arrived},
                                   {"finished", k.finished},
                                   {"jct_s", k.jct_s.to_json()},
                                   {"queueing_delay_s", k.queueing_delay_s.to_json()},
                                   {"slowdown", k.slowdown.to_json()}};
  }
  return out;
}

}  // namespace gpumux
