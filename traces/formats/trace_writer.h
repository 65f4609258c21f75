// Writes jobs in the native CSV trace format (all columns), losslessly: times as seconds with
// microsecond digits, fractions in shortest round-trip form, so reading the file back yields
// the same jobs.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "sim/core/job.h"

namespace gpumux {

void write_trace_header(std::ostream& out);
void write_trace_row(std::ostream& out, const JobSpec& job);

// Seconds from integer microseconds, e.g. 1.5 -> "1.5", 2 -> "2" (exact, no rounding).
std::string format_seconds(Time t);
// Shortest text that reads back as the same double.
std::string format_double(double x);
// Quotes a CSV cell when it holds a comma, quote or line break, or starts with '#'.
std::string csv_cell(const std::string& text);

// The same texts appended to `out`, for rows built in one reusable buffer (no allocation once
// the buffer has grown to a row's size).
void append_seconds(std::string& out, Time t);
void append_double(std::string& out, double x);
void append_csv_cell(std::string& out, std::string_view text);
// A whole number in decimal.
void append_integer(std::string& out, std::int64_t x);

}  // namespace gpumux
