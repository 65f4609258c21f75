#include "tests/architecture/name_scan.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gpumux::testing {

namespace {

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::vector<NameHit> scan_source(const std::string& s, const std::string& file,
                                 const std::set<std::string>& names) {
  std::vector<NameHit> hits;
  int line = 1;
  const std::size_t n = s.size();
  auto count_lines = [&](std::size_t from, std::size_t to) {
    line += static_cast<int>(std::count(s.begin() + static_cast<std::ptrdiff_t>(from),
                                        s.begin() + static_cast<std::ptrdiff_t>(to), '\n'));
  };
  std::size_t i = 0;
  while (i < n) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? n : end + 2;
      count_lines(i, stop);
      i = stop;
    } else if (c == '\'') {
      // A digit separator (1'000) or a character literal.
      if (i > 0 && hex_digit(s[i - 1]) && i + 1 < n && hex_digit(s[i + 1]) &&
          !(i + 2 < n && s[i + 2] == '\'')) {
        ++i;
        continue;
      }
      ++i;
      while (i < n && s[i] != '\'' && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
      ++i;
    } else if (c == 'R' && i + 1 < n && s[i + 1] == '"' &&
               (i == 0 || !identifier_char(s[i - 1]) || s[i - 1] == '8' || s[i - 1] == 'L' ||
                s[i - 1] == 'u' || s[i - 1] == 'U')) {
      const std::size_t open = s.find('(', i + 2);
      if (open == std::string::npos) break;
      const std::string close = ")" + s.substr(i + 2, open - (i + 2)) + "\"";
      const std::size_t end = s.find(close, open + 1);
      const std::size_t stop = end == std::string::npos ? n : end;
      const std::string content = s.substr(open + 1, stop - (open + 1));
      if (names.count(content)) hits.push_back({file, line, content});
      count_lines(i, std::min(n, stop + close.size()));
      i = std::min(n, stop + close.size());
    } else if (c == '"') {
      std::size_t j = i + 1;
      while (j < n && s[j] != '"' && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      const std::string content = s.substr(i + 1, std::min(j, n) - (i + 1));
      if (names.count(content)) hits.push_back({file, line, content});
      i = j + 1;
    } else if (identifier_char(c)) {
      // An identifier or number, up to an R that opens a raw string (u8R"(...)").
      ++i;
      while (i < n && identifier_char(s[i]) && !(s[i] == 'R' && i + 1 < n && s[i + 1] == '"')) {
        ++i;
      }
    } else {
      ++i;
    }
  }
  return hits;
}

std::vector<AllowedName> read_allow_list(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the allow-list " + path);
  std::vector<AllowedName> out;
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    if (text.find_first_not_of(" \t") == std::string::npos || text[0] == '#') continue;
    std::istringstream fields(text);
    AllowedName a;
    a.line = number;
    fields >> a.file >> a.name >> a.kind;
    std::getline(fields, a.reason);
    a.reason.erase(0, std::min(a.reason.find_first_not_of(" \t"), a.reason.size()));
    if (a.kind != "own" && a.kind != "data" && a.kind != "pending") {
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": expected FILE NAME own|data|pending REASON");
    }
    if (a.reason.empty()) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": say why it is allowed");
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<std::string> product_files(const std::string& root,
                                       const std::vector<std::string>& folders,
                                       const std::vector<std::string>& skip) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& folder : folders) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(root) / folder)) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      if (ext != ".h" && ext != ".cc") continue;
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      const bool skipped = std::any_of(skip.begin(), skip.end(), [&](const std::string& s) {
        return rel.rfind(s + "/", 0) == 0;
      });
      if (!skipped) out.push_back(rel);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gpumux::testing
