#include "analysis/report/report_inputs.h"

#include <map>

#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "traces/io/csv_reader.h"

namespace gpumux {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kHuge = 1e300;

// Header columns by name; a required one missing is an error at line 1.
class Columns {
 public:
  Columns(const std::vector<std::string>& header, const std::string& file) : file_(file) {
    for (std::size_t i = 0; i < header.size(); ++i) index_[header[i]] = i;
    count_ = header.size();
  }
  std::size_t required(const std::string& name) const {
    const auto it = index_.find(name);
    if (it == index_.end()) throw InputError(file_ + ":1", name, "required column is missing");
    return it->second;
  }
  std::optional<std::size_t> optional(const std::string& name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  }
  std::size_t count() const { return count_; }

 private:
  std::string file_;
  std::map<std::string, std::size_t> index_;
  std::size_t count_ = 0;
};

void check_field_count(const CsvReader& csv, const std::vector<std::string>& fields,
                       std::size_t expected) {
  if (fields.size() != expected) {
    throw InputError(
        csv.where(), "",
        "expected " + std::to_string(expected) + " fields, got " + std::to_string(fields.size()));
  }
}

void read_timeseries(const std::string& file, RunFolder& run) {
  CsvReader csv(file);
  std::vector<std::string> fields;
  if (!csv.next(fields)) throw InputError(file, "", "empty file: expected a header line");
  const Columns c(fields, file);
  const std::size_t time = c.required("time_s"), ratio = c.required("allocation_ratio"),
                    busy = c.required("sm_busy"), allocated = c.required("allocated_gpus"),
                    queued = c.required("queued");
  struct Optional {
    std::optional<std::size_t> column;
    std::optional<std::vector<ChartPoint>>* target;
    const char* name;
  };
  std::vector<Optional> faults = {
      {c.optional("failed"), &run.failed, "failed"},
      {c.optional("memory_faults"), &run.memory_faults, "memory_faults"},
      {c.optional("fatal_faults"), &run.fatal_faults, "fatal_faults"},
      {c.optional("jobs_killed"), &run.jobs_killed, "jobs_killed"}};
  for (auto& f : faults) {
    if (f.column) f.target->emplace();
  }
  while (csv.next(fields)) {
    check_field_count(csv, fields, c.count());
    const std::string where = csv.where();
    const double t = parse_number_cell(fields[time], where, "time_s", -kHuge, kHuge);
    auto value = [&](std::size_t column, const char* name) {
      return parse_number_cell(fields[column], where, name, -kHuge, kHuge);
    };
    run.allocation_ratio.push_back({t, value(ratio, "allocation_ratio")});
    run.sm_busy.push_back({t, value(busy, "sm_busy")});
    run.allocated_gpus.push_back({t, value(allocated, "allocated_gpus")});
    run.queued.push_back({t, value(queued, "queued")});
    for (auto& f : faults) {
      if (f.column) (*f.target)->push_back({t, value(*f.column, f.name)});
    }
  }
  run.has_timeseries = true;
}

void read_slot_timeseries(const std::string& file, RunFolder& run) {
  CsvReader csv(file);
  std::vector<std::string> fields;
  if (!csv.next(fields)) throw InputError(file, "", "empty file: expected a header line");
  const Columns c(fields, file);
  const std::size_t time = c.required("time_s"), slices = c.required("slices"),
                    busy = c.required("busy_slices"), fragmented = c.required("fragmented_slices");
  while (csv.next(fields)) {
    check_field_count(csv, fields, c.count());
    const std::string where = csv.where();
    const double t = parse_number_cell(fields[time], where, "time_s", -kHuge, kHuge);
    const double n = parse_number_cell(fields[slices], where, "slices", 0.0, kHuge);
    const double b = parse_number_cell(fields[busy], where, "busy_slices", 0.0, kHuge);
    const double f = parse_number_cell(fields[fragmented], where, "fragmented_slices", 0.0, kHuge);
    if (n <= 0) continue;  // no GPU split at t: no share to draw (a gap, not a zero)
    run.slice_busy_share.push_back({t, b / n});
    run.slice_fragmented_share.push_back({t, f / n});
  }
  run.has_slot_timeseries = true;
}

void read_jobs(const std::string& file, RunFolder& run) {
  CsvReader csv(file);
  std::vector<std::string> fields;
  if (!csv.next(fields)) throw InputError(file, "", "empty file: expected a header line");
  const Columns c(fields, file);
  const std::size_t state = c.required("state"), jct = c.required("jct_s"),
                    queue = c.required("queue_s");
  while (csv.next(fields)) {
    check_field_count(csv, fields, c.count());
    if (fields[state] != "finished") continue;
    const std::string where = csv.where();
    run.jct_s.push_back(parse_number_cell(fields[jct], where, "jct_s", -kHuge, kHuge));
    run.queue_s.push_back(parse_number_cell(fields[queue], where, "queue_s", -kHuge, kHuge));
  }
  run.has_jobs = true;
}

}  // namespace

std::string path_text(const fs::path& p) { return p.generic_string(); }

std::string display_dir(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

RunFolder read_run(const fs::path& dir) {
  RunFolder run;
  run.dir = path_text(dir);
  const std::string summary_file = path_text(dir / "summary.json");
  run.summary = read_json_file(summary_file);
  for (const char* key : {"scenario", "metrics"}) {
    if (!run.summary.is_object() || !run.summary.contains(key) || !run.summary[key].is_object()) {
      throw InputError(summary_file + "#/" + key, key,
                       "expected an object (a summary.json written by gpumux run)");
    }
  }
  if (fs::is_regular_file(dir / "timeseries.csv")) {
    read_timeseries(path_text(dir / "timeseries.csv"), run);
  }
  if (fs::is_regular_file(dir / "jobs.csv")) read_jobs(path_text(dir / "jobs.csv"), run);
  if (fs::is_regular_file(dir / "slot_timeseries.csv")) {
    read_slot_timeseries(path_text(dir / "slot_timeseries.csv"), run);
  }
  return run;
}

PlanFolder read_plan(const fs::path& dir) {
  PlanFolder data;
  data.dir = display_dir(path_text(dir));
  const std::string file = path_text(dir / "plan.json");
  data.doc = read_json_file(file);
  const json& doc = data.doc;
  // One plan, or one per load (--load): {"loads", "plans": [...]}.
  const auto check_plan = [&](const json& plan, const std::string& pointer) {
    if (!plan.is_object() || !plan.contains("models") || !plan["models"].is_array() ||
        plan["models"].empty()) {
      throw InputError(file + "#" + pointer + "/models", "models",
                       "expected a non-empty array (a plan.json written by gpumux plan --out)");
    }
    for (std::size_t i = 0; i < plan["models"].size(); ++i) {
      const json& m = plan["models"][i];
      if (!m.is_object() || !m.contains("model") || !m["model"].is_string()) {
        throw InputError(file + "#" + pointer + "/models/" + std::to_string(i), "model",
                         "expected an object with a model name");
      }
    }
  };
  if (doc.is_object() && doc.contains("plans")) {
    if (!doc["plans"].is_array() || doc["plans"].empty()) {
      throw InputError(file + "#/plans", "plans", "expected a non-empty array of plans");
    }
    for (std::size_t i = 0; i < doc["plans"].size(); ++i) {
      check_plan(doc["plans"][i], "/plans/" + std::to_string(i));
    }
  } else {
    check_plan(doc, "");
  }
  return data;
}

std::vector<ReportVariant> read_compare(const fs::path& dir, const std::string& shown,
                                        const std::string& prefix, CompareFolder& data) {
  const std::string file = path_text(dir / "compare.json");
  data.dir = display_dir(shown);
  data.doc = read_json_file(file);
  const json& doc = data.doc;
  auto require_array = [&](const char* key) {
    if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array() || doc[key].empty()) {
      throw InputError(file + "#/" + key, key,
                       "expected a non-empty array (a compare.json written by gpumux compare)");
    }
  };
  require_array("seeds");
  require_array("variants");
  require_array("metrics");
  for (std::size_t i = 0; i < doc["metrics"].size(); ++i) {
    const json& m = doc["metrics"][i];
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string() || !m.contains("label") ||
        !m["label"].is_string()) {
      throw InputError(file + "#/metrics/" + std::to_string(i), "name",
                       "expected {\"name\": string, \"label\": string}");
    }
  }
  std::vector<ReportVariant> variants;
  for (std::size_t v = 0; v < doc["variants"].size(); ++v) {
    const json& variant = doc["variants"][v];
    const std::string pointer = file + "#/variants/" + std::to_string(v);
    if (!variant.is_object() || !variant.contains("model") || !variant["model"].is_string() ||
        !variant.contains("metrics") || !variant["metrics"].is_object()) {
      throw InputError(pointer, "model", "expected an object with a model name and metrics");
    }
    ReportVariant out;
    out.label = prefix + variant["model"].get<std::string>();
    for (std::size_t s = 0; s < doc["seeds"].size(); ++s) {
      const json& seed = doc["seeds"][s];
      if (!seed.is_number_unsigned()) {
        throw InputError(file + "#/seeds/" + std::to_string(s), "seeds",
                         "expected a non-negative integer");
      }
      const fs::path run_dir = dir / variant["model"].get<std::string>() /
                               ("seed-" + std::to_string(seed.get<std::uint64_t>()));
      if (!fs::is_directory(run_dir)) {
        throw InputError(path_text(run_dir), "", "run folder named by " + file + " is missing");
      }
      out.runs.push_back(read_run(run_dir));
      out.runs.back().dir = path_text(fs::path(shown) / variant["model"].get<std::string>() /
                                      ("seed-" + std::to_string(seed.get<std::uint64_t>())));
    }
    variants.push_back(std::move(out));
  }
  return variants;
}

PackFolder read_pack(const fs::path& dir) {
  PackFolder data;
  data.dir = display_dir(path_text(dir));
  const std::string file = path_text(dir / "pack.json");
  data.doc = read_json_file(file);
  const json& doc = data.doc;
  const auto fail = [&](const std::string& pointer, const std::string& field,
                        const std::string& what) {
    throw InputError(file + "#" + pointer, field,
                     what +
                         " (a pack.json written by gpumux pack "
                         "--out)");
  };
  if (!doc.is_object() || !doc.contains("policies") || !doc["policies"].is_array() ||
      doc["policies"].empty()) {
    fail("/policies", "policies", "expected a non-empty array");
  }
  for (std::size_t i = 0; i < doc["policies"].size(); ++i) {
    const json& p = doc["policies"][i];
    const std::string at = "/policies/" + std::to_string(i);
    if (!p.is_object() || !p.contains("policy") || !p["policy"].is_string()) {
      fail(at, "policy", "expected an object with a policy name");
    }
    if (!p.contains("curve") || !p["curve"].is_array())
      fail(at + "/curve", "curve", "expected an array");
    for (std::size_t k = 0; k < p["curve"].size(); ++k) {
      const json& c = p["curve"][k];
      const std::string point = at + "/curve/" + std::to_string(k);
      if (!c.is_object() || !c.contains("arrived_pct") || !c["arrived_pct"].is_number()) {
        fail(point, "arrived_pct", "expected a number");
      }
      for (const char* key : {"alloc_pct", "frag_pct"}) {
        if (!c.contains(key) || c[key].is_null()) continue;
        for (const char* stat : {"mean", "ci95_low", "ci95_high"}) {
          if (!c[key].is_object() || !c[key].contains(stat) || !c[key][stat].is_number()) {
            fail(point + "/" + key, stat, "expected a number");
          }
        }
      }
    }
  }
  return data;
}

void read_report_folder(const fs::path& dir, const std::string& shown_as, ReportInputs& inputs) {
  const std::string shown = display_dir(shown_as);
  if (!fs::is_directory(dir)) throw InputError(shown, "", "no such folder");
  if (fs::exists(dir / "summary.json")) {
    RunFolder run = read_run(dir);
    run.dir = path_text(fs::path(shown_as));
    inputs.variants.push_back({shown, {std::move(run)}});
  } else if (fs::exists(dir / "plan.json")) {
    PlanFolder plan = read_plan(dir);
    plan.dir = shown;
    inputs.plans.push_back(std::move(plan));
  } else if (fs::exists(dir / "fleet.json")) {
    throw InputError(shown, "",
                     "is a fleet plan folder (fleet.json, from gpumux plan --fleet): its page is "
                     "drawn when the plan runs, with --report (DIR/report.html), from what the "
                     "plan's runs measured; fleet.json alone does not hold the distributions");
  } else if (fs::exists(dir / "pack.json")) {
    PackFolder pack = read_pack(dir);
    pack.dir = shown;
    const bool first = inputs.variants.empty() && inputs.plans.empty() && inputs.tables.empty() &&
                       inputs.packs.empty();
    if (first && inputs.title.empty()) inputs.title = "pack study";
    inputs.packs.push_back(std::move(pack));
  } else {
    throw InputError(shown, "",
                     "neither a run folder (summary.json, from gpumux run), a compare folder "
                     "(compare.json, from gpumux compare --out), a sweep folder "
                     "(sweep-plan.json, from gpumux sweep --out), a plan folder (plan.json, "
                     "from gpumux plan --out) nor a pack folder (pack.json, from gpumux pack "
                     "--out)");
  }
}

const json* json_find(const json& j, const std::string& pointer) {
  try {
    const json::json_pointer p(pointer);
    return j.contains(p) ? &j.at(p) : nullptr;
  } catch (const json::exception&) {
    return nullptr;
  }
}

}  // namespace gpumux
