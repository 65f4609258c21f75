#include "traces/formats/trace_writer.h"

#include <charconv>
#include <cstdlib>

#include "traces/fields/job_fields.h"

namespace gpumux {

void append_integer(std::string& out, std::int64_t x) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, end);
}

void append_seconds(std::string& out, Time t) {
  const std::int64_t us = t.us();
  const bool negative = us < 0;
  const std::uint64_t a = negative ? static_cast<std::uint64_t>(-(us + 1)) + 1 : us;
  if (negative) out += '-';
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, a / 1000000);
  out.append(buf, end);
  std::uint64_t frac = a % 1000000;
  if (frac != 0) {
    // Six digits with leading zeros, trailing zeros dropped.
    char digits[6];
    for (int i = 5; i >= 0; --i) {
      digits[i] = static_cast<char>('0' + frac % 10);
      frac /= 10;
    }
    int n = 6;
    while (digits[n - 1] == '0') --n;
    out += '.';
    out.append(digits, static_cast<std::size_t>(n));
  }
}

void append_double(std::string& out, double x) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  if (ec == std::errc()) {
    out.append(buf, end);
  } else {
    out += "nan";
  }
}

void append_csv_cell(std::string& out, std::string_view text) {
  // A cell that starts a line with '#' (after blanks) would read back as a comment line.
  const auto first = text.find_first_not_of(" \t");
  const bool looks_like_comment = first != std::string_view::npos && text[first] == '#';
  if (!looks_like_comment && text.find_first_of(",\"\n\r") == std::string_view::npos) {
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
