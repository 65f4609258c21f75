// The check that no product code outside a sharing model's own folder chooses behaviour by the
// model's name: what such code needs to know is a capability in the model's table row
// (models/sharing_capabilities.h). The scan reads C++ source as text, takes every string literal
// (comments and character literals skipped, raw strings and escapes understood) and reports each
// one equal to a registered model name, unless the file is the model's home or the allow-list
// names the file (or a folder above it) and the literal with a reason (a data value, such as the
// measured `mode` column of the probe's CSV files).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpumux::architecture {

// One string literal of a source text: its text (escapes kept as written) and its 1-based line.
struct Literal {
  std::string text;
  int line = 0;
};

// Every ordinary, prefixed (u8, u, U, L) and raw string literal of `source`, in order. Text in
// comments and character literals is not a literal.
std::vector<Literal> string_literals(std::string_view source);

// Where a literal equal to a model name is allowed: in files whose path (relative to the source
// root, '/' separated) starts with `path`, for the literal `literal` ("*": any model name).
struct Allowance {
  std::string path;
  std::string literal;
  std::string why;  // never empty
};

// The allow-list file: one allowance a line, `PATH LITERAL WHY...` separated by blanks; '#'
// starts a comment line. Throws std::runtime_error naming the file and line for a line without
// a reason.
std::vector<Allowance> read_allow_list(const std::string& file);

struct Finding {
  std::string path;  // relative to the scanned root
  int line = 0;
  std::string literal;
};

// Scans every .h and .cc file under `root`/`folder` for each of `folders`, and reports each
// literal equal to one of `names` not allowed by `allowed`. Sorted by path, then line.
std::vector<Finding> scan_for_model_names(const std::string& root,
                                          const std::vector<std::string>& folders,
                                          const std::vector<std::string>& names,
                                          const std::vector<Allowance>& allowed);

}  // namespace gpumux::architecture
