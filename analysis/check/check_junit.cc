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

std::size_t failures_of(const ScenarioCheck& s) {
  std::size_t n = 0;
  for (const auto& b : s.bounds) n += b.pass ? 0 : 1;
  return n;
}

}  // namespace

void write_check_junit(const CheckResult& result, std::ostream& out) {
  std::size_t tests = 0, failures = 0;
  for (const auto& s : result.scenarios) {
    tests += s.bounds.size();
    failures += failures_of(s);
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"gpumux check\" tests=\"" << tests << "\" failures=\"" << failures
      << "\">\n";
  for (const auto& s : result.scenarios) {
    const std::string name = xml_text(s.name);
    out << "  <testsuite name=\"" << name << "\" file=\"" << xml_text(s.file) << "\" tests=\""
        << s.bounds.size() << "\" failures=\"" << failures_of(s) << "\">\n"
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
