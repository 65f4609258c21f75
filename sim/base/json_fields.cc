#include "sim/base/json_fields.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/base/json_depth.h"

namespace gpumux {

namespace {

std::string escape_pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string describe_json(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(value.type_name()) + " " + text;
}

JsonObject::JsonObject(const nlohmann::json& value, std::string file, std::string pointer)
    : value_(value), file_(std::move(file)), pointer_(std::move(pointer)) {
  if (!value_.is_object()) {
    throw InputError(where(), "", "expected an object, got " + describe_json(value_));
  }
}

bool JsonObject::has(std::string_view key) const { return value_.contains(key); }

std::string JsonObject::pointer(std::string_view key) const {
  return pointer_ + "/" + escape_pointer_token(key);
}

std::string JsonObject::where(std::string_view key) const { return file_ + "#" + pointer(key); }

std::string JsonObject::where() const { return file_ + "#" + (pointer_.empty() ? "" : pointer_); }

const nlohmann::json& JsonObject::get(std::string_view key, bool required) {
  known_.insert(std::string(key));
  auto it = value_.find(key);
  if (it == value_.end()) {
    if (required) throw InputError(where(), std::string(key), "required key is missing");
    static const nlohmann::json kNull;
    return kNull;
  }
  return *it;
}

void JsonObject::fail(std::string_view key, const std::string& expected,
                      const nlohmann::json& got) const {
  throw InputError(where(key), std::string(key),
                   "expected " + expected + ", got " + describe_json(got));
}

std::string JsonObject::required_string(std::string_view key) {
  const auto& v = get(key, true);
  if (!v.is_string()) fail(key, "a string", v);
  return v.get<std::string>();
}

std::string JsonObject::optional_string(std::string_view key, std::string fallback) {
  if (!has(key)) {
    known_.insert(std::string(key));
    return fallback;
  }
  return required_string(key);
}

std::int64_t JsonObject::required_int(std::string_view key, std::int64_t min, std::int64_t max) {
  const auto& v = get(key, true);
  if (!v.is_number_integer()) fail(key, "an integer", v);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
    fail(key, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]", v);
  }
  const auto x = v.get<std::int64_t>();
  if (x < min || x > max) {
    fail(key, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]", v);
  }
  return x;
}

std::int64_t JsonObject::optional_int(std::string_view key, std::int64_t fallback, std::int64_t min,
                                      std::int64_t max) {
  if (!has(key)) {
    known_.insert(std::string(key));
    return fallback;
  }
  return required_int(key, min, max);
}

double JsonObject::required_number(std::string_view key, double min, double max) {
  const auto& v = get(key, true);
  if (!v.is_number()) fail(key, "a number", v);
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < min || x > max) {
    std::ostringstream range;
    range << "a number in [" << min << ", " << max << "]";
    fail(key, range.str(), v);
  }
  return x;
}

double JsonObject::optional_number(std::string_view key, double fallback, double min, double max) {
  if (!has(key)) {
    known_.insert(std::string(key));
    return fallback;
  }
  return required_number(key, min, max);
}

bool JsonObject::optional_bool(std::string_view key, bool fallback) {
  if (!has(key)) {
    known_.insert(std::string(key));
    return fallback;
  }
  const auto& v = get(key, true);
  if (!v.is_boolean()) fail(key, "true or false", v);
  return v.get<bool>();
}

const nlohmann::json& JsonObject::raw(std::string_view key) { return get(key, true); }

JsonObject JsonObject::object(std::string_view key) {
  return JsonObject(get(key, true), file_, pointer(key));
}

void JsonObject::finish() const {
  for (auto it = value_.begin(); it != value_.end(); ++it) {
    if (known_.count(it.key())) continue;
    std::string valid;
    for (const auto& k : known_) valid += (valid.empty() ? "" : ", ") + k;
    throw InputError(where(it.key()), it.key(), "unknown key (valid keys here: " + valid + ")");
  }
}

namespace {

// "file:line:column" of byte `byte` of `text`, whose first byte is on line `first_line`.
std::string text_position(std::string_view text, std::size_t byte, const std::string& file,
                          std::size_t first_line) {
  byte = std::min(byte, text.size());
  std::size_t line = first_line, column = 1;
  for (std::size_t i = 0; i < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

void check_json_depth(std::string_view text, const std::string& file, std::size_t first_line) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        throw InputError(text_position(text, i, file, first_line), "",
                         "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

namespace {

// Builds the document like nlohmann's own DOM parser, but rejects a key given twice in one
// object (nlohmann keeps the last silently, so a typo'd copy would override the real value) and
// turns every parser error, number overflow included, into an InputError.
class StrictDomBuilder {
 public:
  using json = nlohmann::json;

  StrictDomBuilder(std::string_view text, const std::string& file, std::size_t first_line,
                   std::string where_prefix)
      : text_(text), file_(file), first_line_(first_line), prefix_(std::move(where_prefix)) {}

  json take() { return std::move(root_); }

  bool null() { return add(json(nullptr)); }
  bool boolean(bool v) { return add(json(v)); }
  bool number_integer(json::number_integer_t v) { return add(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return add(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return add(json(v)); }
  bool string(json::string_t& v) { return add(json(std::move(v))); }
  bool binary(json::binary_t& v) { return add(json(std::move(v))); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& k) {
    if (stack_.back().value->contains(k)) {
      throw InputError(prefix_ + "#" + pointer() + "/" + escape_pointer_token(k), k,
                       "duplicate key (a key may appear once per object)");
    }
    key_ = std::move(k);
    return true;
  }

  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) {
    const std::string where =
        text_position(text_, position == 0 ? 0 : position - 1, file_, first_line_);
    if (e.id == 406) {  // out_of_range.406: a number beyond the range of a double
      throw InputError(where, key_, "number out of range (beyond +-1.8e308): " + token);
    }
    std::string what = e.what();
    const auto at = what.find("syntax error");
    if (at != std::string::npos) what = what.substr(at);
    throw InputError(where, "", "invalid JSON: " + what);
  }

 private:
  struct Open {
    json* value;
    std::string token;  // its JSON pointer token inside its parent
  };

  // Places `v` into the open container (or as the root); returns where it now lives.
  json* place(json&& v, std::string* token) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *stack_.back().value;
    if (parent.is_array()) {
      *token = std::to_string(parent.size());
      parent.push_back(std::move(v));
      return &parent.back();
    }
    *token = escape_pointer_token(key_);
    return &(parent[key_] = std::move(v));
  }
  bool add(json&& v) {
    std::string token;
    place(std::move(v), &token);
    return true;
  }
  bool open(json&& v) {
    std::string token;
    json* where = place(std::move(v), &token);
    stack_.push_back({where, std::move(token)});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  std::string pointer() const {
    std::string p;
    for (std::size_t i = 1; i < stack_.size(); ++i) p += "/" + stack_[i].token;
    return p;
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t first_line_;
  std::string prefix_;
  json root_;
  std::vector<Open> stack_;
  std::string key_;
};

nlohmann::json parse_strict(std::string_view text, const std::string& file, std::size_t first_line,
                            std::string where_prefix) {
  check_json_depth(text, file, first_line);
  StrictDomBuilder builder(text, file, first_line, std::move(where_prefix));
  nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
  return builder.take();
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& file,
                               std::size_t first_line) {
  return parse_strict(text, file, first_line, file);
}

nlohmann::json parse_json_line(std::string_view text, const std::string& file, std::size_t line) {
  return parse_strict(text, file, line, file + ":" + std::to_string(line));
}

nlohmann::json read_json_file(const std::string& path) {
  return parse_json_text(read_text_file(path), path);
}

std::string read_text_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) {
    throw InputError(path, "", "is a folder, expected " + what);
  }
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    // A device, pipe or socket (/dev/zero, /dev/stdin) may never end: refused before reading.
    throw InputError(path, "",
                     "is not a regular file (a device, pipe or socket), expected " + what);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path, "", what == "a file" ? "cannot open file" : "cannot read " + what);
  }
  const auto size = fs::file_size(path, ec);
  const auto too_large = [&] {
    return InputError(path, "",
                      "larger than " + std::to_string(kMaxTextFileBytes >> 20) +
                          " MiB, the most a JSON or YAML input may hold");
  };
  if (!ec && size > kMaxTextFileBytes) throw too_large();
  // Read in chunks with the bound checked as the text grows: a file that grows while it is read
  // still stops at the bound.
  std::string text;
  std::vector<char> chunk(std::size_t{1} << 16);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (text.size() + n > kMaxTextFileBytes) throw too_large();
    text.append(chunk.data(), n);
  }
  if (in.bad()) throw InputError(path, "", "cannot read file");
  return text;
}

}  // namespace gpumux
