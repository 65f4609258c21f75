#include "analysis/sweep/sweep.h"

#include <charconv>

#include "analysis/output/number_text.h"
#include "sim/base/parallel_tasks.h"
#include "sim/base/input_error.h"

namespace gpumux {

SweepShard parse_sweep_shard(const std::string& text) {
  const auto slash = text.find('/');
  SweepShard shard;
  auto number = [&](std::size_t from, std::size_t to, std::size_t& value) {
    const char* first = text.data() + from;
    const char* last = text.data() + to;
    const auto r = std::from_chars(first, last, value);
    return from < to && r.ec == std::errc() && r.ptr == last;
  };
  if (slash == std::string::npos || !number(0, slash, shard.index) ||
      !number(slash + 1, text.size(), shard.count) || shard.count == 0 ||
      shard.index >= shard.count) {
    throw InputError("--shard " + text, "shard",
                     "expected I/N with 0 <= I < N, e.g. 0/4 (the task runs the runs whose "
                     "index % N == I)");
  }
  return shard;
}

SweepProgress::SweepProgress(std::ostream* out, std::string prefix, std::size_t to_run,
                             std::size_t skipped)
    : out_(out),
      prefix_(std::move(prefix)),
      to_run_(to_run),
      skipped_(skipped),
      start_(Clock::now()),
      last_(start_) {}

void SweepProgress::record(const SweepRunOutcome& outcome, const SweepRun& run) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  if (!outcome.ok) ++failed_;
  if (!outcome.recorded) ++unrecorded_;
  if (!out_) return;
  const auto now = Clock::now();
  if (!outcome.ok) {
    *out_ << prefix_ << " run " << run.index << " (" << run.variant << ", seed " << run.seed
          << ") failed: " << outcome.error << "\n"
          << std::flush;
  }
  if (now - last_ < std::chrono::seconds(2) && done_ != to_run_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? done_ / elapsed : 0.0;
  *out_ << prefix_ << " " << done_ << "/" << to_run_ << " runs done";
  if (failed_ > 0) *out_ << " (" << failed_ << " failed)";
  if (skipped_ > 0) *out_ << ", " << skipped_ << " finished before";
  *out_ << ", " << fixed_text(elapsed, 1) << " s elapsed";
  if (done_ < to_run_ && rate > 0) {
    *out_ << ", about " << fixed_text((to_run_ - done_) / rate, 0) << " s left";
  }
  *out_ << "\n" << std::flush;
}

SweepCounts SweepProgress::finish(std::size_t total, std::size_t share,
                                  const std::string& workers) {
  const std::lock_guard<std::mutex> lock(mutex_);
  SweepCounts c;
  c.total = total;
  c.share = share;
  c.skipped = skipped_;
  c.ran = done_;
  c.failed = failed_;
  c.unrecorded = unrecorded_;
  c.wall_seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  if (out_) {
    *out_ << prefix_ << " " << c.ran << " runs in " << fixed_text(c.wall_seconds, 2) << " s";
    if (c.ran > 0 && c.wall_seconds > 0) {
      *out_ << " (" << fixed_text(c.ran / c.wall_seconds, 2) << " runs/s)";
    }
    *out_ << " on " << workers;
    if (c.skipped > 0) *out_ << "; " << c.skipped << " finished before";
    if (c.failed > 0) *out_ << "; " << c.failed << " failed";
    *out_ << "\n" << std::flush;
  }
  return c;
}

SweepCounts run_sweep_locally(const SweepRequest& request, std::ostream* progress) {
  const SweepPlan plan = load_sweep(request.sweep_file);
  prepare_sweep_folder(plan, request.out_dir);
  const SweepShard shard = request.shard.value_or(SweepShard{});
  const std::vector<std::size_t> pending =
      pending_sweep_runs(plan, request.out_dir, shard.index, shard.count, request.retry_failed);
  std::size_t share = 0;
  for (std::size_t i = shard.index; i < plan.runs.size(); i += shard.count) ++share;
  std::string prefix = "[gpumux sweep]";
  if (request.shard) {
    prefix = "[gpumux sweep " + std::to_string(shard.index) + "/" + std::to_string(shard.count) +
             "]";
  }
  SweepProgress tracker(progress, prefix, pending.size(), share - pending.size());
  run_indexed(pending.size(), request.threads, [&](std::size_t k) {
    const SweepRun& run = plan.runs[pending[k]];
    tracker.record(execute_sweep_run(run, request.out_dir), run);
  });
  return tracker.finish(plan.runs.size(), share,
                        std::to_string(request.threads) +
                            (request.threads == 1 ? " thread" : " threads"));
}

}  // namespace gpumux
