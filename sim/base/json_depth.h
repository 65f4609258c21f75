// The nesting bound of JSON inputs, for text that is not parsed by parse_json_text (e.g. an
// --set value, which falls back to a plain string when it is not JSON). Defined in
// json_fields.cc next to the strict parser that applies it to every input file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpumux {

// Throws InputError at "file:line:column" when `text` nests arrays and objects deeper than
// kMaxJsonDepth (sim/base/json_fields.h); brackets inside strings do not count.
void check_json_depth(std::string_view text, const std::string& file, std::size_t first_line = 1);

}  // namespace gpumux
