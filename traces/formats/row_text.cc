#include "traces/formats/row_text.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace gpumux {

namespace {

// "00" to "99": two digits per division, as to_chars does, without its length loop.
constexpr char kDigitPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// How many decimal digits x has (1 for 0): numbers in jobs.csv mostly have a few.
int decimal_digits(std::uint64_t x) {
  int n = 1;
  for (std::uint64_t limit = 10; x >= limit; limit *= 10) {
    ++n;
    if (n == 20) break;  // 10^19 is the last power of ten below 2^64
  }
  return n;
}

// The decimal digits of x (to_chars' text), written from the end in place.
char* write_decimal(char* out, std::uint64_t x) {
  const int n = decimal_digits(x);
  char* p = out + n;
  while (x >= 100) {
    const auto pair = static_cast<std::size_t>(x % 100) * 2;
    x /= 100;
    p -= 2;
    p[0] = kDigitPairs[pair];
    p[1] = kDigitPairs[pair + 1];
  }
  if (x >= 10) {
    p[-2] = kDigitPairs[x * 2];
    p[-1] = kDigitPairs[x * 2 + 1];
  } else {
    p[-1] = static_cast<char>('0' + x);
  }
  return out + n;
}

}  // namespace

char* write_integer(char* out, std::int64_t x) {
  if (x < 0) {
    *out++ = '-';
    return write_decimal(out, static_cast<std::uint64_t>(-(x + 1)) + 1);
  }
  return write_decimal(out, static_cast<std::uint64_t>(x));
}

char* write_unsigned(char* out, std::uint64_t x) { return write_decimal(out, x); }

char* write_seconds(char* out, Time t) {
  const std::int64_t us = t.us();
  const bool negative = us < 0;
  const std::uint64_t a = negative ? static_cast<std::uint64_t>(-(us + 1)) + 1 : us;
  if (negative) *out++ = '-';
  out = write_decimal(out, a / 1000000);
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
    *out++ = '.';
    std::memcpy(out, digits, static_cast<std::size_t>(n));
    out += n;
  }
  return out;
}

char* write_double(char* out, double x) {
  // Small whole numbers (a utilization of 1, a slowdown of 2) are their integer's digits: the
  // shortest form, which to_chars finds by a far longer road. Past four digits the exponent form
  // can be shorter ("1e+05"), and -0 keeps its sign, so those take to_chars.
  if (x > -10000.0 && x < 10000.0 && x == static_cast<double>(static_cast<int>(x)) &&
      !(x == 0.0 && std::signbit(x))) {
    return write_integer(out, static_cast<int>(x));
  }
  const auto [end, ec] = std::to_chars(out, out + kMaxValueChars, x);
  if (ec == std::errc()) return end;
  std::memcpy(out, "nan", 3);
  return out + 3;
}

bool csv_cell_needs_quotes(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i < text.size() && text[i] == '#') return true;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ',' || c == '"' || c == '\n' || c == '\r') return true;
  }
  return false;
}

void RowText::grow(std::size_t bytes) { buffer_.resize(2 * (size_ + bytes)); }

void RowText::put_csv_cell(std::string_view text) {
  if (!csv_cell_needs_quotes(text)) {
    put(text);
    return;
  }
  room(2 * text.size() + 2);
  buffer_[size_++] = '"';
  for (char c : text) {
    if (c == '"') buffer_[size_++] = '"';
    buffer_[size_++] = c;
  }
  buffer_[size_++] = '"';
}

}  // namespace gpumux
