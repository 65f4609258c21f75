// No product code outside a model's own folder chooses behaviour by spelling a sharing model's
// name: what it needs to know of a model is a field of the model's table entry
// (models/registry.h). The scan covers every product .h/.cc; the names that remain are in
// model_names_allowed.txt, each with its kind and reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/registry.h"
#include "tests/architecture/name_scan.h"
#include "tests/traces/test_files.h"

namespace gpumux::testing {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kProductFolders = {
    "analysis", "apps", "calibrate", "models", "packing", "python", "scenarios", "sim", "traces"};

std::set<std::string> model_names() {
  const auto names = sharing_models().names();
  return {names.begin(), names.end()};
}

// A model's own folder: models/<its name up to a '+'> (mig+mps lives in models/mig/).
std::vector<std::string> model_folders(const std::string& root) {
  std::set<std::string> out;
  for (const std::string& name : model_names()) {
    const std::string folder = "models/" + name.substr(0, name.find('+'));
    if (fs::is_directory(fs::path(root) / folder)) out.insert(folder);
  }
  return {out.begin(), out.end()};
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every literal naming a model in the product files under `root`, outside the models' folders.
std::vector<NameHit> scan_tree(const std::string& root) {
  std::vector<NameHit> hits;
  for (const std::string& file : product_files(root, kProductFolders, model_folders(root))) {
    for (NameHit& h : scan_source(read_text(root + "/" + file), file, model_names())) {
      hits.push_back(std::move(h));
    }
  }
  return hits;
}

// The hits that `allowed` does not explain, as "FILE:LINE: NAME" lines.
std::vector<std::string> unexplained(const std::vector<NameHit>& hits,
                                     const std::vector<AllowedName>& allowed) {
  std::set<std::pair<std::string, std::string>> ok;
  for (const AllowedName& a : allowed) ok.insert({a.file, a.name});
  std::vector<std::string> out;
  for (const NameHit& h : hits) {
    if (!ok.count({h.file, h.name})) {
      out.push_back(h.file + ":" + std::to_string(h.line) + ": \"" + h.name + "\"");
    }
  }
  return out;
}

std::string allow_list_path() { return source_path("tests/architecture/model_names_allowed.txt"); }

TEST(ModelNames, TheScanFindsAPlantedLiteralAndNothingElse) {
  const std::string text =
      read_text(source_path("tests/architecture/fixtures/planted_model_name.cc.txt"));
  ASSERT_FALSE(text.empty());
  const auto hits = scan_source(text, "planted.cc", model_names());
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].line, 9);
  EXPECT_EQ(hits[0].name, "timeslice");
}

TEST(ModelNames, AFileNamingAModelOutsideItsFolderFailsTheCheck) {
  // A copy of the fixture planted in a product folder of a scratch tree, and one inside the
  // model's own folder, which may name it.
  const fs::path root = fs::path(::testing::TempDir()) / "model_names_tree";
  fs::remove_all(root);
  fs::create_directories(root / "analysis");
  fs::create_directories(root / "models" / "timeslice");
  const std::string fixture = source_path("tests/architecture/fixtures/planted_model_name.cc.txt");
  fs::copy_file(fixture, root / "analysis" / "planted.cc");
  fs::copy_file(fixture, root / "models" / "timeslice" / "own.cc");
  for (const std::string& folder : kProductFolders) fs::create_directories(root / folder);
  const auto bad = unexplained(scan_tree(root.string()), read_allow_list(allow_list_path()));
  EXPECT_THAT(bad, ::testing::ElementsAre("analysis/planted.cc:9: \"timeslice\""));
  fs::remove_all(root);
}

TEST(ModelNames, NoProductFileOutsideAModelsFolderNamesItUnlessAllowed) {
  const std::string root = source_dir();
  const auto hits = scan_tree(root);
  const auto allowed = read_allow_list(allow_list_path());
  const auto bad = unexplained(hits, allowed);
  EXPECT_TRUE(bad.empty()) << "a product file names a sharing model (make it a field of the "
                              "model's table entry, models/registry.h, or, for a data value, add "
                              "it to tests/architecture/model_names_allowed.txt):\n"
                           << ::testing::PrintToString(bad);
  // Every allowed pair still occurs: the list only shrinks as names become capabilities.
  std::set<std::pair<std::string, std::string>> seen;
  for (const NameHit& h : hits) seen.insert({h.file, h.name});
  for (const AllowedName& a : allowed) {
    EXPECT_TRUE(seen.count({a.file, a.name}))
        << "model_names_allowed.txt:" << a.line << ": " << a.file << " no longer names '" << a.name
        << "': remove the line";
  }
}

}  // namespace
}  // namespace gpumux::testing
