// Every file a scenario reads is one of its recorded inputs (scenarios/input_file.h): the run's
// provenance and the sweeps' digests list it, so that a file edited between two shards of a
// sweep is noticed (docs/sweeps.md "Changed inputs"). The scenario's sections and the trace
// transforms they parse resolve a path only through input_path(), which records it; this scan
// fails when one resolves a path another way.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/input_file.h"
#include "tests/architecture/name_scan.h"
#include "tests/traces/test_files.h"

namespace gpumux::testing {
namespace {

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Ways to turn a scenario's path into a file to open without recording it.
const std::vector<std::string> kBypasses = {"resolve_path(", "lexically_normal"};

// Where those are the helper itself (input_path, and the resolver plan's MIG layouts use for a
// scenario's own sharing parameters, recorded by the sharing section).
bool allowed(const std::string& file) {
  return file == "scenarios/input_file.h" || file == "scenarios/scenario.cc" ||
         file == "scenarios/sections/sections.h";
}

TEST(InputFiles, ScenarioSectionsResolvePathsOnlyThroughInputPath) {
  const std::string root = source_dir();
  std::vector<std::string> offenders;
  std::size_t scanned = 0;
  for (const std::string& file : product_files(root, {"scenarios", "traces/transforms"}, {})) {
    ++scanned;
    if (allowed(file)) continue;
    const std::string text = text_of(root + "/" + file);
    for (const std::string& b : kBypasses) {
      if (text.find(b) != std::string::npos) offenders.push_back(file + " (" + b + ")");
    }
  }
  EXPECT_GT(scanned, 20u);  // the scan saw the sections
  EXPECT_TRUE(offenders.empty()) << [&] {
    std::string s = "resolve scenario paths with input_path() (scenarios/input_file.h):";
    for (const auto& o : offenders) s += "\n  " + o;
    return s;
  }();
}

TEST(InputFiles, InputPathResolvesAndRecords) {
  std::vector<InputFile> files;
  EXPECT_EQ(input_path(files, "trace.file", "../t.csv", "/a/b"), "/a/t.csv");
  EXPECT_EQ(input_path(files, "x", "/abs.csv", "/a/b"), "/abs.csv");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].role, "trace.file");
  EXPECT_EQ(files[0].shown, "../t.csv");
  EXPECT_EQ(input_role("s.json#/services/by_id/a/request_times"), "services.by_id.a.request_times");
}

}  // namespace
}  // namespace gpumux::testing
