// Names in messages: the list of valid names ("a, b, c"), and suggestions for a mistyped name
// (a metric, a subcommand): the known names closest to it.
#pragma once

#include <string>
#include <vector>

namespace gpumux {

// "a, b, c": the names in their order, comma-separated (an error's "valid: ..." list).
std::string join_names(const std::vector<std::string>& names);

// Levenshtein distance (insertions, deletions and substitutions each cost 1), on bytes.
std::size_t edit_distance(const std::string& a, const std::string& b);

// Up to `limit` names of `known`, closest first (ties keep `known`'s order), that are plausibly
// what `name` meant: within a third of the longer name's length in edits (at least 2), or
// sharing a dotted segment with it ("jct.p95_s" finds "jct_s.p95" by its "p95"). May be empty.
std::vector<std::string> closest_names(const std::string& name,
                                       const std::vector<std::string>& known,
                                       std::size_t limit = 3);

}  // namespace gpumux
