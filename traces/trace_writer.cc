#include "traces/trace_writer.h"

#include <charconv>
#include <cstdlib>

#include "traces/job_fields.h"

namespace gpumux {

std::string format_seconds(Time t) {
  const std::int64_t us = t.us();
  const bool negative = us < 0;
  const std::uint64_t a = negative ? static_cast<std::uint64_t>(-(us + 1)) + 1 : us;
  std::string out = (negative ? "-" : "") + std::to_string(a / 1000000);
  std::uint64_t frac = a % 1000000;
  if (frac != 0) {
    std::string digits = std::to_string(frac);
    digits.insert(0, 6 - digits.size(), '0');
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

std::string format_double(double x) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

std::string csv_cell(const std::string& text) {
  // A cell that starts a line with '#' (after blanks) would read back as a comment line.
  const auto first = text.find_first_not_of(" \t");
  const bool looks_like_comment = first != std::string::npos && text[first] == '#';
  if (!looks_like_comment && text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
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
      << j.memory_limit.mib() << ',' << format_double(j.cpus) << ',' << j.gpu_milli << '\n';
}

}  // namespace gpumux
