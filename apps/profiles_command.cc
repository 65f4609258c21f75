// `gpumux profiles derive`: a memory-profile library from per-pod GPU memory and duty-cycle
// series (the Alibaba GenAI 2026 schema).
#include "apps/command_options.h"
#include "traces/memory_profiles/derive.h"

namespace gpumux {

namespace {

struct DeriveArgs {
  std::string memory_csv;
  std::string duty_csv;
  std::string output;
};

int run_derive(const DeriveArgs& a, std::ostream& out, std::ostream& err) {
  return run_derive_memory_profiles(a.memory_csv, a.duty_csv, a.output, out, err);
}

}  // namespace

void configure_profiles_command(CLI::App& profiles, CommandContext& ctx) {
  profiles.require_subcommand(1);
  auto* derive = profiles.add_subcommand(
      "derive",
      "derive a profile library (trace.memory_profiles.library) from per-pod GPU "
      "memory and duty-cycle series in the Alibaba GenAI 2026 schema");
  auto a = std::make_shared<DeriveArgs>();
  derive->add_option("--memory", a->memory_csv, "pod_gpu_memory_used_bytes CSV")->required();
  derive->add_option("--duty", a->duty_csv, "pod_gpu_duty_cycle CSV")->required();
  derive->add_option("-o,--output", a->output, "library JSON to write")
      ->required()
      ->check(non_empty());
  set_action(*derive, ctx, a, run_derive);
}

}  // namespace gpumux
