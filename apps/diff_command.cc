// `gpumux diff A B`: two runs' summaries compared metric by metric, exit 3 on a difference
// beyond the tolerances (analysis/compare/summary_diff.h).
#include "analysis/compare/summary_diff.h"
#include "analysis/metrics/summary_metrics.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"

namespace gpumux {

namespace {

struct DiffArgs {
  std::string a, b;
  std::vector<std::string> tolerances;
  std::vector<std::string> ignore;
  std::string fail_on = "any";
  std::string format = "table";
};

int run_diff(const DiffArgs& args, std::ostream& out, std::ostream&) {
  // Everything is read and checked before anything is printed: bad input prints nothing.
  const DiffTolerances tolerances = parse_diff_tolerances(args.tolerances);
  const nlohmann::json a = read_summary_input(args.a);
  const nlohmann::json b = read_summary_input(args.b);
  check_ignore_patterns(args.ignore, summary_metric_names(a, b));
  const SummaryDiff diff = diff_summaries(a, b, tolerances, args.ignore,
                                          args.fail_on == "worse" ? FailOn::kWorse : FailOn::kAny);
  if (args.format == "json") {
    out << diff_to_json(diff).dump(2) << "\n";
  } else {
    print_diff_table(diff, out);
  }
  return diff.failing() == 0 ? kExitOk : kExitCheckFailed;
}

}  // namespace

void configure_diff_command(CLI::App& sub, CommandContext& ctx) {
  auto a = std::make_shared<DiffArgs>();
  sub.add_option("a", a->a, "the reference: a summary.json, or a run folder holding one")
      ->required();
  sub.add_option("b", a->b, "the run compared with it: a summary.json or a run folder")
      ->required();
  sub.add_option("--tolerance", a->tolerances,
                 "METRIC=REL: the relative difference |a-b|/max(|a|,|b|) allowed for a metric "
                 "(jct_s.p95=0.01), a group (jct_s=0.01: every jct_s.*) or every metric (*=REL); "
                 "default 0, exact equality. Repeatable; the most specific name wins.");
  sub.add_option("--ignore", a->ignore,
                 "GLOB: metrics not compared, e.g. requests.unfinished or 'slots.profiles.*' "
                 "(`*` any run of characters, `?` one); repeatable; a pattern matching no metric "
                 "is bad input");
  sub.add_option("--fail-on", a->fail_on,
                 "any (default): exit 3 on any difference beyond tolerance; worse: only on those "
                 "not better by the metric's direction (`gpumux metrics`: lower or higher is "
                 "better); a metric with no direction, or a value against n/a, counts as worse")
      ->check(CLI::IsMember({"any", "worse"}));
  sub.add_option("--format", a->format, "table (default: the differing metrics) or json")
      ->check(CLI::IsMember({"table", "json"}));
  sub.footer(
      "Compares every metric of `gpumux metrics` that either summary has; a value against n/a "
      "always differs.\n"
      "Example: gpumux diff golden/summary.json out/quickstart --tolerance '*=1e-9' "
      "--tolerance jct_s=0.01\n"
      "Example, a gate that lets improvements through: gpumux diff golden out --fail-on worse "
      "--ignore requests.unfinished\n"
      "Exit codes: 0 every metric within tolerance (under --fail-on worse: or better), 3 some "
      "metric differs beyond it, 2 bad input (a missing file, not a summary.json, an unknown "
      "metric in --tolerance, an --ignore matching nothing), 1 internal error.");
  set_action(sub, ctx, a, run_diff);
}

}  // namespace gpumux
