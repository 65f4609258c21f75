// `gpumux calibrate SOURCE fit|check`: the command line comes from the table of calibration
// sources, and the older forms (`calibrate fit|check [--mode mig]`, `colocation fit|predict`)
// write the same bytes as the new one and name it on stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "calibrate/sources.h"
#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

TEST(CalibrateCli, EverySourceInTheTableIsACommandWithItsVerbs) {
  const auto help = testing::run_cli({"calibrate", "--help"});
  ASSERT_EQ(help.code, 0) << help.err;
  // The help teaches the new form only.
  EXPECT_THAT(help.out, HasSubstr("gpumux calibrate overlap fit"));
  EXPECT_THAT(help.out, Not(HasSubstr("replay-check")));
  for (const calibration::SourceInfo& s : calibration::calibration_sources()) {
    const std::string name(s.name);
    EXPECT_THAT(help.out, HasSubstr(name));
    EXPECT_EQ(calibration::calibration_sources().find(name), &s);
    const auto own = testing::run_cli({"calibrate", name, "--help"});
    ASSERT_EQ(own.code, 0) << name << ": " << own.err;
    EXPECT_THAT(own.out, HasSubstr(std::string(s.summary)));
    const std::pair<const char*, bool> verbs[] = {{"fit", bool(s.fit)}, {"check", bool(s.check)}};
    for (const auto& [verb, offered] : verbs) {
      if (offered) {
        const auto r = testing::run_cli({"calibrate", name, verb, "--help"});
        EXPECT_EQ(r.code, 0) << name << " " << verb << ": " << r.err;
      } else {
        EXPECT_NE(testing::run_cli({"calibrate", name, verb}).code, 0) << name << " " << verb;
      }
    }
  }
  EXPECT_EQ(calibration::calibration_sources().find("colocation"), nullptr);
  EXPECT_FALSE(calibration::calibration_sources().find("replay")->fit);
  EXPECT_NE(testing::run_cli({"calibrate", "nonsense", "fit"}).code, 0);
}

fs::path shared_data() { return testing::source_dir() / ".." / "shared" / "data"; }

struct Run {
  testing::CliResult cli;
  std::string written;  // the file the command wrote, "" when none
};

// Runs `args`; when `out_file` is given, reads what the command wrote there and removes it, so
// that two forms writing the same path are compared byte for byte.
Run run(const std::vector<std::string>& args, const fs::path& out_file = {}) {
  Run r{testing::run_cli(args), ""};
  if (!out_file.empty() && fs::exists(out_file)) {
    r.written = testing::read_file(out_file);
    fs::remove(out_file);
  }
  return r;
}

// The older form writes what the new form writes, prints the same report, and says the new form
// on stderr (the new form does not say it).
void expect_same(const std::vector<std::string>& older, const std::vector<std::string>& newer,
                 const std::string& new_form, const fs::path& out_file = {}) {
  const Run a = run(older, out_file);
  const Run b = run(newer, out_file);
  ASSERT_EQ(a.cli.code, 0) << older[1] << ": " << a.cli.err;
  ASSERT_EQ(b.cli.code, 0) << new_form << ": " << b.cli.err;
  EXPECT_EQ(a.cli.out, b.cli.out) << new_form;
  EXPECT_EQ(a.written, b.written) << new_form;
  if (!out_file.empty()) {
    EXPECT_FALSE(b.written.empty()) << new_form;
  }
  EXPECT_THAT(a.cli.err, HasSubstr("is the older form of `gpumux " + new_form + "`"));
  EXPECT_THAT(b.cli.err, Not(HasSubstr("older form")));
}

TEST(CalibrateCli, OlderFormsRunTheSameAsTheNewOnes) {
  const fs::path data = shared_data();
  const std::string overlap = (data / "h200" / "overlap_train.csv").string();
  const std::string speeds = (data / "miso-a100-mig" / "mig_speeds_train.csv").string();
  const std::string workloads = (data / "miso-a100-mig" / "workloads.csv").string();
  const std::string singles = (data / "colocation" / "lucid_single_data.csv").string();
  const std::string pairs = (data / "colocation" / "lucid_pairs_train.csv").string();
  for (const std::string& f : {overlap, speeds, workloads, singles, pairs}) {
    if (!fs::exists(f)) GTEST_SKIP() << f << " not found (../shared/data)";
  }
  const fs::path dir = testing::temp_dir("calibrate_cli");
  const std::string cal = (dir / "cal.json").string();

  expect_same({"calibrate", "fit", overlap, "-o", cal},
              {"calibrate", "overlap", "fit", overlap, "-o", cal}, "calibrate overlap fit", cal);
  ASSERT_EQ(run({"calibrate", "overlap", "fit", overlap, "-o", cal}).cli.code, 0);
  expect_same({"calibrate", "check", overlap, "--calibration", cal, "--format", "csv"},
              {"calibrate", "overlap", "check", overlap, "--calibration", cal, "--format", "csv"},
              "calibrate overlap check");

  expect_same({"calibrate", "fit", "--mode", "mig", speeds, "--workloads", workloads, "-o", cal},
              {"calibrate", "mig-speeds", "fit", speeds, "--workloads", workloads, "-o", cal},
              "calibrate mig-speeds fit", cal);
  expect_same({"calibrate", "check", "--mode", "mig", speeds, "--workloads", workloads},
              {"calibrate", "mig-speeds", "check", speeds, "--workloads", workloads},
              "calibrate mig-speeds check");

  expect_same({"colocation", "fit", "--single", singles, "--pairs", pairs, "-o", cal},
              {"calibrate", "pairs", "fit", "--single", singles, "--pairs", pairs, "-o", cal},
              "calibrate pairs fit", cal);
  expect_same({"colocation", "predict", "--single", singles, "--pairs", pairs},
              {"calibrate", "pairs", "check", "--single", singles, "--pairs", pairs},
              "calibrate pairs check");
}

// The new forms take only their own source's options: the MIG speeds need their workloads, and
// the overlap source has no --workloads.
TEST(CalibrateCli, EachSourceTakesItsOwnOptions) {
  EXPECT_NE(testing::run_cli({"calibrate", "mig-speeds", "fit", "s.csv", "-o", "c.json"}).code, 0);
  EXPECT_NE(testing::run_cli(
                {"calibrate", "overlap", "fit", "m.csv", "-o", "c.json", "--workloads", "w.csv"})
                .code,
            0);
  EXPECT_NE(testing::run_cli({"calibrate", "overlap", "check", "m.csv", "--mode", "mig"}).code, 0);
}

}  // namespace
}  // namespace gpumux
