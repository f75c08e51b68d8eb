// Families of interchangeable parts (collectives, merge policies, compressors, averaging
// schedules, trace importers) are declared once: a name, a one-line description and the keys the
// part reads, each with its type, unit, default and range. Parsing, validation, "did you mean",
// `sgdsim list`, the scenario JSON Schema and the README's reference tables all come from these
// declarations (SimGrid keeps one {name, description} table per model family in the same way).
// A registry is an immutable table built once; it holds no state of any simulation.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

// The JSON shape of a declared key.
enum class KeyType {
  number,         // a finite double within [minimum, maximum] (minimum exclusive if asked)
  integer,        // an integer within [minimum, maximum]
  text,           // any string
  choice,         // one of `choices`
  integer_pairs,  // a non-empty array of [integer, integer]
};

using KeyValue = std::variant<double, std::int64_t, std::string,
                              std::vector<std::pair<std::int64_t, std::int64_t>>>;

struct KeySpec {
  std::string name;  // carries its unit: "bucket_cap_mib", "fusion_cycle_ms"
  KeyType type = KeyType::number;
  std::string description;
  double minimum = 0.0;
  bool minimum_exclusive = false;  // numbers only: (minimum, maximum] instead of [minimum, ...]
  double maximum = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // choice only
  std::optional<KeyValue> fallback;  // the default; absent: required, or optional if !required
  bool required = true;              // ignored when there is a fallback

  // Constructors for the common shapes, so declarations read as one line each.
  static KeySpec positive(std::string name, std::string description,
                          std::optional<double> fallback = std::nullopt);
  static KeySpec non_negative(std::string name, std::string description,
                              std::optional<double> fallback = std::nullopt);
  static KeySpec fraction(std::string name, std::string description);  // (0, 1], required
  static KeySpec number_at_least(std::string name, std::string description, double minimum,
                                 double fallback);
  static KeySpec string(std::string name, std::string description);  // required
  static KeySpec integer(std::string name, std::string description, std::int64_t low,
                         std::int64_t high, std::optional<std::int64_t> fallback = std::nullopt);
  static KeySpec choice(std::string name, std::string description, std::vector<std::string> choices,
                        std::string fallback);
  // A choice that may be left out, with no default.
  static KeySpec optional_choice(std::string name, std::string description,
                                 std::vector<std::string> choices);
  // An optional array of [integer, integer]; `description` names the pair.
  static KeySpec integer_pairs(std::string name, std::string description);
  // Numbers: an upper bound, where a larger value could not be represented downstream.
  KeySpec& at_most(double bound) {
    maximum = bound;
    return *this;
  }
  KeySpec& optional() {
    required = false;
    return *this;
  }
  // "number > 0", "integer 1..1048576", "one of ll, ll128, simple", for help and tables.
  std::string shape() const;
  // The default as written in a scenario, or "required" / "optional".
  std::string default_text() const;
};

// Validated values of declared keys; every key with a default is present.
class Settings {
 public:
  // `given`: written by the user rather than filled in from the default.
  void set(std::string name, KeyValue value, bool given = true) {
    if (given) given_.insert(name);
    values_[std::move(name)] = std::move(value);
  }
  bool has(std::string_view name) const { return values_.find(name) != values_.end(); }
  bool given(std::string_view name) const { return given_.find(name) != given_.end(); }
  double number(std::string_view name) const;
  std::int64_t integer(std::string_view name) const;
  const std::string& text(std::string_view name) const;
  const std::vector<std::pair<std::int64_t, std::int64_t>>& pairs(std::string_view name) const;
  const std::map<std::string, KeyValue, std::less<>>& values() const { return values_; }

  // The defaults of `keys` (for code that builds parts without a scenario, such as tests).
  static Settings defaults(const std::vector<KeySpec>& keys);

 private:
  const KeyValue& at(std::string_view name) const;
  std::map<std::string, KeyValue, std::less<>> values_;
  std::set<std::string, std::less<>> given_;
};

// What every family member declares; families add their constructor.
struct Declaration {
  std::string name;
  std::string description;
  std::vector<KeySpec> keys;
  std::vector<std::string> aliases;  // other accepted names ("qsgd" for standard_dithering)
  std::string label;                 // as printed in tables and plots; empty: the name
  const std::string& display() const { return label.empty() ? name : label; }
};

// A bad value of a declared key found by a family member's own cross-key check: the key's path
// below the member's object ("breakpoints[1][0]"), what was expected, what was found.
struct KeyProblem {
  std::string key;
  std::string expected;
  std::string found;
};

// Edit distance (insertions, deletions, substitutions) for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// For "did you mean": the name among `names` closest to `word` within two edits (the first of
// equals), each name read from an element by `name_of`.
template <class Names, class NameOf = std::identity>
std::optional<std::string> closest_name(std::string_view word, const Names& names,
                                        NameOf name_of = {}) {
  std::optional<std::string> best;
  std::size_t best_distance = 3;
  for (const auto& element : names) {
    const std::string& name = name_of(element);
    if (const std::size_t distance = edit_distance(word, name); distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

template <class Entry>
class Registry {
 public:
  // `family` names one member in messages: "compressor", "merge policy".
  Registry(std::string family, std::vector<Entry> entries)
      : family_(std::move(family)), entries_(std::move(entries)) {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        SGDSIM_ASSERT(entries_[i].name != entries_[j].name, "a name registered twice");
      }
    }
  }

  const std::string& family() const { return family_; }
  const std::vector<Entry>& entries() const { return entries_; }

  // By name or alias; nullptr if unknown.
  const Entry* find(std::string_view name) const {
    for (const Entry& entry : entries_) {
      if (entry.name == name) return &entry;
      for (const std::string& alias : entry.aliases) {
        if (alias == name) return &entry;
      }
    }
    return nullptr;
  }
  const Entry& at(std::string_view name) const {
    const Entry* entry = find(name);
    SGDSIM_ASSERT(entry != nullptr, "a registry lookup of an unregistered name");
    return *entry;
  }

  // "one of "a", "b" (or "b2")" for messages, aliases in parentheses.
  std::string choices() const {
    std::string text = "one of ";
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      text += (i == 0 ? "\"" : ", \"") + entries_[i].name + "\"";
      for (const std::string& alias : entries_[i].aliases) text += " (or \"" + alias + "\")";
    }
    return text;
  }

  // The registered name closest to `name` within two edits, for "did you mean".
  std::optional<std::string> closest(std::string_view name) const {
    return closest_name(name, entries_,
                        [](const Entry& entry) -> const std::string& { return entry.name; });
  }

 private:
  std::string family_;
  std::vector<Entry> entries_;
};

}  // namespace sgdsim
