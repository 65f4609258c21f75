// The `gpumux pack` subcommand: one FGD-style workload-inflation run on an openb cluster.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace CLI {
class App;
}

namespace gpumux::packing {

struct PackCommand {
  std::string nodes_csv, pods_csv, policy, format = "csv";
  std::uint64_t seed = 42;
  int arrive_to = 130;
  std::string tie_break = "node-order";  // or "uniform"; see TieBreak in packing_sim.h
};

// Adds options to `sub` (created by the caller as the "pack" subcommand): --nodes, --pods,
// --policy, --seed, --arrive-to, --format csv|json, --tie-break node-order|uniform.
void configure_pack_command(CLI::App& sub, PackCommand& cmd);

// Runs it: writes `arrived_pct,alloc_pct,frag_pct` rows for 0..arrive_to (CSV), or the same
// curve and a summary as JSON, to `out`; loading notes and counts to `err`. Throws InputError on
// bad input (an unknown policy lists the valid names). Returns the exit code (0 ok).
// Deterministic: the same inputs and seed give byte-identical `out`.
int run_pack_command(const PackCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace gpumux::packing
