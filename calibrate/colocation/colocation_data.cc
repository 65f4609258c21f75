#include "calibrate/colocation/colocation_data.h"

#include <charconv>
#include <cmath>
#include <map>

#include "models/mps/gavel_compare.h"
#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"

namespace gpumux::calibration {
namespace {

// A CSV file read whole through the one CSV reader (traces/io/csv_reader.h: its dialect, blank and
// '#' lines skipped), with its header's column positions.
class Table {
 public:
  explicit Table(const std::string& path) : path_(path) {
    CsvReader csv(path);
    if (!csv.next(header_)) throw InputError(path + ":1", "", "empty file, expected a header");
    header_line_ = static_cast<int>(csv.line());
    for (std::size_t i = 0; i < header_.size(); ++i) {
      column_[std::string(trim_blanks(header_[i]))] = i;
    }
    std::vector<std::string> fields;
    while (csv.next(fields)) {
      const int number = static_cast<int>(csv.line());
      if (fields.size() != header_.size()) {
        throw InputError(where(number), "",
                         "expected " + std::to_string(header_.size()) + " fields, got " +
                             std::to_string(fields.size()));
      }
      rows_.push_back({number, fields});
    }
  }

  std::size_t column(const std::string& name) const {
    auto it = column_.find(name);
    if (it == column_.end()) {
      throw InputError(where(header_line_), name, "missing column in header");
    }
    return it->second;
  }
  std::string where(int line) const { return path_ + ":" + std::to_string(line); }

  struct Row {
    int line;
    std::vector<std::string> fields;
  };
  const std::vector<Row>& rows() const { return rows_; }

  std::string text(const Row& r, std::size_t col, const std::string& name) const {
    std::string s(trim_blanks(r.fields[col]));
    if (s.empty()) throw InputError(where(r.line), name, "empty value");
    return s;
  }
  double number(const Row& r, std::size_t col, const std::string& name) const {
    const std::string s = text(r, col, name);
    double v = 0.0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) {
      throw InputError(where(r.line), name, "expected a number, got '" + s + "'");
    }
    return v;
  }
  // Integers may be written as "32" or "32.0".
  int integer(const Row& r, std::size_t col, const std::string& name) const {
    const double v = number(r, col, name);
    if (v != std::floor(v) || std::abs(v) > 1e9) {
      throw InputError(where(r.line), name,
                       "expected an integer, got '" + text(r, col, name) + "'");
    }
    return static_cast<int>(v);
  }

 private:
  std::string path_;
  std::vector<std::string> header_;
  int header_line_ = 1;
  std::map<std::string, std::size_t> column_;
  std::vector<Row> rows_;
};

void check_range(const Table& t, const Table::Row& r, const std::string& name, double v, double lo,
                 double hi) {
  if (v < lo || v > hi) {
    throw InputError(t.where(r.line), name,
                     "value " + std::to_string(v) + " outside [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "]");
  }
}

}  // namespace

std::vector<SingleConfig> load_singles(const std::string& path) {
  const Table t(path);
  const std::size_t model = t.column("model"), dataset = t.column("dataset"),
                    batch = t.column("batchsize"), amp = t.column("amp"), speed = t.column("speed"),
                    util = t.column("gpu_util"), mem_util = t.column("gmem_util"),
                    mem = t.column("gmem");
  std::vector<SingleConfig> out;
  std::map<ConfigKey, int> seen;
  for (const auto& r : t.rows()) {
    SingleConfig s;
    s.key = {t.text(r, model, "model"), t.text(r, dataset, "dataset"),
             t.integer(r, batch, "batchsize"), t.integer(r, amp, "amp")};
    s.speed = t.number(r, speed, "speed");
    s.gpu_util = t.number(r, util, "gpu_util");
    s.gmem_util = t.number(r, mem_util, "gmem_util");
    s.gmem_mib = t.number(r, mem, "gmem");
    s.line = r.line;
    check_range(t, r, "gpu_util", s.gpu_util, 0.0, 100.0);
    check_range(t, r, "gmem_util", s.gmem_util, 0.0, 100.0);
    auto [it, fresh] = seen.emplace(s.key, r.line);
    if (!fresh) {
      throw InputError(t.where(r.line), "model",
                       "duplicate config, first on line " + std::to_string(it->second));
    }
    out.push_back(s);
  }
  return out;
}

std::vector<Pair> load_pairs(const std::string& path, const std::vector<SingleConfig>& singles) {
  const Table t(path);
  std::map<ConfigKey, const SingleConfig*> index;
  for (const SingleConfig& s : singles) index[s.key] = &s;
  std::vector<Pair> out;
  for (const auto& r : t.rows()) {
    Pair p;
    p.line = r.line;
    for (int j : {1, 2}) {
      const std::string n = std::to_string(j);
      ConfigKey key{t.text(r, t.column("model" + n), "model" + n),
                    t.text(r, t.column("dataset" + n), "dataset" + n),
                    t.integer(r, t.column("batchsize" + n), "batchsize" + n),
                    t.integer(r, t.column("amp" + n), "amp" + n)};
      const int gpus = t.integer(r, t.column("gpu_num" + n), "gpu_num" + n);
      if (gpus != 1) throw InputError(t.where(r.line), "gpu_num" + n, "only 1-GPU jobs supported");
      const double speed = t.number(r, t.column("speed" + n), "speed" + n);
      check_range(t, r, "speed" + n, speed, 0.0, 2.0);
      auto it = index.find(key);
      const SingleConfig* single = it == index.end() ? nullptr : it->second;
      if (j == 1) {
        p.key1 = key, p.speed1 = speed, p.job1 = single;
      } else {
        p.key2 = key, p.speed2 = speed, p.job2 = single;
      }
    }
    out.push_back(p);
  }
  return out;
}

GavelSource load_gavel_source(const std::string& path) {
  const GavelData data = load_gavel(path);
  const std::vector<MpsJob> duty = map_gavel_types(data, GavelMapping{});
  GavelSource out;
  out.skipped_unrunnable = data.skipped_unrunnable;
  out.singles.reserve(data.types.size());
  for (std::size_t i = 0; i < data.types.size(); ++i) {
    SingleConfig c;
    c.key = {data.types[i].name, "gavel-v100", 0, 0};
    c.speed = data.types[i].v100;
    c.gpu_util = 100.0 * duty[i].sm_util;
    out.singles.push_back(c);
  }
  std::map<std::pair<int, int>, double> measured;
  for (const GavelPairSpeed& p : data.v100_pairs) measured[{p.job, p.partner}] = p.measured;
  for (const auto& [jobs, speed] : measured) {
    const auto [a, b] = jobs;
    if (a > b) continue;
    const auto back = measured.find({b, a});
    if (back == measured.end()) {
      ++out.one_direction;
      continue;
    }
    Pair p;
    p.key1 = out.singles[a].key, p.key2 = out.singles[b].key;
    p.speed1 = speed, p.speed2 = back->second;
    p.job1 = &out.singles[a], p.job2 = &out.singles[b];
    out.pairs.push_back(p);
  }
  for (const auto& [jobs, speed] : measured) {
    if (jobs.first > jobs.second && !measured.contains({jobs.second, jobs.first})) {
      ++out.one_direction;
    }
  }
  return out;
}

}  // namespace gpumux::calibration
