// The one exception type for bad input (trace rows, scenario files, command-line values).
//
// Its message always names where the problem is (file, and line or JSON pointer), which field,
// and what was expected, so that a user can fix the input without reading code. The command
// line maps it to exit code 2; any other exception is an internal error (exit code 1).
#pragma once

#include <stdexcept>
#include <string>

namespace gpumux {

class InputError : public std::runtime_error {
 public:
  // `where` is "file:line", "file:line:column" or "file#/json/pointer"; `field` may be empty
  // when the problem is not about one field (e.g. a missing file).
  InputError(const std::string& where, const std::string& field, const std::string& what)
      : std::runtime_error(format(where, field, what)),
        where_(where),
        field_(field),
        detail_(what) {}

  // The message's parts, for callers that show them apart (the Python package's InputError).
  const std::string& where() const { return where_; }
  const std::string& field() const { return field_; }
  const std::string& detail() const { return detail_; }

 private:
  static std::string format(const std::string& where, const std::string& field,
                            const std::string& what) {
    std::string m = where;
    if (!field.empty()) m += ": field '" + field + "'";
    m += ": " + what;
    return m;
  }

  std::string where_;
  std::string field_;
  std::string detail_;
};

}  // namespace gpumux
