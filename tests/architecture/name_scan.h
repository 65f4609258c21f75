// Finds string literals equal to given names in C++ source text: the check that no product code
// outside a model's own folder chooses behaviour by spelling a sharing model's name. Comments
// are skipped; a raw string counts only when its whole content is a name (a JSON document
// naming a model is data, not a test of a name).
#pragma once

#include <set>
#include <string>
#include <vector>

namespace gpumux::testing {

struct NameHit {
  std::string file;  // relative to the scanned root
  int line = 0;
  std::string name;
};

// The literals of `source` (C++ text) equal to one of `names`, in order.
std::vector<NameHit> scan_source(const std::string& source, const std::string& file,
                                 const std::set<std::string>& names);

// One allowed (file, name) pair of the allow-list. `kind` is "own" (the model's own code or its
// table entry), "data" (the name is a value of a file format, a measurement or another
// program's vocabulary, not a choice of behaviour) or "pending" (a test of the name that is to
// become a capability of the model's table entry).
struct AllowedName {
  std::string file;
  std::string name;
  std::string kind;
  std::string reason;
  int line = 0;  // in the allow-list
};

// Reads the allow-list: one "FILE NAME KIND REASON..." per line; '#' starts a comment line.
// Throws std::runtime_error naming the line for a malformed one.
std::vector<AllowedName> read_allow_list(const std::string& path);

// Every .h and .cc file under `root`'s product folders (`folders`), relative to `root` with '/'
// separators, sorted; files under any of `skip` (relative folders) are left out.
std::vector<std::string> product_files(const std::string& root,
                                       const std::vector<std::string>& folders,
                                       const std::vector<std::string>& skip);

}  // namespace gpumux::testing
