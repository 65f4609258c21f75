#include "analysis/run/colocation_tally.h"

namespace gpumux {

namespace {

constexpr std::uint8_t kStarted = 1;
constexpr std::uint8_t kMeasured = 2;
constexpr std::uint8_t kUnrunnable = 4;

}  // namespace

void ColocationTally::mark(std::uint64_t ordinal, std::uint8_t bit) {
  if (ordinal >= seen_.size()) seen_.resize(ordinal + 1, 0);
  std::uint8_t& s = seen_[ordinal];
  if (s & bit) return;
  s |= bit;
  if (bit == kStarted) ++started_;
  if (bit == kMeasured) ++measured_;
  if (bit == kUnrunnable) ++unrunnable_;
}

void ColocationTally::on_job_started(Time, const ActiveJob& job) { mark(job.ordinal, kStarted); }

void ColocationTally::on_gpu_changed(Time, GpuIndex, const GpuState& gpu) {
  const std::uint8_t measured = gpu.load.measured_pair;
  const std::uint8_t unrunnable = gpu.load.unrunnable_pair;
  if ((measured | unrunnable) == 0 || gpu.residents.empty()) return;
  for (std::size_t r = 0; r < gpu.residents.size() && r < 8; ++r) {
    const std::uint64_t ordinal = jobs_[gpu.residents[r]].ordinal;
    if (measured & (1u << r)) mark(ordinal, kMeasured);
    if (unrunnable & (1u << r)) mark(ordinal, kUnrunnable);
  }
}

ColocationCounts ColocationTally::counts() const {
  return {measured_, started_ - measured_, unrunnable_};
}

}  // namespace gpumux
