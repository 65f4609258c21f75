// Text fit for a terminal: the control characters an input string may carry (ESC starting a
// colour or cursor sequence, a carriage return overwriting the line, a newline splitting a
// one-line error, DEL, and the C1 controls U+0080-U+009F) written as visible escapes ("\x1b",
// "\u009b"), the rest (tab, printable ASCII, other UTF-8) as it is. The counterpart of
// xml_text (analysis/output/xml_text.h) for what goes to stdout and stderr: every error line
// and every table cell that echoes a name read from input goes through it, so that a scenario,
// summary or trace cannot drive the user's terminal.
#pragma once

#include <string>
#include <string_view>

namespace gpumux {

inline std::string terminal_text(std::string_view text) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else if (c == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      const auto d = static_cast<unsigned char>(text[++i]);
      out += "\\u00";
      out += kHex[d >> 4];
      out += kHex[d & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace gpumux
