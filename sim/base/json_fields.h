// Strict reading of JSON objects from input files, with errors that name the place.
//
// Every value is read through a JsonObject, which knows the file and the JSON pointer of the
// object; a wrong type, a missing required key or a value out of range throws InputError with
// "file#/json/pointer", the field and what was expected. finish() rejects keys nobody asked
// for, listing the valid ones, so a typo in a scenario never passes silently.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/input_error.h"

namespace gpumux {

class JsonObject {
 public:
  // Throws InputError unless `value` is an object.
  JsonObject(const nlohmann::json& value, std::string file, std::string pointer);

  bool has(std::string_view key) const;
  // The place of `key` inside this object, e.g. "a.json#/cluster/seed".
  std::string where(std::string_view key) const;
  std::string where() const;
  const std::string& file() const { return file_; }
  std::string pointer(std::string_view key) const;

  std::string required_string(std::string_view key);
  std::string optional_string(std::string_view key, std::string fallback);
  std::int64_t required_int(std::string_view key, std::int64_t min, std::int64_t max);
  std::int64_t optional_int(std::string_view key, std::int64_t fallback, std::int64_t min,
                            std::int64_t max);
  double required_number(std::string_view key, double min, double max);
  double optional_number(std::string_view key, double fallback, double min, double max);
  bool optional_bool(std::string_view key, bool fallback);
  // The raw value of a key the caller interprets itself (it counts as known). Precondition: has().
  const nlohmann::json& raw(std::string_view key);
  JsonObject object(std::string_view key);
  // Marks a key as valid without reading it (e.g. a documentation field).
  void allow(std::string_view key) { known_.insert(std::string(key)); }

  // Throws InputError naming the first key that no read asked for.
  void finish() const;

 private:
  const nlohmann::json& get(std::string_view key, bool required);
  [[noreturn]] void fail(std::string_view key, const std::string& expected,
                         const nlohmann::json& got) const;

  const nlohmann::json& value_;
  std::string file_;
  std::string pointer_;
  std::set<std::string, std::less<>> known_;
};

// The deepest nesting of arrays and objects any JSON input may have. Real inputs nest a few
// levels; the bound keeps a hostile file from exhausting the stack of the parser or printer.
inline constexpr int kMaxJsonDepth = 128;

// Parses a JSON document strictly: syntax errors, numbers beyond the range of a double and
// nesting deeper than kMaxJsonDepth are InputError with "file:line:column"; a key given twice in
// one object is an InputError with "file#/json/pointer". `first_line` is the file line the text
// starts on.
nlohmann::json parse_json_text(std::string_view text, const std::string& file,
                               std::size_t first_line = 1);
// The same for one line of a JSON Lines file: a duplicate key is named "file:line#/pointer".
nlohmann::json parse_json_line(std::string_view text, const std::string& file, std::size_t line);
// Reads and parses a file; a missing or unreadable file or a folder is an InputError naming it.
nlohmann::json read_json_file(const std::string& path);
// The largest file read_text_file reads, bytes: far above any real JSON or YAML input (the
// largest shipped is ~0.1 MiB), and a bound on memory for a hostile one.
inline constexpr std::uintmax_t kMaxTextFileBytes = std::uintmax_t{256} << 20;

// A whole file as text, the one reader of every JSON and YAML input file. A missing or
// unreadable file, a folder, a file that is not a regular file (/dev/zero, a pipe) and a file
// larger than kMaxTextFileBytes are an InputError naming it; `what` is what the file should be,
// for the messages ("a file", "the mig-parted file (a YAML file)").
std::string read_text_file(const std::string& path, const std::string& what = "a file");

// A short description of a JSON value for error messages, e.g. `string "abc"`.
std::string describe_json(const nlohmann::json& value);

}  // namespace gpumux
