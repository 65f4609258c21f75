#include "analysis/report/plan_section.h"

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/output/xml_text.h"
#include "analysis/report/html_cells.h"
#include "analysis/report/plan_charts.h"
#include "analysis/report/svg_chart.h"

namespace gpumux {

namespace {

using html::chart;
using html::td;
using html::th;
using html::value_text;
using nlohmann::json;

std::string percent_text(const json* v) {
  if (v == nullptr || !v->is_number()) return value_text(v);
  return short_number(100.0 * v->get<double>()) + "%";
}

// The trace fields every answer rests on: those filled from defaults (plan.json
// defaulted_fields), with their value or distribution, source and rows.
void assumptions_list(std::ostringstream& page, const json& doc) {
  const json* fields = json_find(doc, "/defaulted_fields");
  if (fields == nullptr || !fields->is_object() || fields->empty()) return;
  page << "<p class=\"note\">Assumptions of every answer, trace fields filled from defaults:";
  bool first = true;
  for (const auto& [field, use] : fields->items()) {
    page << (first ? " " : "; ") << "<code>" << xml_text(field) << "</code> "
         << xml_text(value_text(json_find(use, "/value"))) << " ("
         << xml_text(value_text(json_find(use, "/source"))) << ", "
         << xml_text(value_text(json_find(use, "/rows"))) << " rows)";
    first = false;
  }
  page << ".</p>\n";
}

// The plan's sensitivity (analysis/plan/sensitivity.h): per varied field, each model's answer
// at the low end, as planned and at the high end; then the warnings.
void sensitivity_table(std::ostringstream& page, const json& doc) {
  const json* fields = json_find(doc, "/sensitivity/fields");
  if (fields == nullptr || !fields->is_array() || fields->empty()) return;
  page << "<h4>Sensitivity to the defaulted trace fields</h4>\n<table><tr><th>field</th>"
          "<th>value</th>";
  for (const auto& m : doc["models"]) page << th(value_text(json_find(m, "/model")));
  page << "</tr>\n";
  const auto nodes = [](const json* v) {
    return v && v->is_number() ? value_text(v) : std::string("not met");
  };
  for (const auto& f : *fields) {
    const std::string field = value_text(json_find(f, "/field"));
    const json* answers = json_find(f, "/answers");
    if (answers == nullptr || !answers->is_array()) continue;
    const std::pair<const char*, std::string> rows[] = {
        {"/low/nodes", value_text(json_find(f, "/low")) + " (low end)"},
        {"/nodes", "as planned"},
        {"/high/nodes", value_text(json_find(f, "/high")) + " (high end)"}};
    for (const auto& [pointer, label] : rows) {
      page << "<tr>" << td(field) << td(label);
      for (const auto& a : *answers) page << td(nodes(json_find(a, pointer)));
      page << "</tr>\n";
    }
  }
  page << "</table>\n<p class=\"note\">Nodes per model with the field's default held at each "
          "end of its range (rows that lack the field), the plan solved again at each.</p>\n";
  if (const json* warnings = json_find(doc, "/sensitivity/warnings");
      warnings && warnings->is_array()) {
    for (const auto& w : *warnings) {
      page << "<p class=\"note\">WARNING: " << xml_text(w.get<std::string>()) << "</p>\n";
    }
  }
}

// The plan of one plan folder: per model the answer, its saving and its metrics there, the
// size below it, and where each model's parameters came from.
void plan_table(std::ostringstream& page, std::vector<ReportFigure>& figures,
                const std::string& dir, const json& doc) {
  page << "<h3>" << xml_text(dir) << ": scenario '"
       << xml_text(value_text(json_find(doc, "/scenario"))) << "', seed "
       << xml_text(value_text(json_find(doc, "/seed")));
  if (const json* load = json_find(doc, "/load_factor");
      load && load->is_number() && load->get<double>() != 1.0) {
    page << ", load x" << xml_text(value_text(load));
  }
  page << "</h3>\n<p>Objectives:";
  if (const json* objectives = json_find(doc, "/objectives");
      objectives && objectives->is_array()) {
    for (const auto& o : *objectives) {
      page << " <code>" << xml_text(value_text(json_find(o, "/objective"))) << "</code>";
    }
  }
  page << ". Scheduler " << xml_text(value_text(json_find(doc, "/scheduler"))) << ", up to "
       << xml_text(value_text(json_find(doc, "/max_nodes"))) << " nodes, "
       << xml_text(value_text(json_find(doc, "/runs"))) << " runs.</p>\n";
  page << "<table><tr><th>model</th><th>nodes</th><th>GPUs</th><th>placement</th>"
          "<th>saving vs exclusive</th><th>GPU allocation</th><th>SM-busy</th><th>queue p95 "
          "(s)</th><th>JCT p95 (s)</th><th>GPU-hours</th><th>kills</th><th>one size below</th>"
          "<th>parameters from</th></tr>\n";
  for (const auto& m : doc["models"]) {
    page << "<tr>" << th(m["model"].get<std::string>());
    const json* met = json_find(m, "/met");
    if (met == nullptr || !met->is_boolean() || !met->get<bool>()) {
      page << "<td colspan=\"11\">not met within "
           << xml_text(value_text(json_find(doc, "/max_nodes"))) << " nodes (largest tried: "
           << xml_text(value_text(json_find(m, "/largest_tried/nodes"))) << " nodes, "
           << xml_text(value_text(json_find(m, "/largest_tried/gpus"))) << " GPUs)</td>";
    } else {
      std::string saving = "-";
      if (const json* g = json_find(m, "/saving_gpus"); g && g->is_number()) {
        saving =
            value_text(g) + " (" + short_number(json_find(m, "/saving_pct")->get<double>()) + "%)";
      }
      const json* below = json_find(m, "/one_below/nodes");
      page << td(value_text(json_find(m, "/nodes"))) << td(value_text(json_find(m, "/gpus")))
           << td(value_text(json_find(m, "/placement"))) << td(saving)
           << td(percent_text(json_find(m, "/at_answer/gpu_allocation_ratio")))
           << td(percent_text(json_find(m, "/at_answer/sm_busy_utilization")))
           << td(value_text(json_find(m, "/at_answer/queueing_delay_s/p95")))
           << td(value_text(json_find(m, "/at_answer/jct_s/p95")))
           << td(value_text(json_find(m, "/gpu_hours")))
           << td(value_text(json_find(m, "/at_answer/failures/jobs_killed")))
           << td(below && below->is_number() ? value_text(below) + " nodes fail"
                                             : "none (smallest size)");
    }
    page << td(value_text(json_find(m, "/params_source"))) << "</tr>\n";
  }
  page << "</table>\n<p class=\"note\">The smallest cluster (the scenario's node groups "
          "scaled together) meeting every objective, per sharing model; metrics at that size. "
          "Saving: GPUs fewer than exclusive's answer. GPU-hours: the cluster's GPUs x the "
          "makespan.</p>\n";
  const auto charts = plan_knee_charts(doc);
  if (!charts.empty()) {
    page << "<p class=\"note\">Each objective against cluster size, per model and placement "
            "(every size the search ran up to twice the largest answer; MIG searches stopped after "
            "one size by rejections no size cures are left out); the horizontal line is the "
            "objective's bound, a dot the model's answer.</p>\n";
    for (const auto& spec : charts) chart(page, figures, spec);
  }
  assumptions_list(page, doc);
  sensitivity_table(page, doc);
}

}  // namespace

void plan_section(std::ostringstream& page, std::vector<ReportFigure>& figures,
                  const PlanFolder& p) {
  if (!p.doc.contains("plans")) {
    plan_table(page, figures, p.dir, p.doc);
    return;
  }
  chart(page, figures, plan_load_chart(p.doc));
  for (const auto& plan : p.doc["plans"]) plan_table(page, figures, p.dir, plan);
}

}  // namespace gpumux
