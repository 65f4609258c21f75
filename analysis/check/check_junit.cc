#include "analysis/check/check_junit.h"

#include "analysis/output/number_text.h"
#include "analysis/output/xml_text.h"
#include "sim/base/atomic_file.h"

namespace gpumux {

namespace {

std::string failure_message(const BoundResult& r) {
  std::string m = r.bound.metric + " = " +
                  (r.value.value ? number_text(*r.value.value) : "n/a (" + r.value.why_na + ")") +
                  ", bound " + bound_text(r.bound);
  if (!r.bound.note.empty()) m += ": " + r.bound.note;
  return m;
}

// The baseline's failing metrics: "jct_s.p95 100 -> 120 (worse), ...".
std::string baseline_message(const ScenarioCheck& s) {
  std::string m = std::to_string(s.baseline->failing()) + " metrics fail the baseline gate (" +
                  s.baseline_file + ", --fail-on " + fail_on_name(s.baseline->fail_on) + "):";
  const auto text = [](const std::optional<double>& v) { return v ? number_text(*v) : "n/a"; };
  for (const MetricDiff& d : s.baseline->metrics) {
    if (!s.baseline->fails(d)) continue;
    m += " " + d.metric + " " + text(d.a) + " -> " + text(d.b) + " (" + change_name(d.change) + ")";
  }
  return m;
}

// Its testcases: one per bound, and one for the baseline.
std::size_t tests_of(const ScenarioCheck& s) { return s.bounds.size() + (s.baseline ? 1 : 0); }

std::size_t failures_of(const ScenarioCheck& s) {
  std::size_t n = 0;
  for (const auto& b : s.bounds) n += b.pass ? 0 : 1;
  if (s.baseline && s.baseline->failing() > 0) ++n;
  return n;
}

}  // namespace

void write_check_junit(const CheckResult& result, std::ostream& out) {
  std::size_t tests = 0, failures = 0;
  for (const auto& s : result.scenarios) {
    tests += tests_of(s);
    failures += failures_of(s);
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"gpumux check\" tests=\"" << tests << "\" failures=\"" << failures
      << "\">\n";
  for (const auto& s : result.scenarios) {
    const std::string name = xml_text(s.name);
    out << "  <testsuite name=\"" << name << "\" file=\"" << xml_text(s.file) << "\" tests=\""
        << tests_of(s) << "\" failures=\"" << failures_of(s) << "\">\n"
        << "    <properties><property name=\"seed\" value=\"" << s.seed << "\"/></properties>\n";
    for (const auto& b : s.bounds) {
      out << "    <testcase classname=\"" << name << "\" name=\"" << xml_text(b.bound.metric)
          << "\"";
      if (b.pass) {
        out << "/>\n";
        continue;
      }
      const std::string message = xml_text(failure_message(b));
      out << ">\n      <failure message=\"" << message << "\" type=\"bound\">" << message
          << "</failure>\n    </testcase>\n";
    }
    if (s.baseline) {
      out << "    <testcase classname=\"" << name << "\" name=\"baseline\"";
      if (s.baseline->failing() == 0) {
        out << "/>\n";
      } else {
        const std::string message = xml_text(baseline_message(s));
        out << ">\n      <failure message=\"" << message << "\" type=\"baseline\">" << message
            << "</failure>\n    </testcase>\n";
      }
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

void write_check_junit_file(const CheckResult& result, const std::string& file) {
  AtomicFile xml(file);
  write_check_junit(result, xml.stream());
  xml.commit();
}

}  // namespace gpumux
