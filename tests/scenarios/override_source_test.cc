#include "scenarios/override_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scenarios/scenario.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;
using testing::source_path;

std::string load_error(const std::vector<std::string>& sets) {
  const std::string file = source_path("scenarios/examples/quickstart.json");
  ScenarioOverrides o;
  o.sets = sets;
  return input_error_message([&] { load_scenario(file, o); });
}

TEST(OverrideSource, DottedPathsArePointers) {
  EXPECT_EQ(override_pointer("scheduler.queue"), "/scheduler/queue");
  EXPECT_EQ(override_pointer("/expect/jct_s.p95"), "/expect/jct_s.p95");
  EXPECT_EQ(override_pointer("seed"), "/seed");
}

TEST(OverrideSource, AnErrorAboutAnOverriddenValueNamesTheOverride) {
  EXPECT_THAT(load_error({"scheduler.queue=bogus"}),
              HasSubstr("quickstart.json#/scheduler/queue (from --set scheduler.queue=bogus): "
                        "field 'queue': unknown queue policy 'bogus'"));
  // An unknown key the override added, and a value inside an object it set.
  EXPECT_THAT(load_error({"scheduler.bogus=1"}),
              HasSubstr("#/scheduler/bogus (from --set scheduler.bogus=1): field 'bogus'"));
  EXPECT_THAT(load_error({"/cluster/node_groups/0={\"nodes\": -1}"}),
              HasSubstr("#/cluster/node_groups/0/nodes (from --set "
                        "/cluster/node_groups/0={\"nodes\": -1}): field 'nodes'"));
  // The last override of a path is the one that holds.
  EXPECT_THAT(load_error({"scheduler.queue=fifo", "scheduler.queue=nope"}),
              HasSubstr("(from --set scheduler.queue=nope)"));
}

TEST(OverrideSource, OtherErrorsAreLeftAsTheyWere) {
  // Of several overrides, the error names the one it is about; errors about other places
  // (a trace row, a key no override set) are left as they were.
  const std::string e = load_error({"description=fine", "scheduler.placement=nowhere"});
  EXPECT_THAT(e, HasSubstr("#/scheduler/placement (from --set scheduler.placement=nowhere)"));
  EXPECT_THAT(e, ::testing::Not(HasSubstr("description=fine")));
  const InputError plain("t.csv:3", "gpus", "expected an integer");
  EXPECT_STREQ(with_override_source(plain, "s.json", {"trace.file=t.csv"}).what(), plain.what());
  const InputError elsewhere("s.json#/scheduler/queue", "queue", "unknown");
  EXPECT_STREQ(with_override_source(elsewhere, "s.json", {"scheduler.queue_x=1"}).what(),
               elsewhere.what());
}

}  // namespace
}  // namespace gpumux
