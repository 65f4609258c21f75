// The `outputs` section: the output folder and which files a run writes.
#include "scenarios/sections/sections.h"

#include "sim/base/json_fields.h"

namespace gpumux::scenario_sections {

void parse_outputs(Scenario& s, JsonObject& root) {
  s.outputs.dir = "out/" + s.name;
  if (root.has("outputs")) {
    JsonObject o = root.object("outputs");
    s.outputs.dir = o.optional_string("dir", s.outputs.dir);
    // "" names no folder: reported here, at the key, not later as if --out had been given.
    if (s.outputs.dir.empty()) {
      throw InputError(o.where("dir"), "dir",
                       "expected a folder, got \"\" (leave 'dir' out for out/<name>)");
    }
    s.outputs.timeseries_interval =
        Time::from_seconds(o.optional_number("timeseries_interval_s", 60.0, 1e-3, 1e9));
    s.outputs.jobs_csv = o.optional_bool("jobs_csv", true);
    s.outputs.timeseries_csv = o.optional_bool("timeseries_csv", true);
    s.outputs.exact_percentiles = o.optional_bool("exact_percentiles", false);
    o.finish();
  } else {
    root.allow("outputs");
  }
  // The output folder is left out: summary.json lives in it, and the same run written to two
  // folders must give byte-identical files.
  s.resolved["outputs"] = {{"timeseries_interval_s", s.outputs.timeseries_interval.seconds()},
                           {"jobs_csv", s.outputs.jobs_csv},
                           {"timeseries_csv", s.outputs.timeseries_csv}};
  // Echoed when asked for: summaries of runs that leave it at its default stay as they were.
  if (s.outputs.exact_percentiles) s.resolved["outputs"]["exact_percentiles"] = true;
}

}  // namespace gpumux::scenario_sections
