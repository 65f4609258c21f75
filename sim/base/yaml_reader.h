// Reading YAML documents (yaml-cpp) with every error an InputError at "file:line:column", the
// field and what was expected: the shared reader of the YAML inputs (mig-parted files,
// models/mig/mig_parted.h; device plugin configs, analysis/plan/device_plugin_config.h).
// Header-only: include it only from a target that links yaml-cpp.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <set>
#include <string>
#include <utility>

#include "sim/base/input_error.h"

namespace gpumux {

// "file:line:column" of a node (1-based), or the file when the node has no mark.
inline std::string yaml_where(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return file;
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// What a node is, for "expected X, got Y".
inline std::string yaml_describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
      return "null";
    case YAML::NodeType::Scalar:
      return "'" + n.Scalar() + "'";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Undefined:
      return "nothing";
  }
  return "?";
}

// Typed reads of one document's nodes. visit() bounds the nodes a walk may visit: yaml-cpp
// shares an aliased node, so a small file of aliases of aliases ("billion laughs") stands for
// exponentially many nodes; a reader that walks whole documents counts each node it visits.
class YamlReader {
 public:
  // `max_visited`: the most nodes visit() accepts; `what_is_normal` completes its error
  // ("a mig-parted file needs a few thousand").
  explicit YamlReader(std::string file, std::size_t max_visited = 0,
                      std::string what_is_normal = "")
      : file_(std::move(file)),
        max_visited_(max_visited),
        what_is_normal_(std::move(what_is_normal)) {}

  // Counts `n` as visited; throws InputError at it past max_visited.
  void visit(const YAML::Node& n, const std::string& field) const {
    if (++visited_ > max_visited_) {
      fail(n, field,
           "the file expands to more than " + std::to_string(max_visited_) +
               " nodes once its aliases are followed (aliases of aliases?); " + what_is_normal_);
    }
  }
  std::size_t visited() const { return visited_; }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field,
                         const std::string& what) const {
    throw InputError(yaml_where(file_, at.Mark()), field, what);
  }
  std::string where(const YAML::Node& at) const { return yaml_where(file_, at.Mark()); }

  // Records mapping key `key` (node `k`) in `seen`; throws InputError at `k` when it is already
  // there. yaml-cpp keeps both entries of a repeated key, so a reader that walks a mapping would
  // otherwise take both (or let the last one win) without a word.
  void unique_key(std::set<std::string>& seen, const YAML::Node& k, const std::string& key,
                  const std::string& field) const {
    if (!seen.insert(key).second) {
      fail(k, field, "'" + key + "' is given twice in one mapping; give it once");
    }
  }

  void expect_map(const YAML::Node& n, const std::string& field) const {
    if (!n.IsMap()) fail(n, field, "expected a mapping, got " + yaml_describe(n));
  }
  std::string scalar(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "expected a string, got " + yaml_describe(n));
    return n.Scalar();
  }
  bool boolean(const YAML::Node& n, const std::string& field) const {
    bool b = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b)) {
      fail(n, field, "expected true or false, got " + yaml_describe(n));
    }
    return b;
  }
  int integer(const YAML::Node& n, const std::string& field, int min, int max = 1'000'000) const {
    long long v = 0;
    if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v) || v < min || v > max) {
      fail(n, field,
           "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
               "], got " + yaml_describe(n));
    }
    return static_cast<int>(v);
  }

 private:
  std::string file_;
  std::size_t max_visited_;
  std::string what_is_normal_;
  mutable std::size_t visited_ = 0;
};

}  // namespace gpumux
