#include "traces/io/csv_reader.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>

#include "sim/base/input_error.h"

namespace gpumux {

bool CsvReader::next(std::vector<std::string>& fields) {
  while (true) {
    const std::uint64_t line = in_.line();
    if (!in_.next_line(buffer_)) return false;
    line_ = line;
    const auto first = buffer_.find_first_not_of(" \t");
    if (first == std::string::npos || buffer_[first] == '#') {
      ++skipped_;
      continue;
    }
    if (!split_csv_line(buffer_, fields)) {
      throw InputError(where(), "", "unterminated double quote");
    }
    return true;
  }
}

bool split_csv_line(std::string_view line, std::vector<std::string>& fields) {
  // The strings of the previous row are reused (cleared, their capacity kept): a reader calling
  // next() row after row does not allocate once its rows' cells have been seen.
  std::size_t count = 0;
  const auto next_field = [&]() -> std::string& {
    if (count == fields.size()) fields.emplace_back();
    std::string& field = fields[count++];
    field.clear();
    return field;
  };
  const std::size_t n = line.size();
  if (std::memchr(line.data(), '"', n) == nullptr) {
    // No quote anywhere (nearly every row of a real trace): cells end at commas.
    std::size_t i = 0;
    for (;;) {
      const void* comma = std::memchr(line.data() + i, ',', n - i);
      const std::size_t end =
          comma == nullptr
              ? n
              : static_cast<std::size_t>(static_cast<const char*>(comma) - line.data());
      next_field().assign(line.data() + i, end - i);
      if (comma == nullptr) break;
      i = end + 1;
    }
    fields.resize(count);
    return true;
  }
  std::string* current = &next_field();
  bool quoted = false;
  bool was_quoted = false;
  // Runs of ordinary characters are appended at once: a character at a time was most of the cost
  // of reading a 100,000-row trace.
  std::size_t i = 0;
  while (i < n) {
    if (quoted) {
      std::size_t q = i;
      while (q < n && line[q] != '"') ++q;
      current->append(line.data() + i, q - i);
      if (q == n) break;
      if (q + 1 < n && line[q + 1] == '"') {
        *current += '"';
        i = q + 2;
      } else {
        quoted = false;
        i = q + 1;
      }
      continue;
    }
    std::size_t end = i;
    while (end < n && line[end] != ',' && line[end] != '"') ++end;
    current->append(line.data() + i, end - i);
    if (end == n) break;
    if (line[end] == ',') {
      current = &next_field();
      was_quoted = false;
    } else if (current->empty() && !was_quoted) {
      quoted = was_quoted = true;  // an opening quote only at the start of a cell
    } else {
      *current += '"';
    }
    i = end + 1;
  }
  fields.resize(count);
  return !quoted;
}

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

namespace {

std::string range_text(double min, double max) {
  std::ostringstream o;
  o << "[" << min << ", " << max << "]";
  return o.str();
}

}  // namespace

double parse_number_cell(std::string_view text, const std::string& where, std::string_view field,
                         double min, double max) {
  const std::string_view t = trim_blanks(text);
  if (!t.empty() && t.size() <= 15) {
    // Whole numbers of up to 15 digits (most cells of real traces) are exact doubles: the
    // value from_chars would give, without its general parse.
    std::int64_t whole = 0;
    bool digits = true;
    for (char c : t) {
      if (c < '0' || c > '9') {
        digits = false;
        break;
      }
      whole = whole * 10 + (c - '0');
    }
    if (digits) {
      const double value = static_cast<double>(whole);
      if (value < min || value > max) {
        throw InputError(where, std::string(field),
                         "value " + std::string(t) + " is outside " + range_text(min, max));
      }
      return value;
    }
  }
  double value = 0.0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !std::isfinite(value)) {
    throw InputError(where, std::string(field),
                     "expected a number, got '" + std::string(text) + "'");
  }
  if (value < min || value > max) {
    throw InputError(where, std::string(field),
                     "value " + std::string(t) + " is outside " + range_text(min, max));
  }
  return value;
}

std::int64_t parse_int_cell(std::string_view text, const std::string& where, std::string_view field,
                            std::int64_t min, std::int64_t max) {
  const std::string_view t = trim_blanks(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) {
    throw InputError(where, std::string(field),
                     "expected an integer, got '" + std::string(text) + "'");
  }
  if (value < min || value > max) {
    throw InputError(where, std::string(field),
                     "value " + std::string(t) + " is outside [" + std::to_string(min) + ", " +
                         std::to_string(max) + "]");
  }
  return value;
}

}  // namespace gpumux
