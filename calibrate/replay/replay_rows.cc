#include "calibrate/replay/replay_rows.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"

namespace gpumux::calibration {
namespace {

constexpr const char* kColumns[] = {"mode",
                                    "job",
                                    "device",
                                    "submit_s",
                                    "ready_s",
                                    "start_s",
                                    "end_s",
                                    "jct_s",
                                    "outcome",
                                    "error",
                                    "kernels_done",
                                    "kernels_planned",
                                    "alone_kernels_per_s",
                                    "fault_after_s"};

constexpr ReplayOutcome kOutcomes[] = {ReplayOutcome::kCompleted,  ReplayOutcome::kOom,
                                       ReplayOutcome::kFault,      ReplayOutcome::kTornDown,
                                       ReplayOutcome::kUnfinished, ReplayOutcome::kFailed};

// Seconds with microsecond resolution; NaN (never) as an empty cell.
std::string seconds(double s) {
  if (std::isnan(s)) return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f", s);
  return buf;
}

// A CSV cell: quoted when it holds a comma, a quote or a line end (error texts may).
std::string cell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string q = "\"";
  for (char c : text) {
    if (c == '"')
      q += "\"\"";
    else if (c == '\r' || c == '\n')
      q += ' ';
    else
      q += c;
  }
  return q + "\"";
}

}  // namespace

std::unique_ptr<TraceSource> open_replay_trace(const std::string& path) {
  const auto ends_with = [&](const std::string& tail) {
    return path.size() >= tail.size() &&
           path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends_with(".jsonl") || ends_with(".jsonl.gz") ? open_native_jsonl(path, TraceDefaults{}, 1)
                                                       : open_native_csv(path, TraceDefaults{}, 1);
}

const char* replay_outcome_name(ReplayOutcome o) {
  switch (o) {
    case ReplayOutcome::kCompleted:
      return "completed";
    case ReplayOutcome::kOom:
      return "oom";
    case ReplayOutcome::kFault:
      return "fault";
    case ReplayOutcome::kTornDown:
      return "torn_down";
    case ReplayOutcome::kUnfinished:
      return "unfinished";
    case ReplayOutcome::kFailed:
      return "failed";
  }
  return "failed";
}

void write_replay_csv(const std::vector<ReplayRow>& rows, std::ostream& out) {
  for (std::size_t i = 0; i < std::size(kColumns); ++i) out << (i ? "," : "") << kColumns[i];
  out << "\n";
  char rate[48];
  for (const ReplayRow& r : rows) {
    std::snprintf(rate, sizeof rate, "%.3f", r.alone_kernels_per_s);
    out << r.mode << ',' << cell(r.job) << ',' << cell(r.device) << ',' << seconds(r.submit_s)
        << ',' << seconds(r.ready_s) << ',' << seconds(r.start_s) << ',' << seconds(r.end_s) << ','
        << seconds(r.jct_s()) << ',' << replay_outcome_name(r.outcome) << ',' << cell(r.error)
        << ',' << r.kernels_done << ',' << r.kernels_planned << ',' << rate << ','
        << seconds(r.fault_after_s) << "\n";
  }
}

std::vector<ReplayRow> read_replay_csv(const std::string& path) {
  CsvReader csv(path);
  std::vector<std::string> fields;
  if (!csv.next(fields)) throw InputError(path, "", "empty file: expected a header line");
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
  for (const char* name : kColumns) {
    if (!column.count(name)) {
      throw InputError(csv.where(), name,
                       "missing column (a replay.csv of gpumux-probe replay has mode, job, "
                       "device, submit_s, ready_s, start_s, end_s, jct_s, outcome, error, "
                       "kernels_done, kernels_planned, alone_kernels_per_s, fault_after_s)");
    }
  }
  std::vector<ReplayRow> rows;
  std::set<std::string> jobs;
  while (csv.next(fields)) {
    const std::string where = csv.where();
    if (fields.size() != column.size()) {
      throw InputError(where, "",
                       "expected " + std::to_string(column.size()) + " fields, got " +
                           std::to_string(fields.size()));
    }
    auto text = [&](const char* name) -> const std::string& { return fields[column[name]]; };
    // An empty cell is an instant that never came.
    auto instant = [&](const char* name) {
      const std::string_view t = trim_blanks(text(name));
      return t.empty() ? std::nan("") : parse_number_cell(t, where, name, -1e9, 1e9);
    };
    ReplayRow r;
    r.line = static_cast<int>(csv.line());
    r.mode = text("mode");
    if (r.mode != "timeslice" && r.mode != "mps") {
      throw InputError(where, "mode", "expected 'timeslice' or 'mps', got '" + r.mode + "'");
    }
    if (!rows.empty() && r.mode != rows.front().mode) {
      throw InputError(where, "mode",
                       "'" + r.mode + "' after rows of '" + rows.front().mode +
                           "': a replay.csv holds one mode (one replay)");
    }
    r.job = text("job");
    if (r.job.empty()) throw InputError(where, "job", "empty job id");
    if (!jobs.insert(r.job).second) {
      throw InputError(where, "job", "job '" + r.job + "' appears twice");
    }
    r.device = text("device");
    if (r.device.empty()) throw InputError(where, "device", "empty device name");
    r.submit_s = parse_number_cell(text("submit_s"), where, "submit_s", 0.0, 1e9);
    r.ready_s = instant("ready_s");
    r.start_s = instant("start_s");
    r.end_s = instant("end_s");
    const std::string& outcome = text("outcome");
    bool known = false;
    for (ReplayOutcome o : kOutcomes) {
      if (outcome == replay_outcome_name(o)) {
        r.outcome = o;
        known = true;
      }
    }
    if (!known) {
      throw InputError(where, "outcome",
                       "unknown outcome '" + outcome +
                           "' (completed, oom, fault, torn_down, unfinished, failed)");
    }
    if (r.outcome != ReplayOutcome::kUnfinished && std::isnan(r.end_s)) {
      throw InputError(where, "end_s", "empty, but the job ended (" + outcome + ")");
    }
    if (r.end_s < r.submit_s) throw InputError(where, "end_s", "before submit_s");
    r.error = text("error");
    r.kernels_done = parse_int_cell(text("kernels_done"), where, "kernels_done", 0, INT64_MAX);
    r.kernels_planned =
        parse_int_cell(text("kernels_planned"), where, "kernels_planned", 0, INT64_MAX);
    r.alone_kernels_per_s =
        parse_number_cell(text("alone_kernels_per_s"), where, "alone_kernels_per_s", 0.0, 1e9);
    r.fault_after_s = instant("fault_after_s");
    if (r.fault_after_s < 0) throw InputError(where, "fault_after_s", "negative");
    rows.push_back(std::move(r));
  }
  if (rows.empty()) throw InputError(path, "", "no rows: expected one row per replayed job");
  return rows;
}

}  // namespace gpumux::calibration
