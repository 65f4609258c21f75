// `gpumux generate`: a synthetic trace written in the native CSV format.
#include <nlohmann/json.hpp>
#include <optional>

#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "sim/base/atomic_file.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "traces/formats/generator.h"
#include "traces/formats/trace_writer.h"

namespace gpumux {

namespace {

struct GenerateArgs {
  std::string config;
  std::string output;
  std::optional<std::uint64_t> jobs;
  std::uint64_t seed = 1;
};

int run_generate(const GenerateArgs& a, std::ostream& out, std::ostream&) {
  nlohmann::json spec_json = nlohmann::json::object();
  std::string file = "<defaults>";
  std::string pointer;
  if (!a.config.empty()) {
    file = a.config;
    nlohmann::json doc = read_json_file(a.config);
    // Accept a generator object, or a scenario whose trace has a generator.
    if (doc.is_object() && doc.contains("trace")) {
      if (!doc["trace"].is_object() || !doc["trace"].contains("generator")) {
        throw InputError(a.config + "#/trace", "generator", "scenario has no trace.generator");
      }
      spec_json = doc["trace"]["generator"];
      pointer = "/trace/generator";
    } else {
      spec_json = doc;
    }
  }
  if (a.jobs) {
    if (!spec_json.is_object()) spec_json = nlohmann::json::object();
    spec_json["jobs"] = *a.jobs;
  }
  JsonObject o(spec_json, file, pointer);
  GeneratedJobs jobs(GeneratorSpec::parse(o), a.seed);
  AtomicFile target(a.output);
  write_trace_header(target.stream());
  JobSpec job;
  std::uint64_t n = 0;
  while (jobs.next(job)) {
    write_trace_row(target.stream(), job);
    ++n;
  }
  target.commit();
  out << "wrote " << n << " jobs to " << a.output << " (seed " << a.seed << ")\n";
  return kExitOk;
}

}  // namespace

void configure_generate_command(CLI::App& generate, CommandContext& ctx) {
  auto a = std::make_shared<GenerateArgs>();
  generate.add_option("--config", a->config,
                      "generator JSON object, or a scenario whose trace has a generator "
                      "(default: the documented generator defaults)");
  generate.add_option("--jobs", a->jobs, "number of jobs, 1 to 10^9 (overrides the config)")
      ->check(integer_in(1, kMaxGeneratedJobs));
  generate.add_option("--seed", a->seed, "random seed (default 1)")->check(non_negative());
  generate.add_option("-o,--output", a->output, "output CSV file")->required()->check(non_empty());
  set_action(generate, ctx, a, run_generate);
}

}  // namespace gpumux
