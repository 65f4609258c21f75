#include "analysis/run/progress.h"

#include <algorithm>

#include "analysis/output/number_text.h"
#include "sim/base/input_error.h"
#include "traces/formats/trace_opening.h"
#include "traces/io/text_input.h"

namespace gpumux {

std::optional<std::uint64_t> expected_job_count(const Scenario& s) {
  // A filter keeps an unknown share of the rows: no estimate rather than a wrong one.
  if (s.trace.filter.active()) return std::nullopt;
  if (s.trace.generated) return s.trace.generator.jobs;
  int header_lines = -1;
  for (const auto& f : trace_formats()) {
    if (f.name == s.trace.format) header_lines = f.header_lines;
  }
  if (header_lines < 0) return std::nullopt;
  // Through TextInput, as the trace readers: a ".gz" trace counts its decompressed lines.
  std::uint64_t lines = 0;
  try {
    TextInput in(s.trace.path);
    std::string line;
    while (in.next_line(line)) {
      if (line.find_first_not_of(" \t") != std::string::npos) ++lines;
    }
  } catch (const InputError&) {
    return std::nullopt;  // the trace reader reports it
  }
  lines -= std::min<std::uint64_t>(lines, static_cast<std::uint64_t>(header_lines));
  return lines;
}

std::string progress_line(std::uint64_t done, std::uint64_t arrived,
                          std::optional<std::uint64_t> expected, double simulated_s,
                          double elapsed_s) {
  std::string line = "[gpumux] ";
  const bool share = expected && *expected > 0 && done <= *expected && arrived <= *expected;
  if (share) {
    const double p = static_cast<double>(done) / static_cast<double>(*expected);
    line += fixed_text(100 * p, 1) + " % of " + std::to_string(*expected) + " jobs done (" +
            std::to_string(done) + "; " + std::to_string(arrived) + " arrived)";
  } else {
    line += std::to_string(done) + " jobs done (" + std::to_string(arrived) + " arrived)";
  }
  line += ", simulated " + fixed_text(simulated_s / 3600, 1) + " h, " + fixed_text(elapsed_s, 1) +
          " s elapsed";
  if (share && done + arrived > 0) {
    // Arrivals and ends: the engine's two events per job.
    const double events = static_cast<double>(done + arrived);
    const double left = elapsed_s * (2.0 * static_cast<double>(*expected) - events) / events;
    line += ", about " + fixed_text(left, 1) + " s left";
  }
  return line;
}

ProgressReporter::ProgressReporter(std::ostream& out, std::optional<std::uint64_t> expected_jobs,
                                   Clock::duration interval)
    : out_(out),
      expected_(expected_jobs),
      interval_(interval),
      start_(Clock::now()),
      last_(start_) {}

void ProgressReporter::done(Time now) {
  ++done_;
  if ((done_ & 0xff) != 0 && interval_ > Clock::duration::zero()) return;  // the clock costs
  const auto t = Clock::now();
  if (t - last_ < interval_) return;
  last_ = t;
  out_ << progress_line(done_, arrived_, expected_, now.seconds(),
                        std::chrono::duration<double>(t - start_).count())
       << "\n"
       << std::flush;
}

}  // namespace gpumux
