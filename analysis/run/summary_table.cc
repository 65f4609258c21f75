#include "analysis/run/summary_table.h"

#include <algorithm>
#include <iomanip>
#include <vector>

#include "analysis/metrics/metric_catalogue.h"
#include "analysis/output/number_text.h"
#include "analysis/report/queue_reason_section.h"
#include "analysis/run/workload_echo.h"
#include "sim/base/terminal_text.h"

namespace gpumux {

namespace {

std::string fixed(double x, int digits) { return fixed_text(x, digits); }

// The metric lines, from the catalogue: each entry with a line, by its place; a line whose text
// is empty is left out.
void print_metric_lines(const nlohmann::json& metrics, std::ostream& out) {
  std::vector<const MetricInfo*> lines;
  for (const MetricInfo& m : metric_catalogue()) {
    if (m.summary_place > 0) lines.push_back(&m);
  }
  std::stable_sort(lines.begin(), lines.end(), [](const MetricInfo* a, const MetricInfo* b) {
    return a->summary_place < b->summary_place;
  });
  for (const MetricInfo* m : lines) {
    const std::string text = m->summary_text(metrics);
    if (text.empty()) continue;
    out << "  ";
    if (!m->summary_label.empty()) out << std::left << std::setw(29) << m->summary_label;
    out << std::right << text << "\n";
  }
}

// The distributions table, from the catalogue: a row per distribution with a summary row, a
// column per statistic, in catalogue order.
void print_distributions(const nlohmann::json& metrics, std::ostream& out) {
  struct Row {
    std::string label;
    int digits = 0;
    std::vector<std::string> names;  // the statistics, dotted
  };
  std::vector<Row> rows;
  for (const MetricInfo& m : metric_catalogue()) {
    if (m.summary_row.empty()) continue;
    if (rows.empty() || rows.back().label != m.summary_row) {
      rows.push_back({m.summary_row, m.summary_row_digits, {}});
    }
    rows.back().names.push_back(m.name);
  }
  if (rows.empty()) return;
  auto statistic = [](const std::string& name) { return name.substr(name.rfind('.') + 1); };
  out << "  " << std::left << std::setw(22) << "" << std::right;
  for (const std::string& name : rows.front().names) out << std::setw(11) << statistic(name);
  out << "\n";
  for (const Row& row : rows) {
    out << "  " << std::left << std::setw(22) << row.label << std::right;
    for (const std::string& name : row.names) {
      const std::string base = name.substr(0, name.rfind('.'));
      out << std::setw(11) << fixed_or_na(metrics[base][statistic(name)], row.digits);
    }
    out << "\n";
  }
}

}  // namespace

std::string excluded_jobs_warning(const nlohmann::json& summary) {
  const auto& jobs = summary.at("metrics").at("jobs");
  const auto rejected = jobs.at("rejected").get<std::uint64_t>();
  const auto failed = jobs.at("failed").get<std::uint64_t>();
  const auto unfinished = jobs.at("unfinished_queued").get<std::uint64_t>() +
                          jobs.at("unfinished_running").get<std::uint64_t>();
  if (rejected + failed + unfinished == 0) return "";
  const auto arrived = jobs.at("arrived").get<std::uint64_t>();
  const double share = arrived > 0 ? 100.0 * static_cast<double>(rejected + failed + unfinished) /
                                         static_cast<double>(arrived)
                                   : 0.0;
  return "warning: " + std::to_string(rejected + failed + unfinished) + " of " +
         std::to_string(arrived) + " arrived jobs (" + fixed(share, 1) +
         " %) are left out of the JCT, queueing-delay and slowdown percentiles: " +
         std::to_string(rejected) + " rejected, " + std::to_string(failed) + " failed, " +
         std::to_string(unfinished) +
         " unfinished (metrics.<distribution>.excluded in summary.json; jobs.csv has each)";
}

std::string services_override_note(const nlohmann::json& summary) {
  const auto at = nlohmann::json::json_pointer("/trace/services_default_overridden");
  if (!summary.contains(at) || !summary.at(at).is_object() || summary.at(at).empty()) return "";
  std::string fields;
  for (const auto& [field, n] : summary.at(at).items()) {
    fields += (fields.empty() ? "" : ", ") + field + " (" + std::to_string(n.get<std::uint64_t>()) +
              (n.get<std::uint64_t>() == 1 ? " service)" : " services)");
  }
  return "note: the trace's columns replaced services.default for " + fields +
         ": a trace column wins over services.default (services.by_id wins over both; "
         "summary.json trace.services_default_overridden)";
}

void print_summary_table(const Scenario& s, const RunReport& r, std::ostream& out) {
  const auto& m = r.summary["metrics"];
  const auto& sc = r.summary["scenario"];
  out << "gpumux " << GPUMUX_VERSION << "  scenario '" << terminal_text(s.name) << "' ("
      << terminal_text(s.file) << ")  seed "
      << s.seed << "\n";
  out << "cluster     " << s.gpu_count() << " GPUs on " << s.nodes.size() << " nodes (";
  for (std::size_t i = 0; i < s.devices.size(); ++i) out << (i ? ", " : "") << s.devices[i].name;
  out << ")\n";
  out << "sharing     " << sc["sharing"]["model"].get<std::string>() << "\n";
  for (const auto& p : sc["sharing"]["parameters"]) {
    out << "            " << parameter_text(p) << "\n";
  }
  out << "scheduler   " << sc["scheduler"]["queue"].get<std::string>() << " + "
      << sc["scheduler"]["placement"].get<std::string>() << "\n";
  const auto& tr = r.summary["trace"];
  if (s.trace.generated) {
    out << "trace       synthetic generator, " << tr["rows"] << " jobs\n";
  } else {
    out << "trace       " << s.trace.path << " (" << s.trace.format << "), " << tr["rows"]
        << " jobs, " << tr["skipped"] << " rows skipped";
    std::string reasons;
    for (const auto& [reason, n] : tr["skipped_by_reason"].items()) {
      reasons += (reasons.empty() ? "" : ", ") + reason + " " + n.dump();
    }
    out << (reasons.empty() ? "" : " (" + reasons + ")") << "\n";
    // Defaults the scenario chose, one per line; built-in ones on one line.
    std::string builtin;
    for (const auto& [field, use] : tr["defaults_used"].items()) {
      // Empty or whole by default: no effect.
      if (field == "mig_profile" || field == "tenant" || field == "gpu_milli") continue;
      if (use["source"] == "built-in default") {
        builtin += (builtin.empty() ? "" : ", ") + field + "=" + use["value"].dump();
        continue;
      }
      out << "  default   " << field << " ~ " << use["value"].dump() << " ("
          << use["source"].get<std::string>() << ", " << use["rows"] << " rows)\n";
    }
    if (!builtin.empty()) out << "  default   " << builtin << " (built-in, not in the trace)\n";
    // A service's duty cycle and SM share decide what its neighbours meet; when they came from
    // defaults, say what they mean for a service (docs/services.md "sm_util and sm_share").
    const auto& defaults_used = tr["defaults_used"];
    if (r.summary["metrics"].contains("requests") &&
        (defaults_used.contains("sm_util") || defaults_used.contains("sm_share"))) {
      out << "  note      services: sm_util is a service's duty cycle alone (request rate x "
             "service time), sm_share the SM share its kernels occupy (batch-1 inference "
             "kernels fill a fraction); both weigh what its neighbours meet "
             "(docs/services.md)\n";
    }
    // The advice is to inflate the list: a run that does already needs no note.
    if (tr.contains("list") && tr["list"].value("looks_like_snapshot", false) &&
        !tr.contains("inflation")) {
      out << "  note      " << tr["list"]["advice"].get<std::string>() << " ("
          << fixed_text(100.0 * tr["list"]["arrivals_in_last_10pct_of_span"].get<double>(), 1)
          << " % of arrivals in the last 10% of the span)\n";
    }
  }
  if (tr.contains("workloads")) print_workloads_line(tr["workloads"], out);
  if (tr.contains("filtered_out")) {
    const auto& f = tr["filtered_out"];
    std::string by;
    for (const auto& [criterion, n] : f["by_criterion"].items()) {
      by += (by.empty() ? "" : ", ") + criterion + " " + n.dump();
    }
    out << "  filter    " << f["jobs"] << " jobs filtered out by trace.filter (" << by << ")\n";
  }
  if (tr.contains("resample")) {
    const auto& drawn = tr["resample"];
    if (drawn["method"] == "bootstrap") {
      out << "  resample  bootstrap: " << drawn["list_jobs"] << " jobs drawn with replacement from "
          << drawn["list_jobs"] << " (" << drawn["distinct_jobs"] << " distinct)\n";
    } else {
      out << "  resample  arrival-order: " << drawn["list_jobs"]
          << " jobs shuffled over their submit times\n";
    }
  }
  if (tr.contains("inflation")) {
    out << "  inflation " << tr["inflation"]["arrivals"] << " arrivals re-sampled from "
        << tr["inflation"]["list_jobs"] << " jobs at load " << s.trace.inflation.load << "\n";
  }
  out << "\n";
  print_metric_lines(m, out);
  out << "\n";
  print_distributions(m, out);
  const auto& excluded = m["jct_s"]["excluded"];
  const auto left_out = excluded["rejected"].get<std::uint64_t>() +
                        excluded["failed"].get<std::uint64_t>() +
                        excluded["unfinished"].get<std::uint64_t>();
  out << "  (over " << m["jct_s"]["count"] << " finished jobs";
  // Services beside batch jobs are summarised apart (their JCT is their lifetime).
  if (excluded.contains("services")) {
    out << " other than services; the " << excluded["services"] << " finished services: 'by kind'";
  }
  if (left_out > 0) {
    out << "; LEFT OUT: " << excluded["rejected"] << " rejected, " << excluded["failed"]
        << " failed, " << excluded["unfinished"] << " unfinished";
  }
  out << ")\n";
  // A run of several kinds of job: each kind's own JCT (a service's is its lifetime, so its
  // start delay instead), since the pooled distributions above mix them.
  if (m.contains("by_kind") && m["by_kind"].is_object()) {
    std::string line;
    for (const auto& [kind, k] : m["by_kind"].items()) {
      const bool services = kind == "services";
      const auto& dist = services ? k["queueing_delay_s"] : k["jct_s"];
      line += (line.empty() ? "" : "; ") + kind + (services ? " start delay p95 " : " JCT p95 ") +
              fixed_or_na(dist["p95"], 1) + " s over " + k["finished"].dump() + " of " +
              k["arrived"].dump() + " finished";
    }
    out << "  by kind     " << line << "\n";
  }
  // Only when something queued: why the head of the queue waited, by queued job-seconds.
  if (const std::string queued_by = queued_by_reason_text(m); !queued_by.empty()) {
    out << "  queued by   " << queued_by << "\n";
  }
  if (!r.out_dir.empty()) {
    out << "\noutputs     " << r.out_dir << "/{summary.json";
    if (s.outputs.jobs_csv) out << ",jobs.csv";
    if (s.outputs.timeseries_csv) out << ",timeseries.csv";
    if (s.outputs.timeseries_csv && r.summary["metrics"].contains("slots"))
      out << ",slot_timeseries.csv";
    out << "}\n";
  }
}

}  // namespace gpumux
