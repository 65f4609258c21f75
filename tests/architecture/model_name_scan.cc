#include "tests/architecture/model_name_scan.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gpumux::architecture {

namespace {

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The length of a string-literal prefix (u8, u, U, L, each optionally followed by R) ending just
// before `quote`, or 0; `raw` says whether it ends in R.
std::size_t prefix_before(std::string_view s, std::size_t quote, bool& raw) {
  raw = false;
  for (std::string_view p : {"u8R", "uR", "UR", "LR", "R", "u8", "u", "U", "L"}) {
    if (quote < p.size()) continue;
    const std::size_t start = quote - p.size();
    if (s.substr(start, p.size()) != p) continue;
    if (start > 0 && is_identifier_char(s[start - 1])) continue;  // part of a longer name
    raw = p.back() == 'R';
    return p.size();
  }
  return 0;
}

}  // namespace

std::vector<Literal> string_literals(std::string_view s) {
  std::vector<Literal> out;
  int line = 1;
  std::size_t i = 0;
  auto advance_to = [&](std::size_t end) {
    line += static_cast<int>(std::count(s.begin() + static_cast<std::ptrdiff_t>(i),
                                        s.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
    i = end;
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      const std::size_t end = s.find('\n', i);
      advance_to(end == std::string_view::npos ? s.size() : end);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      advance_to(end == std::string_view::npos ? s.size() : end + 2);
    } else if (c == '\'') {
      // A character literal, or a digit separator (1'000) which the loop skips the same way:
      // both end at the next unescaped quote on the line or at the end of the number.
      if (i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1])) &&
          i + 1 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1]))) {
        ++i;  // a digit separator
        continue;
      }
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != '\'' && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      advance_to(std::min(j + 1, s.size()));
    } else if (c == '"') {
      bool raw = false;
      prefix_before(s, i, raw);
      const int start_line = line;
      if (raw) {
        const std::size_t open = s.find('(', i + 1);
        if (open == std::string_view::npos) break;
        const std::string close = ")" + std::string(s.substr(i + 1, open - i - 1)) + "\"";
        const std::size_t end = s.find(close, open + 1);
        const std::size_t stop = end == std::string_view::npos ? s.size() : end;
        out.push_back({std::string(s.substr(open + 1, stop - open - 1)), start_line});
        advance_to(std::min(stop + close.size(), s.size()));
      } else {
        std::size_t j = i + 1;
        while (j < s.size() && s[j] != '"' && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
        out.push_back({std::string(s.substr(i + 1, std::min(j, s.size()) - i - 1)), start_line});
        advance_to(std::min(j + 1, s.size()));
      }
    } else {
      if (c == '\n') ++line;
      ++i;
    }
  }
  return out;
}

std::vector<Allowance> read_allow_list(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file + ": cannot be read");
  std::vector<Allowance> out;
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    std::istringstream words(text);
    Allowance a;
    if (!(words >> a.path) || a.path.front() == '#') continue;
    words >> a.literal;
    std::getline(words, a.why);
    a.why.erase(0, a.why.find_first_not_of(' '));
    if (a.literal.empty() || a.why.empty()) {
      throw std::runtime_error(file + ":" + std::to_string(n) +
                               ": expected PATH LITERAL WHY (every allowance says why)");
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<Finding> scan_for_model_names(const std::string& root,
                                          const std::vector<std::string>& folders,
                                          const std::vector<std::string>& names,
                                          const std::vector<Allowance>& allowed) {
  namespace fs = std::filesystem;
  std::vector<Finding> out;
  for (const std::string& folder : folders) {
    const fs::path top = fs::path(root) / folder;
    if (!fs::exists(top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
      const std::string path = entry.path().lexically_relative(root).generic_string();
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      for (const Literal& l : string_literals(text.str())) {
        if (std::find(names.begin(), names.end(), l.text) == names.end()) continue;
        const bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const Allowance& a) {
          return path.rfind(a.path, 0) == 0 && (a.literal == "*" || a.literal == l.text);
        });
        if (!ok) out.push_back({path, l.line, l.text});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return a.path != b.path ? a.path < b.path : a.line < b.line;
  });
  return out;
}

}  // namespace gpumux::architecture
