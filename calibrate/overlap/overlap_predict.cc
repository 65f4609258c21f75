#include "calibrate/overlap/overlap_predict.h"

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "models/registry.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"

namespace gpumux::calibration {

namespace {

JobSpec job_of(const OverlapRow& r) {
  JobSpec j;
  j.id = r.set + "/" + std::to_string(r.member);
  j.sm_util = r.alone_duty;
  j.sm_share = r.sm_share;
  j.kernel_length = Time::from_us(std::max<std::int64_t>(1, std::llround(r.kernel_us)));
  j.fixed_kernel_lengths = true;
  j.runtime = Time::from_seconds(3600);
  return j;
}

double rate_on(const SharingModel& model, const DeviceProfile& device,
               std::span<const JobSpec* const> residents, std::size_t who) {
  double rates[64];
  GpuLoad load;
  const GpuView view{device, residents, MemoryMiB(0)};
  model.compute_rates(view, std::span<double>(rates, residents.size()), load);
  return rates[who];
}

}  // namespace

std::vector<double> predict_overlap(const OverlapData& data, const std::string& mode,
                                    const nlohmann::json& params, const DeviceRegistry& devices) {
  std::vector<double> out(data.rows.size(), std::numeric_limits<double>::quiet_NaN());
  const SharingModelInfo& info = contention_model(mode, "--mode", "mode");
  const std::string_view cap = info.capabilities.thread_cap_parameter;
  std::map<double, std::unique_ptr<SharingModel>> models;  // by active-thread cap
  auto model_for = [&](double atp) -> const SharingModel& {
    auto& m = models[atp];
    if (!m) {
      nlohmann::json p = params;
      if (!cap.empty()) p[std::string(cap)] = atp;
      JsonObject obj(p, "sharing.params", "");
      m = info.make(obj);
    }
    return *m;
  };
  for (const OverlapSet& set : data.sets) {
    if (set.mode != mode) continue;
    if (set.rows.size() > 64) {
      throw InputError(data.file + ":" + std::to_string(data.rows[set.rows[0]].line), "set",
                       "more than 64 processes in set '" + set.name + "'");
    }
    const OverlapRow& first = data.rows[static_cast<std::size_t>(set.rows[0])];
    const DeviceProfile& device =
        devices.get(first.device, data.file + ":" + std::to_string(first.line));
    const SharingModel& model = model_for(first.active_thread_pct);
    std::vector<JobSpec> jobs;
    for (int r : set.rows) jobs.push_back(job_of(data.rows[static_cast<std::size_t>(r)]));
    std::vector<const JobSpec*> residents;
    for (const JobSpec& j : jobs) residents.push_back(&j);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const double together = rate_on(model, device, residents, i);
      const JobSpec* alone[] = {&jobs[i]};
      out[static_cast<std::size_t>(set.rows[i])] = together / rate_on(model, device, alone, 0);
    }
  }
  return out;
}

OverlapError overlap_error(const OverlapData& data, const std::vector<double>& predicted) {
  OverlapError e;
  double sum = 0.0, squares = 0.0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    if (std::isnan(predicted[i])) continue;
    const double d = std::abs(predicted[i] - data.rows[i].speed);
    ++e.rows;
    sum += d;
    squares += d * d;
    if (d > e.max || e.worst_row < 0) {
      e.max = d;
      e.worst_row = static_cast<int>(i);
    }
  }
  if (e.rows > 0) {
    e.mae = sum / e.rows;
    e.rms = std::sqrt(squares / e.rows);
  }
  return e;
}

}  // namespace gpumux::calibration
