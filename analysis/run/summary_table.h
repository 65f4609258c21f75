// What `gpumux run` prints (`--format table`): the run's summary table, and the warning about
// the jobs its percentiles leave out.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "analysis/run/run.h"
#include "scenarios/scenario.h"

namespace gpumux {

// One line naming the arrived jobs left out of the job percentiles (rejected, failed, and
// unfinished: still queued or running when the run stopped), or "" when there are none.
// `gpumux run` prints it on stderr, even with --quiet: a latency target met by the jobs that
// finished says nothing about those that did not.
std::string excluded_jobs_warning(const nlohmann::json& summary);
// "note: ..." when trace columns replaced services.default values (summary.json
// trace.services_default_overridden), naming each field and how many services; "" otherwise.
std::string services_override_note(const nlohmann::json& summary);

// The human-readable summary printed by `gpumux run` (`--format table`); null values (empty
// sets) print as n/a. The `expect` bounds are not in it: print_expect_table prints them.
void print_summary_table(const Scenario& scenario, const RunReport& report, std::ostream& out);

}  // namespace gpumux
