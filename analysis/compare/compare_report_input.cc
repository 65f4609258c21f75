#include "analysis/compare/compare_report_input.h"

#include <nlohmann/json.hpp>

#include "analysis/compare/compare_report.h"
#include "analysis/metrics/metric_format.h"

namespace gpumux {

namespace {

using nlohmann::json;

std::optional<double> number_at(const json& cell, const char* key) {
  const json* v = json_find(cell, key);
  return v != nullptr && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
}

}  // namespace

void read_compare_folder(const std::filesystem::path& dir, const std::string& shown,
                         const std::string& prefix, ReportInputs& inputs) {
  CompareFolder data;
  std::vector<ReportVariant> variants = read_compare(dir, shown, prefix, data);
  const json& doc = data.doc;
  const std::size_t seeds = doc["seeds"].size();

  SeedTable table;
  table.heading = data.dir + ": scenario '";
  const json* scenario = json_find(doc, "/scenario/name");
  table.heading +=
      scenario != nullptr && scenario->is_string() ? scenario->get<std::string>() : "-";
  table.heading += "', " + std::to_string(seeds) + (seeds == 1 ? " seed" : " seeds");
  for (const auto& v : doc["variants"]) table.columns.push_back(v["model"].get<std::string>());
  for (const auto& m : doc["metrics"]) {
    const std::string name = m["name"].get<std::string>();
    const MetricFormat f = metric_format(name).value_or(MetricFormat{3, false});
    const CompareMetric metric{name, m["label"].get<std::string>(), f.digits, f.count};
    table.metric_names.push_back(metric.name);
    table.metric_labels.push_back(metric.label);
    std::vector<SeedCell> row;
    for (const auto& v : doc["variants"]) {
      const auto found = v["metrics"].find(metric.name);
      const json* cell = found == v["metrics"].end() ? nullptr : &*found;
      if (cell == nullptr || !cell->is_object()) {
        row.push_back({"-", std::nullopt, std::nullopt, 0});
        continue;
      }
      CompareCell c;
      c.mean = number_at(*cell, "/mean");
      c.half_width = number_at(*cell, "/ci95_half_width");
      if (const json* n = json_find(*cell, "/n"); n != nullptr && n->is_number_unsigned()) {
        c.n = n->get<std::size_t>();
      }
      // A mean without its interval (a hand-edited file) prints as "n/a", never a half-width
      // that is not there.
      if (seeds > 1 && !c.half_width) c.mean.reset();
      row.push_back({compare_cell_text(metric, c, seeds), c.mean, c.half_width, c.n});
    }
    table.cells.push_back(std::move(row));
  }
  table.note = seeds == 1
                   ? "One run per variant: the run's value. n/a: an empty set (e.g. no finished "
                     "job), never 0."
                   : "mean \u00b1 half-width of the 95% confidence interval of the mean over the " +
                         std::to_string(seeds) +
                         " seeds (Student t), the digits of gpumux compare. n/a: an empty set in "
                         "some seed; n/a (k/N): only k of the N seeds had a value.";
  inputs.variants.insert(inputs.variants.end(), std::make_move_iterator(variants.begin()),
                         std::make_move_iterator(variants.end()));
  inputs.tables.push_back(std::move(table));
}

}  // namespace gpumux
