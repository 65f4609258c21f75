// One CSV row built in a reusable character buffer, for outputs written a row per job
// (jobs.csv): a million-job run writes a million rows, and appending to a std::string a
// character at a time was a fifth of a 100,000-job pooled run's CPU. The texts are those of
// trace_writer.h's append_* functions (the same characters, by the same code).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "sim/base/units.h"

namespace gpumux {

// One value's characters written at `out`, which has room for kMaxValueChars; returns the end.
// Every text of a number or a time in jobs.csv and the native trace format comes from these.
inline constexpr std::size_t kMaxValueChars = 32;
char* write_integer(char* out, std::int64_t x);
char* write_unsigned(char* out, std::uint64_t x);
// Seconds from integer microseconds: 1.5 -> "1.5", 2 -> "2" (exact, trailing zeros dropped).
char* write_seconds(char* out, Time t);
// The shortest text that reads back as the same double; "nan" when to_chars cannot write it.
char* write_double(char* out, double x);
// Whether a CSV cell must be quoted: it holds a comma, a quote or a line break, or starts
// (after blanks) with '#', which would read back as a comment line.
bool csv_cell_needs_quotes(std::string_view text);

class RowText {
 public:
  // Starts a new row; the buffer keeps its capacity (no allocation once it fits a row).
  void clear() { size_ = 0; }
  std::string_view text() const { return {buffer_.data(), size_}; }

  void put(char c) {
    room(1);
    buffer_[size_++] = c;
  }
  void put(std::string_view s) {
    room(s.size());
    std::memcpy(buffer_.data() + size_, s.data(), s.size());
    size_ += s.size();
  }
  // A whole number in decimal.
  void put_integer(std::int64_t x) {
    room(kMaxValueChars);
    size_ = static_cast<std::size_t>(write_integer(buffer_.data() + size_, x) - buffer_.data());
  }
  void put_unsigned(std::uint64_t x) {
    room(kMaxValueChars);
    size_ = static_cast<std::size_t>(write_unsigned(buffer_.data() + size_, x) - buffer_.data());
  }
  void put_seconds(Time t) {
    room(kMaxValueChars);
    size_ = static_cast<std::size_t>(write_seconds(buffer_.data() + size_, t) - buffer_.data());
  }
  void put_double(double x) {
    room(kMaxValueChars);
    size_ = static_cast<std::size_t>(write_double(buffer_.data() + size_, x) - buffer_.data());
  }
  // A CSV cell, quoted when it holds a comma, quote or line break, or starts with '#'.
  void put_csv_cell(std::string_view text);

 private:
  void room(std::size_t bytes) {
    if (size_ + bytes > buffer_.size()) [[unlikely]]
      grow(bytes);
  }
  // Out of line, so that the puts stay small enough to be inlined.
  void grow(std::size_t bytes);

  std::vector<char> buffer_ = std::vector<char>(256);
  std::size_t size_ = 0;
};

}  // namespace gpumux
