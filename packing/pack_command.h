// The `gpumux pack` subcommand: FGD-style workload-inflation runs on an openb cluster: one
// policy and seed (the curve as it came), or several policies and seeds aggregated
// (pack_study.h), optionally into a folder `gpumux report` draws.
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
  int seeds = 1;                         // seeds seed, seed + 1, ...
  int threads = 1;                       // runs at once
  std::string out_dir;  // "": no folder; else pack.json, pack.csv (and report.html)
  bool report = false;  // with out_dir: also report.html
};

// Adds options to `sub` (created by the caller as the "pack" subcommand): --nodes, --pods,
// --policy (one or several, comma-separated), --seed, --seeds, --threads, --arrive-to,
// --format csv|json, --tie-break node-order|uniform, --out DIR, --report.
void configure_pack_command(CLI::App& sub, PackCommand& cmd);

// Runs it: one policy and one seed without --out writes `arrived_pct,alloc_pct,frag_pct` rows
// for 0..arrive_to (CSV), or the same curve and a summary as JSON, to `out`; several policies or
// seeds, or --out, write the study's aggregate (pack_study_csv, or its JSON with the inputs),
// and with --out DIR also DIR/pack.json and DIR/pack.csv (and report.html), the folder whole or
// not at all. Loading notes and counts go to `err`. Throws InputError on
// bad input (an unknown policy lists the valid names). Returns the exit code (0 ok).
// Deterministic: the same inputs and seed give byte-identical `out`.
int run_pack_command(const PackCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace gpumux::packing
