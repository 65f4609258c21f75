#include "sim/json_fields.h"

#include <cmath>
#include <fstream>
#include <sstream>

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

nlohmann::json parse_json_text(std::string_view text, const std::string& file,
                               std::size_t first_line) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // Turn the byte offset into line:column for the user.
    const std::size_t byte = e.byte == 0 ? 0 : std::min<std::size_t>(e.byte - 1, text.size());
    std::size_t line = first_line, column = 1;
    for (std::size_t i = 0; i < byte; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    const auto colon = what.find("syntax error");
    if (colon != std::string::npos) what = what.substr(colon);
    throw InputError(file + ":" + std::to_string(line) + ":" + std::to_string(column), "",
                     "invalid JSON: " + what);
  }
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_json_text(buffer.str(), path);
}

}  // namespace gpumux
