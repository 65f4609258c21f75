#include "sim/base/closest_names.h"

#include <algorithm>
#include <set>

namespace gpumux {

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

namespace {

// The words of a name: split at dots and underscores ("jct_s.p95" -> jct, s, p95).
std::set<std::string> words(const std::string& name) {
  std::set<std::string> out;
  std::string word;
  for (char c : name + ".") {
    if (c == '.' || c == '_') {
      if (word.size() > 1) out.insert(word);  // single letters ("s") match too much
      word.clear();
    } else {
      word += c;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> closest_names(const std::string& name,
                                       const std::vector<std::string>& known, std::size_t limit) {
  struct Candidate {
    std::size_t score;  // smaller is closer
    std::size_t order;
    const std::string* name;
  };
  const std::set<std::string> name_words = words(name);
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < known.size(); ++i) {
    const std::string& k = known[i];
    const std::size_t d = edit_distance(name, k);
    const std::size_t allowed = std::max<std::size_t>(2, std::max(name.size(), k.size()) / 3);
    std::size_t shared = 0;
    for (const auto& w : words(k)) shared += name_words.count(w);
    if (d > allowed && shared < std::min<std::size_t>(2, name_words.size())) continue;
    // Shared words weigh more than spelling: "jct.p95_s" is nearer "jct_s.p95" than "jct_s.p50".
    candidates.push_back(
        {d + 4 * (name_words.size() - std::min(shared, name_words.size())), i, &k});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
    return x.score != y.score ? x.score < y.score : x.order < y.order;
  });
  std::vector<std::string> out;
  for (const auto& c : candidates) {
    if (out.size() == limit) break;
    out.push_back(*c.name);
  }
  return out;
}

}  // namespace gpumux
