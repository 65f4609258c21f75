#include "analysis/metrics/service_metrics.h"

#include "sim/llm/llm_endpoint.h"
#include "sim/llm/llm_replica.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpumux {

namespace {

nlohmann::json count_json(double n) { return static_cast<std::int64_t>(std::llround(n)); }

nlohmann::json latency_json(double served, double p50, double p95, double p99, double mean) {
  if (served <= 0) {
    return {{"p50", nullptr}, {"p95", nullptr}, {"p99", nullptr}, {"mean", nullptr}};
  }
  return {
      {"p50", p50 / 1000.0}, {"p95", p95 / 1000.0}, {"p99", p99 / 1000.0}, {"mean", mean / 1000.0}};
}

double outcomes(const RequestCounts& c) { return c.served + c.dropped + c.timed_out; }

nlohmann::json distribution_ms(const LatencyHistogram& h) {
  if (h.count() <= 0) {
    return {{"p50", nullptr}, {"p90", nullptr}, {"p95", nullptr}, {"p99", nullptr},
            {"mean", nullptr}};
  }
  return {{"p50", h.percentile_us(0.50) / 1000.0}, {"p90", h.percentile_us(0.90) / 1000.0},
          {"p95", h.percentile_us(0.95) / 1000.0}, {"p99", h.percentile_us(0.99) / 1000.0},
          {"mean", h.mean_us() / 1000.0}};
}

nlohmann::json per_s(double n, double span_us) {
  return span_us > 0 ? nlohmann::json(n / (span_us / 1e6)) : nlohmann::json(nullptr);
}

// The token-level measurements of one LLM endpoint, or of several pooled.
nlohmann::json llm_json(const LlmStats& st, const RequestCounts& c) {
  const double span = st.first_arrival_us >= 0 && st.last_finish_us > st.first_arrival_us
                          ? st.last_finish_us - st.first_arrival_us
                          : 0.0;
  nlohmann::json out;
  out["ttft_ms"] = distribution_ms(st.ttft);
  out["tpot_ms"] = distribution_ms(st.tpot);
  out["itl_ms"] = distribution_ms(st.itl);
  out["output_tokens_per_s"] = per_s(static_cast<double>(st.output_tokens), span);
  out["total_tokens_per_s"] =
      per_s(static_cast<double>(st.output_tokens + st.prompt_tokens), span);
  out["requests_per_s"] = per_s(c.served, span);
  out["goodput_per_s"] = per_s(static_cast<double>(st.goodput), span);
  out["goodput_share"] =
      c.arrived > 0 ? nlohmann::json(static_cast<double>(st.goodput) / c.arrived) : nullptr;
  out["prompt_tokens"] = st.prompt_tokens;
  out["output_tokens"] = st.output_tokens;
  out["refused"] = st.refused;
  out["preemptions"] = st.preemptions;
  out["iterations"] = st.iterations;
  out["mean_batch"] = st.busy_us > 0 ? nlohmann::json(st.batch_seq_us / st.busy_us) : nullptr;
  out["peak_batch"] = st.peak_running;
  out["kv_cache_use"] = st.busy_us > 0 && st.kv_blocks > 0
                            ? nlohmann::json(st.kv_used_block_us / st.busy_us /
                                             static_cast<double>(st.kv_blocks))
                            : nullptr;
  out["busy_s"] = st.busy_us / 1e6;
  return out;
}

nlohmann::json counts_json(const RequestCounts& c) {
  return {{"count", count_json(c.arrived)},
          {"served", count_json(c.served)},
          {"dropped", count_json(c.dropped)},
          {"timed_out", count_json(c.timed_out)},
          {"unfinished", count_json(c.unfinished)}};
}

}  // namespace

std::uint64_t ServiceMetrics::replica_seed(std::uint64_t seed, const std::string& id) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : id) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  // splitmix64 finaliser: nearby seeds and ids give unrelated streams.
  std::uint64_t z = seed ^ h ^ 0x7f4a7c159e3779b9ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void ServiceMetrics::on_job_started(Time now, const ActiveJob& job) {
  if (!job.spec.service) return;
  if (job.spec.service->llm && job.gpus.size() == 1) hold_llm_gpu(job.ordinal, job.gpus[0]);
  if (live_.count(job.ordinal)) return;  // a restart revives on its rate
  note_arrival(job);
  Live l;
  l.spec = job.spec.service;
  l.id = job.spec.id;
  l.start_delay_s = (now - job.spec.submit).seconds();
  const double origin = static_cast<double>(now.us());
  const std::uint64_t seed = replica_seed(seed_, job.spec.id);
  l.replica = engine_->make_replica(*l.spec, origin, seed);
  if (series_interval_s_ > 0) l.replica->record_series(series_interval_s_ * 1e6);
  live_.emplace(job.ordinal, std::move(l));
}

void ServiceMetrics::on_service_rate_changed(Time now, const ActiveJob& job,
                                             const ServiceGpuContext& context) {
  const auto it = live_.find(job.ordinal);
  if (it == live_.end()) return;
  const ServiceGpuContext seen = engine_->seen(context);
  if (job.spec.service->llm) share_gpu(now, job, seen, it->second);
  it->second.replica->set_context(static_cast<double>(now.us()), seen);
  it->second.replica->set_rate(static_cast<double>(now.us()), job.rate);
}

void ServiceMetrics::share_gpu(Time now, const ActiveJob& job, const ServiceGpuContext& seen,
                               Live& live) {
  auto* replica = dynamic_cast<LlmReplica*>(live.replica.get());
  if (!replica) return;
  const double t = static_cast<double>(now.us());
  const auto gpu = llm_gpu_.find(job.ordinal);
  const bool schedule = seen.slices || seen.blocks;
  if (gpu == llm_gpu_.end() || !schedule || !live.spec->llm->sharing.mig_profile.empty()) {
    replica->leave_group(t);
    return;
  }
  // Every other resident must be an LLM endpoint: the group sees no other kind of job.
  const std::size_t others = seen.slices ? seen.slices->others.size() : seen.blocks->others.size();
  if (others + 1 != llm_on_gpu_[gpu->second]) {
    replica->leave_group(t);
    return;
  }
  const LlmGpuGroup::Mode mode =
      seen.slices ? LlmGpuGroup::Mode::kTurns : LlmGpuGroup::Mode::kConcurrent;
  std::unique_ptr<LlmGpuGroup>& group = llm_groups_[gpu->second];
  if (!group || (group->empty() && group->mode() != mode)) {
    group = seen.slices ? std::make_unique<LlmGpuGroup>(mode, seen.slices->slice_us,
                                                        seen.slices->switch_us)
                        : std::make_unique<LlmGpuGroup>(mode);
  }
  if (group->mode() != mode) {
    replica->leave_group(t);
    return;
  }
  const double fraction =
      seen.blocks ? std::min(1.0, static_cast<double>(seen.blocks->service_cap) /
                                      static_cast<double>(std::max(1, seen.blocks->sms)))
                  : 1.0;
  replica->join_group(t, *group, fraction);
}

void ServiceMetrics::hold_llm_gpu(std::uint64_t ordinal, std::uint32_t gpu) {
  release_llm_gpu(ordinal);  // started again (a restart, a move): it holds only the new GPU
  llm_gpu_.emplace(ordinal, gpu);
  ++llm_on_gpu_[gpu];
}

void ServiceMetrics::release_llm_gpu(std::uint64_t ordinal) {
  const auto it = llm_gpu_.find(ordinal);
  if (it == llm_gpu_.end()) return;
  --llm_on_gpu_[it->second];
  llm_gpu_.erase(it);
}

void ServiceMetrics::on_job_rejected(Time now, const ActiveJob& job, std::string_view) {
  if (job.spec.service) record_unstarted(now, job);
}

void ServiceMetrics::on_job_killed(Time now, const ActiveJob& job, double) {
  release_llm_gpu(job.ordinal);
  const auto it = live_.find(job.ordinal);
  if (it != live_.end()) it->second.replica->kill(static_cast<double>(now.us()));
}

void ServiceMetrics::on_job_finished(Time now, const ActiveJob& job) {
  if (job.spec.service) close(job.ordinal, now);
}

void ServiceMetrics::on_job_failed(Time now, const ActiveJob& job) {
  if (job.spec.service) close(job.ordinal, now);
}

void ServiceMetrics::on_run_end(Time now, std::span<const ActiveJob* const> unfinished) {
  end_s_ = now.seconds();
  for (const ActiveJob* job : unfinished) {
    if (!job->spec.service) continue;
    if (live_.count(job->ordinal)) {
      close(job->ordinal, now);
    } else {
      record_unstarted(now, *job);
    }
  }
  std::sort(records_.begin(), records_.end(),
            [](const Record& a, const Record& b) { return a.ordinal < b.ordinal; });
}

void ServiceMetrics::note_arrival(const ActiveJob& job) {
  const double at = job.spec.submit.seconds();
  if (first_arrival_s_ < 0 || at < first_arrival_s_) first_arrival_s_ = at;
}

void ServiceMetrics::record_unstarted(Time now, const ActiveJob& job) {
  note_arrival(job);
  Record r;
  r.ordinal = job.ordinal;
  r.id = job.spec.id;
  r.service_class = job.spec.service->service_class;
  r.start_delay_s = (now - job.spec.submit).seconds();
  r.slo_ms = job.spec.service->slo_ms;
  records_.push_back(std::move(r));
}

void ServiceMetrics::close(std::uint64_t ordinal, Time now) {
  const auto it = live_.find(ordinal);
  release_llm_gpu(ordinal);
  if (it == live_.end()) return;
  ServiceReplica& replica = *it->second.replica;
  replica.end(static_cast<double>(now.us()));
  Record r;
  r.ordinal = ordinal;
  r.id = it->second.id;
  r.service_class = it->second.spec->service_class;
  r.started = true;
  r.start_delay_s = it->second.start_delay_s;
  r.slo_ms = it->second.spec->slo_ms;
  r.counts = replica.counts();
  const LatencyHistogram& h = replica.latencies();
  r.p50_us = h.percentile_us(0.50);
  r.p95_us = h.percentile_us(0.95);
  r.p99_us = h.percentile_us(0.99);
  r.mean_us = h.mean_us();
  if (const LlmStats* st = replica.llm_stats()) {
    nlohmann::json llm = llm_json(*st, r.counts);
    llm["model"] = it->second.spec->llm ? nlohmann::json(it->second.spec->llm->model.name) : nullptr;
    llm["device"] = it->second.spec->llm ? nlohmann::json(it->second.spec->llm->device) : nullptr;
    r.llm = std::make_shared<const nlohmann::json>(std::move(llm));
    auto cdfs = std::make_shared<LlmEndpointCdfs>();
    cdfs->id = r.id;
    st->ttft.for_each_cdf_point(
        [&](double us, double share) { cdfs->ttft_ms.emplace_back(us / 1000.0, share); });
    st->tpot.for_each_cdf_point(
        [&](double us, double share) { cdfs->tpot_ms.emplace_back(us / 1000.0, share); });
    r.cdfs = std::move(cdfs);
    if (const LlmSeries* series = replica.llm_series()) {
      r.series = std::make_shared<const LlmSeries>(*series);
      r.kv_blocks = st->kv_blocks;
    }
    all_llm_.merge(*st);
    all_llm_counts_.merge(r.counts);
    any_llm_ = true;
  }
  all_.merge(h);
  all_counts_.merge(r.counts);
  if (r.slo_ms > 0) {
    any_slo_ = true;
    slo_outcomes_ += outcomes(r.counts);
    slo_within_ += r.counts.within_slo;
  }
  records_.push_back(std::move(r));
  live_.erase(it);  // frees the replica's histogram: memory stays bounded by live services
}

void ServiceMetrics::write_llm_timeseries(std::ostream& out) const {
  out << "time_s,endpoint,busy,running,waiting,kv_cache_use,output_tokens_per_s\n";
  char line[512];
  for (const Record& r : records_) {
    if (!r.series) continue;
    const LlmSeries& s = *r.series;
    const double width = s.interval_us;
    for (std::size_t i = 0; i < s.sums.size(); ++i) {
      const LlmIntervalSums& b = s.sums[i];
      const double kv = r.kv_blocks > 0 ? b.kv_block_us / width / static_cast<double>(r.kv_blocks) : 0.0;
      std::snprintf(line, sizeof line, "%.17g,%s,%.6g,%.6g,%.6g,%.6g,%.6g\n",
                    static_cast<double>(s.first + static_cast<std::int64_t>(i)) * width / 1e6,
                    r.id.c_str(), b.busy_us / width, b.running_us / width, b.waiting_us / width,
                    kv, static_cast<double>(b.output_tokens) / (width / 1e6));
      out << line;
    }
  }
}

std::vector<LlmEndpointCdfs> ServiceMetrics::llm_cdfs() const {
  std::vector<LlmEndpointCdfs> out;
  for (const Record& r : records_) {
    if (r.cdfs) out.push_back(*r.cdfs);
  }
  return out;
}

nlohmann::json ServiceMetrics::metrics() const {
  nlohmann::json out = counts_json(all_counts_);
  out["latency_ms"] = latency_json(all_.count(), all_.percentile_us(0.50), all_.percentile_us(0.95),
                                   all_.percentile_us(0.99), all_.mean_us());
  // The latency distribution over every request served, for CDF plots (html_report.h):
  // [latency ms, share served at or below it] at the upper edge of each occupied 1% bin.
  nlohmann::json cdf = nlohmann::json::array();
  all_.for_each_cdf_point([&](double us, double share) {
    cdf.push_back(nlohmann::json::array({us / 1000.0, share}));
  });
  out["latency_cdf_ms"] = std::move(cdf);
  out["slo_attainment"] =
      any_slo_ && slo_outcomes_ > 0 ? nlohmann::json(slo_within_ / slo_outcomes_) : nullptr;
  out["mode"] = std::string(engine_->name());
  double delay_max = 0, delay_sum = 0;
  std::int64_t unstarted = 0;
  for (const Record& r : records_) {
    delay_max = std::max(delay_max, r.start_delay_s);
    delay_sum += r.start_delay_s;
    unstarted += r.started ? 0 : 1;
  }
  out["start_delay_s"] = {
      {"max", delay_max},
      {"mean", records_.empty() ? 0.0 : delay_sum / static_cast<double>(records_.size())}};
  out["services_unstarted"] = unstarted;
  if (any_llm_) {
    // Pooled over the LLM endpoints; their span is the earliest arrival to the latest finish.
    const nlohmann::json pooled = llm_json(all_llm_, all_llm_counts_);
    for (const auto& [key, value] : pooled.items()) out[key] = value;
  }
  const double span = end_s_ - first_arrival_s_;
  out["served_per_s"] = first_arrival_s_ >= 0 && span > 0
                            ? nlohmann::json(all_counts_.served / span)
                            : nlohmann::json(nullptr);
  nlohmann::json services = nlohmann::json::array();
  for (const Record& r : records_) {
    nlohmann::json s = {{"id", r.id}, {"started", r.started}, {"start_delay_s", r.start_delay_s}};
    if (!r.service_class.empty()) s["class"] = r.service_class;
    s.update(counts_json(r.counts));
    s["latency_ms"] = latency_json(r.counts.served, r.p50_us, r.p95_us, r.p99_us, r.mean_us);
    s["slo_ms"] = r.slo_ms > 0 ? nlohmann::json(r.slo_ms) : nullptr;
    s["slo_attainment"] = r.slo_ms > 0 && outcomes(r.counts) > 0
                              ? nlohmann::json(r.counts.within_slo / outcomes(r.counts))
                              : nullptr;
    if (r.llm) s["llm"] = *r.llm;
    services.push_back(std::move(s));
  }
  out["services"] = std::move(services);
  // The GPUs whose LLM endpoints were simulated together (sim/llm/llm_gpu_group.h).
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& [gpu, group] : llm_groups_) {
    const LlmGpuGroup::Usage& u = group->usage();
    if (u.first_us < 0.0 || u.span_us <= 0.0) continue;
    gpus.push_back({{"gpu", gpu},
                    {"sharing", group->mode() == LlmGpuGroup::Mode::kTurns ? "time-slicing"
                                                                          : "concurrent"},
                    {"peak_endpoints", u.peak_members},
                    {"span_s", u.span_us / 1e6},
                    {"gpu_busy", u.busy_us / u.span_us},
                    {"sm_busy", u.sm_us / u.span_us},
                    {"bandwidth_busy", u.bandwidth_us / u.span_us},
                    {"context_switches", group->switches()}});
  }
  if (!gpus.empty()) out["llm_shared_gpus"] = std::move(gpus);
  return out;
}

}  // namespace gpumux
