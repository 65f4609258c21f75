#include "traces/memory_profiles/derive.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "sim/base/atomic_file.h"
#include "sim/base/input_error.h"
#include "sim/base/terminal_text.h"

namespace gpumux {

DeriveResult derive_memory_profiles(const std::string& memory_csv, const std::string& duty_csv,
                                    const MemoryDeriveOptions& options) {
  check_derive_options(options);
  DeriveResult r;
  r.options = options;
  std::size_t duplicates = 0;
  const auto memory = read_pod_series(memory_csv, std::numeric_limits<double>::max(), r.memory_rows,
                                      duplicates, r.comment_lines);
  const auto duty = read_pod_series(duty_csv, 100.0, r.duty_rows, duplicates, r.comment_lines);
  if (duplicates > 0) r.skipped_rows[kSkipDuplicateTimestamp] = duplicates;

  double first_t = std::numeric_limits<double>::infinity();
  for (const auto& [pod, samples] : memory) first_t = std::min(first_t, samples.front().t_s);
  for (const auto& [pod, samples] : duty) {
    if (!memory.contains(pod)) ++r.duty_only_pods;
  }

  r.pods = memory.size();
  for (const auto& [pod, samples] : memory) {
    const auto skip = [&](const char* reason) { ++r.skipped_pods[reason]; };
    if (samples.size() < options.min_samples) {
      skip(kSkipTooFewSamples);
      continue;
    }
    const bool allocates = std::any_of(samples.begin(), samples.end(),
                                       [](const PodSample& x) { return x.value > 0.0; });
    if (!allocates) {
      skip(kSkipNeverAllocates);
      continue;
    }
    const auto d = duty.find(pod);
    if (d == duty.end() || d->second.empty()) {
      skip(kSkipNoDuty);
      continue;
    }
    const bool start_observed = samples.front().t_s > first_t + options.censor_window_s;
    DerivedProfile p = derive_pod_profile(samples, d->second, start_observed, options);
    p.pod = pod;
    r.profiles.push_back(std::move(p));
  }
  for (std::size_t i = 0; i < r.profiles.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "genai-pod-%03zu", i + 1);
    r.profiles[i].name = name;
  }
  return r;
}

int run_derive_memory_profiles(const std::string& memory_csv, const std::string& duty_csv,
                               const std::string& out_json, std::ostream& out, std::ostream& err) {
  try {
    const DeriveResult result = derive_memory_profiles(memory_csv, duty_csv);
    std::ostringstream json;
    write_profile_library(result, json);
    const std::string text = json.str();

    // The same atomic writer as every output: the file appears whole or not at all, and its
    // temporary goes on failure or SIGINT/SIGTERM.
    AtomicFile file(out_json);
    file.stream() << text;
    file.commit();
    print_derive_summary(result, out);
    out << "wrote " << result.profiles.size() << " profiles (" << text.size() << " bytes) to "
        << out_json << "\n";
    return 0;
  } catch (const InputError& e) {
    err << "error: " << terminal_text(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "internal error: " << terminal_text(e.what()) << "\n";
    return 1;
  }
}

}  // namespace gpumux
