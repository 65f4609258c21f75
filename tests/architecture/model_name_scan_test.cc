// No product file outside a sharing model's folder names the model to choose behaviour
// (model_name_scan.h); the scan itself is checked on a planted defect and on literal forms.
#include "tests/architecture/model_name_scan.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "models/sharing_registry.h"

namespace gpumux::architecture {
namespace {

std::string source_root() {
  const char* dir = std::getenv("GPUMUX_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& m : sharing_models()) names.push_back(m.name);
  return names;
}

// The product's folders: every library and the command line (tests, bench and fuzz may name
// models, as scenario files do).
const std::vector<std::string> kProductFolders = {"sim",      "models",  "traces",    "scenarios",
                                                  "analysis", "packing", "calibrate", "apps"};

TEST(ModelNameScan, NoProductFileOutsideAModelsFolderNamesIt) {
  const std::string root = source_root();
  const auto allowed = read_allow_list(root + "/tests/architecture/model_name_allow_list.txt");
  const auto findings = scan_for_model_names(root, kProductFolders, model_names(), allowed);
  std::string listed;
  for (const Finding& f : findings) {
    listed += "  " + f.path + ":" + std::to_string(f.line) + ": \"" + f.literal + "\"\n";
  }
  EXPECT_TRUE(findings.empty())
      << "product code names a sharing model; read its capabilities instead "
         "(models/sharing_capabilities.h), or allow a data value with a reason in "
         "tests/architecture/model_name_allow_list.txt:\n"
      << listed;
}

TEST(ModelNameScan, FindsAPlantedLiteral) {
  const std::string root = source_root() + "/tests/architecture/fixtures/planted";
  const auto findings = scan_for_model_names(root, {"analysis"}, model_names(), {});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].path, "analysis/planted_choice.cc");
  EXPECT_EQ(findings[0].line, 8);
  EXPECT_EQ(findings[0].literal, "timeslice");
}

TEST(ModelNameScan, AnAllowanceCoversItsPathAndLiteralOnly) {
  const std::string root = source_root() + "/tests/architecture/fixtures/planted";
  EXPECT_TRUE(scan_for_model_names(root, {"analysis"}, model_names(),
                                   {{"analysis/", "timeslice", "a reason"}})
                  .empty());
  EXPECT_EQ(scan_for_model_names(root, {"analysis"}, model_names(),
                                 {{"analysis/", "mps", "a reason"}})
                .size(),
            1u);
  EXPECT_EQ(scan_for_model_names(root, {"analysis"}, model_names(),
                                 {{"sim/", "*", "a reason"}})
                .size(),
            1u);
}

TEST(StringLiterals, SkipsCommentsAndCharactersAndReadsRawStrings) {
  const auto literals = string_literals(
      "// \"not\"\n"
      "/* \"nor\n this\" */ int x = 1'000; char c = '\"';\n"
      "auto a = \"one\\\"two\"; auto b = R\"x(raw \"in\")x\"; auto d = u8\"three\";\n");
  ASSERT_EQ(literals.size(), 3u);
  EXPECT_EQ(literals[0].text, "one\\\"two");
  EXPECT_EQ(literals[0].line, 4);  // the block comment spans lines 2 and 3
  EXPECT_EQ(literals[1].text, "raw \"in\"");
  EXPECT_EQ(literals[2].text, "three");
}

TEST(StringLiterals, CountsLinesInsideRawStrings) {
  const auto literals = string_literals("R\"(a\nb\nc)\"\n\"after\"");
  ASSERT_EQ(literals.size(), 2u);
  EXPECT_EQ(literals[0].line, 1);
  EXPECT_EQ(literals[1].line, 4);
}

}  // namespace
}  // namespace gpumux::architecture
