#include "traces/transforms/filter_source.h"

#include <algorithm>

#include "sim/base/input_error.h"

namespace gpumux {

namespace {

constexpr std::array<FilterCriterion, kFilterCriterionCount> kCriteria = {
    FilterCriterion::kGpus, FilterCriterion::kKind, FilterCriterion::kTenant};

bool matches(const JobFilter& f, FilterCriterion c, const JobSpec& job) {
  switch (c) {
    case FilterCriterion::kGpus:
      return (!f.min_gpus || job.gpus >= *f.min_gpus) && (!f.max_gpus || job.gpus <= *f.max_gpus);
    case FilterCriterion::kKind:
      return f.kinds.empty() ||
             std::find(f.kinds.begin(), f.kinds.end(), job.kind) != f.kinds.end();
    case FilterCriterion::kTenant:
      return f.tenants.empty() ||
             std::find(f.tenants.begin(), f.tenants.end(), job.tenant) != f.tenants.end();
  }
  return true;
}

}  // namespace

std::string_view filter_criterion_name(FilterCriterion criterion) {
  switch (criterion) {
    case FilterCriterion::kGpus:
      return "gpus";
    case FilterCriterion::kKind:
      return "kind";
    case FilterCriterion::kTenant:
      return "tenant";
  }
  return "unknown";
}

bool JobFilter::uses(FilterCriterion criterion) const {
  switch (criterion) {
    case FilterCriterion::kGpus:
      return min_gpus.has_value() || max_gpus.has_value();
    case FilterCriterion::kKind:
      return !kinds.empty();
    case FilterCriterion::kTenant:
      return !tenants.empty();
  }
  return false;
}

bool JobFilter::active() const {
  return std::any_of(kCriteria.begin(), kCriteria.end(),
                     [&](FilterCriterion c) { return uses(c); });
}

std::optional<FilterCriterion> JobFilter::first_failed(const JobSpec& job) const {
  for (FilterCriterion c : kCriteria) {
    if (!matches(*this, c, job)) return c;
  }
  return std::nullopt;
}

bool FilteringSource::next(JobSpec& job) {
  while (inner_.next(job)) {
    const auto failed = filter_.first_failed(job);
    if (!failed) {
      ++kept_;
      return true;
    }
    ++removed_;
    ++by_[static_cast<std::size_t>(*failed)];
    for (std::size_t i = 0; i < kJobFieldCount; ++i) {
      if (job.defaulted_fields & (1u << i)) ++removed_defaults_.rows[i];
    }
  }
  if (kept_ == 0 && removed_ > 0) {
    std::string why;
    for (FilterCriterion c : kCriteria) {
      if (removed_by(c) == 0) continue;
      why += (why.empty() ? "" : ", ") + std::string(filter_criterion_name(c)) + " " +
             grouped_count(removed_by(c));
    }
    throw InputError(trace_, "",
                     "0 jobs after trace.filter (" + grouped_count(removed_) + " removed: " + why +
                         "): a run of no jobs measures nothing");
  }
  return false;
}

nlohmann::json FilteringSource::summary() const {
  nlohmann::json by = nlohmann::json::object();
  for (FilterCriterion c : kCriteria) {
    if (filter_.uses(c)) by[std::string(filter_criterion_name(c))] = removed_by(c);
  }
  return {{"jobs", removed_}, {"by_criterion", by}};
}

std::string grouped_count(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace gpumux
