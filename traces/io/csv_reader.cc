#include "traces/io/csv_reader.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/base/input_error.h"

namespace gpumux {

bool CsvReader::next_row_text(std::string_view& text) {
  while (true) {
    const std::uint64_t line = in_.line();
    if (!in_.next_line(text)) return false;
    line_ = line;
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos || text[first] == '#') {
      ++skipped_;
      continue;
    }
    return true;
  }
}

bool CsvReader::next(std::vector<std::string>& fields) {
  std::string_view text;
  if (!next_row_text(text)) return false;
  if (!split_csv_line(text, fields)) throw InputError(where(), "", "unterminated double quote");
  return true;
}

bool CsvReader::next(std::vector<std::string_view>& cells) {
  std::string_view text;
  if (!next_row_text(text)) return false;
  if (!split_csv_line(text, cells, unquoted_)) {
    throw InputError(where(), "", "unterminated double quote");
  }
  return true;
}

namespace {

// Splits a line at commas into `cells` when it has no quote; false (cells unspecified) when it
// has one. 16 bytes at a time where the platform has SSE2: a mask of the commas and quotes of
// each block, the cells read off its bits (memchr per cell was most of the split's time on
// rows of short cells).
bool split_unquoted(std::string_view line, std::vector<std::string_view>& cells) {
  const char* const data = line.data();
  const std::size_t n = line.size();
  std::size_t cell_start = 0;
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i comma = _mm_set1_epi8(',');
  const __m128i quote = _mm_set1_epi8('"');
  for (; i + 16 <= n; i += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(block, quote)) != 0) return false;
    auto commas = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, comma)));
    while (commas != 0) {
      const std::size_t at = i + static_cast<std::size_t>(__builtin_ctz(commas));
      cells.emplace_back(data + cell_start, at - cell_start);
      cell_start = at + 1;
      commas &= commas - 1;
    }
  }
#endif
  for (; i < n; ++i) {
    const char c = data[i];
    if (c == '"') return false;
    if (c == ',') {
      cells.emplace_back(data + cell_start, i - cell_start);
      cell_start = i + 1;
    }
  }
  cells.emplace_back(data + cell_start, n - cell_start);
  return true;
}

}  // namespace

bool split_csv_line(std::string_view line, std::vector<std::string_view>& cells,
                    std::vector<std::string>& unquoted) {
  cells.clear();
  // No quote anywhere (nearly every row of a real trace): cells are the runs between commas.
  if (split_unquoted(line, cells)) return true;
  cells.clear();
  if (!split_csv_line(line, unquoted)) return false;
  for (const std::string& cell : unquoted) cells.emplace_back(cell);
  return true;
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

bool read_plain_number(std::string_view text, double min, double max, double& value) {
  const std::string_view t = trim_blanks(text);
  // Digits with at most one '.' between digits. The integer m of its (at most 15) digits and
  // 10^k for its k <= 15 decimals are exact doubles, so m / 10^k, one correctly rounded
  // division, is the correctly rounded value of the text: the double from_chars gives
  // (Clinger's fast path).
  static constexpr double kPow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const std::size_t n = t.size();
  if (n == 0 || n > 16) return false;
  std::uint64_t whole = 0;
  std::size_t i = 0;
  for (; i < n; ++i) {
    const auto d = static_cast<unsigned>(t[i] - '0');
    if (d > 9) break;
    whole = whole * 10 + d;
  }
  if (i == n) {  // a whole number
    if (n > 15) return false;
    const auto v = static_cast<double>(whole);
    if (v < min || v > max) return false;
    value = v;
    return true;
  }
  // A '.' between digits, then only digits: n - 1 digits in all, n - i - 1 after the point.
  if (i == 0 || t[i] != '.' || i + 1 == n || n - 1 > 15) return false;
  for (std::size_t j = i + 1; j < n; ++j) {
    const auto d = static_cast<unsigned>(t[j] - '0');
    if (d > 9) return false;
    whole = whole * 10 + d;
  }
  const double v = static_cast<double>(whole) / kPow10[n - i - 1];
  if (v < min || v > max) return false;
  value = v;
  return true;
}

double parse_number_cell(std::string_view text, const std::string& where, std::string_view field,
                         double min, double max) {
  double value = 0.0;
  if (read_plain_number(text, min, max, value)) return value;
  const std::string_view t = trim_blanks(text);
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
