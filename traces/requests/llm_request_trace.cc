#include "traces/requests/llm_request_trace.h"

#include <cctype>
#include <string_view>

#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"

namespace gpumux {

namespace {

// Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool digits(std::string_view t, std::size_t at, std::size_t n, int& value) {
  if (at + n > t.size()) return false;
  value = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(t[i]))) return false;
    value = value * 10 + (t[i] - '0');
  }
  return true;
}

std::int32_t token_cell(std::string_view cell, const std::string& where, std::string_view field) {
  return static_cast<std::int32_t>(parse_int_cell(cell, where, field, 1, 100'000'000));
}

}  // namespace

bool parse_azure_timestamp(std::string_view t, double& seconds) {
  t = trim_blanks(t);
  int y, mo, d, h, mi, s;
  if (t.size() < 19 || !digits(t, 0, 4, y) || t[4] != '-' || !digits(t, 5, 2, mo) ||
      t[7] != '-' || !digits(t, 8, 2, d) || (t[10] != ' ' && t[10] != 'T') ||
      !digits(t, 11, 2, h) || t[13] != ':' || !digits(t, 14, 2, mi) || t[16] != ':' ||
      !digits(t, 17, 2, s)) {
    return false;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return false;
  double fraction = 0.0;
  if (t.size() > 19) {
    if (t[19] != '.' || t.size() == 20) return false;
    double scale = 0.1;
    for (std::size_t i = 20; i < t.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(t[i]))) return false;
      fraction += (t[i] - '0') * scale;
      scale /= 10.0;
    }
  }
  const std::int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  seconds = static_cast<double>(days * 86400 + h * 3600 + mi * 60 + s) + fraction;
  return true;
}

LlmRequestTrace read_llm_request_trace(const std::string& path) {
  CsvReader csv(path);
  std::vector<std::string_view> cells;
  LlmRequestTrace trace;
  if (!csv.next(cells)) {
    throw InputError(path, "", "empty request trace: expected a header 'arrival_s,prompt_tokens,"
                               "output_tokens' or 'TIMESTAMP,ContextTokens,GeneratedTokens'");
  }
  const auto header_is = [&](std::string_view a, std::string_view b, std::string_view c) {
    return cells.size() == 3 && trim_blanks(cells[0]) == a && trim_blanks(cells[1]) == b &&
           trim_blanks(cells[2]) == c;
  };
  std::string_view time_field, prompt_field, output_field;
  if (header_is("arrival_s", "prompt_tokens", "output_tokens")) {
    trace.format = "native";
    time_field = "arrival_s";
    prompt_field = "prompt_tokens";
    output_field = "output_tokens";
  } else if (header_is("TIMESTAMP", "ContextTokens", "GeneratedTokens")) {
    trace.format = "azure-llm";
    time_field = "TIMESTAMP";
    prompt_field = "ContextTokens";
    output_field = "GeneratedTokens";
  } else {
    throw InputError(csv.where(), "",
                     "unknown request-trace header: expected 'arrival_s,prompt_tokens,"
                     "output_tokens' (native) or 'TIMESTAMP,ContextTokens,GeneratedTokens' "
                     "(Azure LLM inference trace)");
  }
  const bool azure = trace.format == "azure-llm";
  double first = 0.0, previous = 0.0;
  while (csv.next(cells)) {
    const std::string where = csv.where();
    if (cells.size() != 3) {
      throw InputError(where, "", "expected 3 columns, got " + std::to_string(cells.size()));
    }
    double t = 0.0;
    if (azure) {
      if (!parse_azure_timestamp(cells[0], t)) {
        throw InputError(where, std::string(time_field),
                         "expected 'YYYY-MM-DD hh:mm:ss[.fraction]', got '" +
                             std::string(cells[0]) + "'");
      }
      if (trace.rows.empty()) first = t;
      t -= first;
    } else {
      t = parse_number_cell(cells[0], where, time_field, 0.0, 1e9);
    }
    if (!trace.rows.empty() && t < previous) {
      throw InputError(where, std::string(time_field),
                       "rows must be in arrival order: this one is before the previous row");
    }
    previous = t;
    LlmRequestRow row;
    row.arrival_s = t;
    row.prompt_tokens = token_cell(cells[1], where, prompt_field);
    row.output_tokens = token_cell(cells[2], where, output_field);
    trace.rows.push_back(row);
  }
  if (trace.rows.empty()) throw InputError(path, "", "request trace has a header but no rows");
  return trace;
}

std::vector<std::pair<std::int32_t, std::int32_t>> token_pairs(const LlmRequestTrace& trace) {
  std::vector<std::pair<std::int32_t, std::int32_t>> out;
  out.reserve(trace.rows.size());
  for (const LlmRequestRow& r : trace.rows) out.emplace_back(r.prompt_tokens, r.output_tokens);
  return out;
}

}  // namespace gpumux
