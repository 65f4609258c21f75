// `gpumux check --junit FILE`: the check's results as JUnit XML, the report CI servers
// (Jenkins, GitLab, GitHub Actions reporters) read.
//
//   <testsuites name="gpumux check" tests="7" failures="1">
//     <testsuite name="regression-time-limit" file="scenarios/regression/time_limit.json"
//                tests="6" failures="1">
//       <testcase classname="regression-time-limit" name="jct_s.p95">
//         <failure message="jct_s.p95 = 1032, bound &lt;= 1000: an hour at the 95th ...">...
//
// One testsuite per scenario, one testcase per bound (classname the scenario's name, name the
// metric), in check's order; a failed bound has a <failure> whose message gives the value, the
// bound and the bound's note. No times: the same check writes the same bytes.
#pragma once

#include <ostream>
#include <string>

#include "analysis/check/check.h"

namespace gpumux {

void write_check_junit(const CheckResult& result, std::ostream& out);

// Writes the XML to `file` whole or not at all (sim/base/atomic_file.h). Throws InputError when
// the file cannot be written.
void write_check_junit_file(const CheckResult& result, const std::string& file);

}  // namespace gpumux
