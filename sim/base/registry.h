// One family's table of named entries (sharing models, placement and queue policies, trace
// formats, output collectors, commands), each family's in the file registry.cc of its folder.
// The table owns its entries in listing order and answers the questions every family asks of
// it: the entry of a name, the names, the unknown-name error and the help lines.
//
// `Info` is the family's entry: any struct with `name` and `summary` (std::string or
// std::string_view) plus what the family needs (a factory, declared parameters, flags). An
// entry whose name is a pattern (metric names with `*`) has `bool matches(std::string_view)
// const`, and is found by it.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/base/closest_names.h"
#include "sim/base/input_error.h"

namespace gpumux {

template <typename Info>
class Registry {
 public:
  // `family` names an entry in messages: "sharing model", "queue policy".
  Registry(std::string_view family, std::vector<Info> entries)
      : family_(family), entries_(std::move(entries)) {}

  // Appends `info` (a table that grows at run time: the placement policies the Python package
  // registers). Entries never move: the table must have been given room (reserve) for it, since
  // callers keep pointers to entries. Throws std::invalid_argument for a name already taken and
  // std::length_error when the room is used up.
  void add(Info info) {
    if (find(info.name) != nullptr) {
      throw std::invalid_argument(family_ + " '" + std::string(info.name) + "' already exists");
    }
    if (entries_.size() == entries_.capacity()) {
      throw std::length_error("no room for another " + family_ + " (at most " +
                              std::to_string(entries_.capacity()) + ")");
    }
    entries_.push_back(std::move(info));
  }
  // Room for `extra` entries added later by add().
  void reserve_extra(std::size_t extra) { entries_.reserve(entries_.size() + extra); }

  // The entries in listing order.
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  const std::vector<Info>& entries() const { return entries_; }
  std::string_view family() const { return family_; }

  // The entry named `name` (exactly: names are case-sensitive; or the first whose pattern
  // matches it), or nullptr.
  const Info* find(std::string_view name) const {
    for (const Info& info : entries_) {
      if constexpr (requires { info.matches(name); }) {
        if (info.matches(name)) return &info;
      } else {
        if (std::string_view(info.name) == name) return &info;
      }
    }
    return nullptr;
  }

  // Every name, in listing order.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const Info& info : entries_) out.emplace_back(info.name);
    return out;
  }

  // "a, b, c": every name, for the "valid: ..." list of a message.
  std::string names_text() const { return join_names(names()); }

  // "unknown FAMILY 'NAME' (valid: a, b, c[; NOTE])", then " (did you mean 'b'?)" when a known
  // name is close to it.
  std::string unknown_message(std::string_view name, std::string_view note = {}) const {
    std::string text = "unknown " + family_ + " '" + std::string(name) +
                       "' (valid: " + names_text() +
                       (note.empty() ? "" : "; " + std::string(note)) + ")";
    const auto near = closest_names(std::string(name), names(), 1);
    if (!near.empty()) text += " (did you mean '" + near[0] + "'?)";
    return text;
  }

  // The entry named `name`; InputError at `where`, field `field`, with unknown_message() when
  // there is none.
  const Info& get(std::string_view name, const std::string& where, const std::string& field) const {
    if (const Info* info = find(name)) return *info;
    throw InputError(where, field, unknown_message(name));
  }

  // "  NAME  SUMMARY\n" for each entry: the family's lines of `gpumux models` and --help.
  std::string help_text() const {
    std::string out;
    for (const Info& info : entries_) {
      out += "  " + std::string(info.name) + "  " + std::string(info.summary) + "\n";
    }
    return out;
  }

 private:
  std::string family_;
  std::vector<Info> entries_;
};

}  // namespace gpumux
