#include "scenarios/override_source.h"

namespace gpumux {

namespace {

// Whether `pointer` is `base` or inside it ("/a/b" is inside "/a", "/ab" is not).
bool at_or_inside(const std::string& pointer, const std::string& base) {
  return pointer.compare(0, base.size(), base) == 0 &&
         (pointer.size() == base.size() || pointer[base.size()] == '/');
}

}  // namespace

std::string override_pointer(const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  std::string pointer;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto dot = path.find('.', start);
    pointer += "/" + path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return pointer;
}

InputError with_override_source(const InputError& error, const std::string& file,
                                const std::vector<std::string>& sets) {
  // InputError's text is "WHERE[: field 'F']: WHAT"; only a pointer into `file` can be a value
  // an override set.
  const std::string text = error.what();
  const std::string prefix = file + "#";
  if (sets.empty() || text.compare(0, prefix.size(), prefix) != 0) return error;
  const std::size_t end = text.find(": ", prefix.size());
  if (end == std::string::npos) return error;
  const std::string pointer = text.substr(prefix.size(), end - prefix.size());
  std::string field_pointer;  // the pointer with the field the error names, if any
  const std::string field_mark = ": field '";
  if (text.compare(end, field_mark.size(), field_mark) == 0) {
    const std::size_t close = text.find('\'', end + field_mark.size());
    if (close != std::string::npos) {
      field_pointer =
          pointer + "/" + text.substr(end + field_mark.size(), close - end - field_mark.size());
    }
  }
  for (auto it = sets.rbegin(); it != sets.rend(); ++it) {
    const std::size_t eq = it->find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string set = override_pointer(it->substr(0, eq));
    if (at_or_inside(pointer, set) || (!field_pointer.empty() && field_pointer == set)) {
      return InputError(prefix + pointer + " (from --set " + *it + ")", error.field(),
                        error.detail());
    }
  }
  return error;
}

}  // namespace gpumux
