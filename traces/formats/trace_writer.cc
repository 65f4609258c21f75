#include "traces/formats/trace_writer.h"

#include <charconv>
#include <cstdlib>

#include "traces/fields/job_fields.h"
#include "traces/formats/row_text.h"

namespace gpumux {

void append_integer(std::string& out, std::int64_t x) {
  char buf[kMaxValueChars];
  out.append(buf, write_integer(buf, x));
}

void append_seconds(std::string& out, Time t) {
  char buf[kMaxValueChars];
  out.append(buf, write_seconds(buf, t));
}

void append_double(std::string& out, double x) {
  char buf[kMaxValueChars];
  out.append(buf, write_double(buf, x));
}

void append_csv_cell(std::string& out, std::string_view text) {
  if (!csv_cell_needs_quotes(text)) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string format_seconds(Time t) {
  std::string out;
  append_seconds(out, t);
  return out;
}

std::string format_double(double x) {
  std::string out;
  append_double(out, x);
  return out;
}

std::string csv_cell(const std::string& text) {
  std::string out;
  append_csv_cell(out, text);
  return out;
}

void write_trace_header(std::ostream& out) {
  bool first = true;
  for (const auto& f : job_fields()) {
    out << (first ? "" : ",") << f.name;
    first = false;
  }
  out << '\n';
}

void write_trace_row(std::ostream& out, const JobSpec& j) {
  out << csv_cell(j.id) << ',' << format_seconds(j.submit) << ',' << j.gpus << ','
      << format_seconds(j.runtime) << ',' << format_double(j.sm_util) << ','
      << format_double(j.sm_share) << ',' << j.memory.mib() << ',' << job_kind_name(j.kind) << ','
      << csv_cell(j.mig_profile) << ',' << csv_cell(j.tenant) << ',' << j.priority << ','
      << j.kernel_length.us() << ',' << format_seconds(j.checkpoint_interval) << ','
      << j.memory_limit.mib() << ',' << format_double(j.cpus) << ',' << j.gpu_milli << ','
      << format_double(j.mem_bw_util) << '\n';
}

}  // namespace gpumux
