#include "traces/formats/trace_source.h"

#include <bit>
#include <functional>
#include <map>

#include "sim/base/json_fields.h"
#include "traces/fields/service_fields.h"
#include "traces/io/csv_reader.h"
#include "traces/io/text_input.h"

namespace gpumux {

std::string RowPlace::str() const {
  if (text != nullptr) return *text;
  return std::string(path) + ":" + std::to_string(line);
}

void TraceSource::complete(JobSpec& job, const std::array<bool, kJobFieldCount>& present,
                           const RowPlace& where, std::uint64_t id_hash) {
  static_assert(kJobFieldCount <= 32, "JobSpec::defaulted_fields holds one bit per field");
  // Bit i: field i (job_fields() is in field order). Masks instead of a pass over the field
  // table: this runs for every row of every trace.
  static const std::uint32_t kRequired = [] {
    std::uint32_t bits = 0;
    for (const auto& f : job_fields()) bits |= f.required ? 1u << static_cast<int>(f.field) : 0u;
    return bits;
  }();
  std::uint32_t missing = 0;
  for (std::size_t i = 0; i < kJobFieldCount; ++i) missing |= present[i] ? 0u : 1u << i;
  if ((missing & kRequired) != 0) {
    // The first required field missing, in field order.
    const auto field = static_cast<JobField>(std::countr_zero(missing & kRequired));
    throw InputError(where.str(), std::string(job_field_info(field).name),
                     "required field is missing or empty");
  }
  job.defaulted_fields = missing;
  for (std::uint32_t bits = missing; bits != 0; bits &= bits - 1) {
    ++stats_.defaults.rows[static_cast<std::size_t>(std::countr_zero(bits))];
  }
  // The only draws a reader makes: the trace cache replays parsed rows through the same call.
  defaults_.fill_marked(job, rng_);
  if (job.submit < last_submit_) {
    throw InputError(where.str(), "submit_s",
                     "submit time " + std::to_string(job.submit.seconds()) +
                         " s is earlier than the previous row's " +
                         std::to_string(last_submit_.seconds()) +
                         " s: traces must be sorted by submit time");
  }
  last_submit_ = job.submit;
  if (!id_hashes_.insert(id_hash)) {
    throw InputError(where.str(), "id",
                     "job id '" + job.id + "' appears more than once in the trace");
  }
  ++stats_.rows;
}

namespace {

// The native formats' workload name (not a JobField: it has no default, and a trace without it
// reads exactly as before).
constexpr std::string_view kWorkloadColumn = "workload";

// A CSV dialect: how its columns map onto native fields. Columns in `ignored` are read past
// (documented in docs/trace-formats.md); any other unknown column is an error.
struct CsvDialect {
  std::map<std::string, JobField, std::less<>> columns;
  std::vector<std::string> ignored;
  bool service_columns = false;  // the native service columns (traces/fields/service_fields.h)
  bool workload_column = false;  // the native `workload` column (docs/workload-catalogue.md)
};

CsvDialect native_dialect() {
  CsvDialect d;
  for (const auto& f : job_fields()) d.columns.emplace(std::string(f.name), f.field);
  d.service_columns = true;
  d.workload_column = true;
  return d;
}

CsvDialect tiresias_dialect() {
  CsvDialect d;
  d.columns = {{"job_id", JobField::kId},
               {"num_gpu", JobField::kGpus},
               {"submit_time", JobField::kSubmit},
               {"duration", JobField::kRuntime}};
  d.ignored = {"iterations", "model_name", "interval"};
  return d;
}

class CsvTraceSource : public TraceSource {
 public:
  CsvTraceSource(const std::string& path, const CsvDialect& dialect, const TraceDefaults& defaults,
                 std::uint64_t seed)
      : TraceSource(defaults, seed), reader_(path) {
    std::vector<std::string> header;
    if (!reader_.next(header)) throw InputError(path + ":1", "", "empty trace: no header line");
    const std::string where = reader_.where();
    std::array<bool, kJobFieldCount> seen{};
    std::array<bool, kServiceColumns.size()> service_seen{};
    for (const auto& name : header) {
      auto it = dialect.columns.find(name);
      if (it != dialect.columns.end()) {
        const int i = static_cast<int>(it->second);
        if (seen[i]) throw InputError(where, name, "column appears twice");
        seen[i] = true;
        column_field_.push_back(static_cast<int>(it->second));
        continue;
      }
      if (std::find(dialect.ignored.begin(), dialect.ignored.end(), name) !=
          dialect.ignored.end()) {
        column_field_.push_back(-1);
        continue;
      }
      if (dialect.workload_column && name == kWorkloadColumn) {
        if (workload_column_ >= 0) throw InputError(where, name, "column appears twice");
        workload_column_ = static_cast<int>(column_field_.size());
        column_field_.push_back(-1);
        continue;
      }
      int service_index = 0;
      if (dialect.service_columns && find_service_column(name, service_index)) {
        if (service_seen[service_index]) throw InputError(where, name, "column appears twice");
        service_seen[service_index] = true;
        column_field_.push_back(kServiceColumnBase - service_index);
        continue;
      }
      std::string valid;
      for (const auto& [n, f] : dialect.columns) valid += (valid.empty() ? "" : ", ") + n;
      for (const auto& n : dialect.ignored) valid += ", " + n;
      if (dialect.workload_column) valid += ", " + std::string(kWorkloadColumn);
      if (dialect.service_columns) {
        for (const auto n : kServiceColumns) valid += ", " + std::string(n);
      }
      throw InputError(where, name, "unknown column (valid: " + valid + ")");
    }
    for (const auto& [n, f] : dialect.columns) {
      if (job_field_info(f).required && !seen[static_cast<int>(f)]) {
        throw InputError(where, n, "required column is missing from the header");
      }
    }
  }

  bool next(JobSpec& job) override {
    if (!reader_.next(cells_)) {
      stats_.skipped_lines = reader_.skipped_lines();
      return false;
    }
    const std::string where = reader_.where();
    if (cells_.size() != column_field_.size()) {
      throw InputError(where, "",
                       "expected " + std::to_string(column_field_.size()) +
                           " fields like the header, got " + std::to_string(cells_.size()));
    }
    std::array<bool, kJobFieldCount> present{};
    std::shared_ptr<ServiceSpec> service;
    job.service.reset();
    for (std::size_t c = 0; c < cells_.size(); ++c) {
      const int f = column_field_[c];
      if (cells_[c].empty() || f == -1) continue;
      if (f <= kServiceColumnBase) {
        if (!service) service = empty_service_row();
        set_service_cell(*service, kServiceColumnBase - f, cells_[c], where);
        continue;
      }
      set_job_field(job, static_cast<JobField>(f), cells_[c], where);
      present[f] = true;
    }
    complete(job, present, where);
    if (service) {
      check_service_row(job, where);
      job.service = std::move(service);
    }
    if (workload_column_ >= 0) {
      job.workload = cells_[static_cast<std::size_t>(workload_column_)];
    } else {
      job.workload.clear();
    }
    stats_.skipped_lines = reader_.skipped_lines();
    return true;
  }

 private:
  // column_field_ codes below -1: service column kServiceColumnBase - index.
  static constexpr int kServiceColumnBase = -2;
  CsvReader reader_;
  std::vector<int> column_field_;  // per column: field index, or -1 for an ignored column
  int workload_column_ = -1;       // the `workload` column, or -1
  std::vector<std::string> cells_;
};

class JsonlTraceSource : public TraceSource {
 public:
  JsonlTraceSource(const std::string& path, const TraceDefaults& defaults, std::uint64_t seed)
      : TraceSource(defaults, seed), path_(path), in_(path) {}

  bool next(JobSpec& job) override {
    while (true) {
      line_number_ = in_.line();
      if (!in_.next_line(line_)) return false;
      const auto first = line_.find_first_not_of(" \t\r");
      if (first == std::string::npos || line_[first] == '#') {
        ++stats_.skipped_lines;
        continue;
      }
      const std::string where = path_ + ":" + std::to_string(line_number_);
      const nlohmann::json row = parse_json_line(line_, path_, line_number_);
      JsonObject o(row, where, "");
      std::array<bool, kJobFieldCount> present{};
      for (const auto& f : job_fields()) {
        const std::string key(f.name);
        if (!o.has(key) || o.raw(key).is_null()) {
          o.allow(key);
          continue;
        }
        const auto& v = o.raw(key);
        const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
        if (!v.is_string() && !v.is_number()) {
          throw InputError(o.where(key), key,
                           "expected a string or number, got " + describe_json(v));
        }
        set_job_field(job, f.field, text, where);
        present[static_cast<int>(f.field)] = true;
      }
      std::shared_ptr<ServiceSpec> service;
      job.service.reset();
      for (std::size_t i = 0; i < kServiceColumns.size(); ++i) {
        const std::string key(kServiceColumns[i]);
        if (!o.has(key) || o.raw(key).is_null()) {
          o.allow(key);
          continue;
        }
        const auto& v = o.raw(key);
        if (!v.is_number()) {
          throw InputError(o.where(key), key, "expected a number, got " + describe_json(v));
        }
        if (!service) service = empty_service_row();
        set_service_cell(*service, static_cast<int>(i), v.dump(), where);
      }
      job.workload.clear();
      if (o.has(kWorkloadColumn) && !o.raw(kWorkloadColumn).is_null()) {
        const auto& v = o.raw(kWorkloadColumn);
        if (!v.is_string()) {
          throw InputError(o.where(kWorkloadColumn), std::string(kWorkloadColumn),
                           "expected a string, got " + describe_json(v));
        }
        job.workload = v.get<std::string>();
      } else {
        o.allow(kWorkloadColumn);
      }
      o.finish();
      complete(job, present, where);
      if (service) {
        check_service_row(job, where);
        job.service = std::move(service);
      }
      return true;
    }
  }

 private:
  std::string path_;
  TextInput in_;  // plain or ".gz", like the CSV formats
  std::string line_;
  std::uint64_t line_number_ = 0;
};

}  // namespace

std::unique_ptr<TraceSource> open_native_csv(const std::string& path, const TraceDefaults& defaults,
                                             std::uint64_t seed) {
  return std::make_unique<CsvTraceSource>(path, native_dialect(), defaults, seed);
}

std::unique_ptr<TraceSource> open_native_jsonl(const std::string& path,
                                               const TraceDefaults& defaults, std::uint64_t seed) {
  return std::make_unique<JsonlTraceSource>(path, defaults, seed);
}

std::unique_ptr<TraceSource> open_tiresias_csv(const std::string& path,
                                               const TraceDefaults& defaults, std::uint64_t seed) {
  return std::make_unique<CsvTraceSource>(path, tiresias_dialect(), defaults, seed);
}

}  // namespace gpumux
