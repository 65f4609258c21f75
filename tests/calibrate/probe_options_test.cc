#include "calibrate/probe/probe_options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/base/input_error.h"

namespace gpumux::calibration {
namespace {

ParsedCommandLine parse(std::vector<std::string> args) {
  args.insert(args.begin(), "gpumux-probe");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return parse_probe_command_line(static_cast<int>(argv.size()), argv.data());
}

TEST(ProbeOptions, DefaultsMatchTheReferenceGrid) {
  const ProbeOptions o = parse({}).options;
  EXPECT_EQ(o.kernel_us, (std::vector<double>{20, 200, 2000}));
  EXPECT_EQ(o.sm_share, (std::vector<double>{0.25, 0.5, 1.0}));
  EXPECT_EQ(o.duty, (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ(o.active_thread_pct, (std::vector<int>{50}));
  EXPECT_EQ(o.modes, (std::vector<std::string>{"timeslice", "mps"}));
  EXPECT_DOUBLE_EQ(o.budget_s, 300);
  EXPECT_EQ(o.out_dir, "out/calibration");
  EXPECT_TRUE(o.containment);
  EXPECT_EQ(o.command_line, "gpumux-probe");
}

TEST(ProbeOptions, ListsAreParsedSortedAndDeduplicated) {
  const ProbeOptions o = parse({"--kernel-us", "2000,20,20", "--sm-share", "1,0.5", "--duty",
                                "0.25", "--atp", "30,70", "--modes", "mps", "--budget-s", "60",
                                "--out", "x/y", "--device", "1", "--no-containment"})
                             .options;
  EXPECT_EQ(o.kernel_us, (std::vector<double>{20, 2000}));
  EXPECT_EQ(o.sm_share, (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ(o.duty, (std::vector<double>{0.25}));
  EXPECT_EQ(o.active_thread_pct, (std::vector<int>{30, 70}));
  EXPECT_EQ(o.modes, (std::vector<std::string>{"mps"}));
  EXPECT_DOUBLE_EQ(o.budget_s, 60);
  EXPECT_EQ(o.out_dir, "x/y");
  EXPECT_EQ(o.device, 1);
  EXPECT_FALSE(o.containment);
  EXPECT_NE(o.command_line.find("--kernel-us 2000,20,20"), std::string::npos);
}

TEST(ProbeOptions, QuickShrinksOnlyWhatIsNotGiven) {
  const ProbeOptions o = parse({"--quick", "--duty", "0.5"}).options;
  EXPECT_EQ(o.kernel_us, (std::vector<double>{20, 2000}));
  EXPECT_EQ(o.duty, (std::vector<double>{0.5}));
  EXPECT_DOUBLE_EQ(o.window_s, 0.3);
  EXPECT_EQ(o.mixed_pairs, 2);
  const ProbeOptions w = parse({"--quick", "--window-s", "1"}).options;
  EXPECT_DOUBLE_EQ(w.window_s, 1.0);
}

TEST(ProbeOptions, AtpNoneMeasuresNoCap) {
  EXPECT_TRUE(parse({"--atp", "none"}).options.active_thread_pct.empty());
}

TEST(ProbeOptions, HelpReturnsTheTeachingText) {
  const ParsedCommandLine p = parse({"--help"});
  EXPECT_TRUE(p.help);
  EXPECT_NE(p.help_text.find("--budget-s"), std::string::npos);
  EXPECT_NE(p.help_text.find("kernel_us*(1-duty)/duty"), std::string::npos);
  EXPECT_NE(p.help_text.find("never resets the GPU"), std::string::npos);
}

TEST(ProbeOptions, BadValuesNameTheOption) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--duty", "0"}, "--duty"},
      {{"--duty", "1.5"}, "--duty"},
      {{"--sm-share", "0"}, "--sm-share"},
      {{"--sm-share", "1.01"}, "--sm-share"},
      {{"--kernel-us", "0.5"}, "--kernel-us"},
      {{"--atp", "100"}, "--atp"},
      {{"--atp", "0"}, "--atp"},
      {{"--budget-s", "0"}, "--budget-s"},
      {{"--budget-s", "-5"}, "--budget-s"},
      {{"--window-s", "0"}, "--window-s"},
      {{"--device", "-1"}, "--device"},
      {{"--modes", "mig"}, "--modes"},
      {{"--out", ""}, "--out"},
  };
  for (const auto& [args, option] : cases) {
    try {
      parse(args);
      ADD_FAILURE() << "accepted " << args[0] << " " << args[1];
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
  }
}

TEST(ProbeOptions, UnknownOptionsAndNonNumbersAreInputErrors) {
  EXPECT_THROW(parse({"--frobnicate"}), InputError);
  EXPECT_THROW(parse({"--kernel-us", "fast"}), InputError);
  EXPECT_THROW(parse({"--budget-s"}), InputError);
}

}  // namespace
}  // namespace gpumux::calibration
