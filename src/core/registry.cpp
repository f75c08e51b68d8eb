// Key declarations, validated settings and edit distance for the family registries.
#include "sgdsim/core/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace sgdsim {

namespace {

KeySpec declared(std::string name, KeyType type, std::string description) {
  KeySpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.description = std::move(description);
  return spec;
}

std::string number_text(double value) {
  return fmt::format("{:g}", value);
}

}  // namespace

KeySpec KeySpec::positive(std::string name, std::string description,
                          std::optional<double> fallback) {
  KeySpec spec = declared(std::move(name), KeyType::number, std::move(description));
  spec.minimum_exclusive = true;
  if (fallback) spec.fallback = *fallback;
  return spec;
}

KeySpec KeySpec::non_negative(std::string name, std::string description,
                              std::optional<double> fallback) {
  KeySpec spec = declared(std::move(name), KeyType::number, std::move(description));
  if (fallback) spec.fallback = *fallback;
  return spec;
}

KeySpec KeySpec::fraction(std::string name, std::string description) {
  KeySpec spec = positive(std::move(name), std::move(description));
  spec.maximum = 1.0;
  return spec;
}

KeySpec KeySpec::number_at_least(std::string name, std::string description, double minimum,
                                 double fallback) {
  KeySpec spec = declared(std::move(name), KeyType::number, std::move(description));
  spec.minimum = minimum;
  spec.fallback = fallback;
  return spec;
}

KeySpec KeySpec::string(std::string name, std::string description) {
  return declared(std::move(name), KeyType::text, std::move(description));
}

KeySpec KeySpec::integer(std::string name, std::string description, std::int64_t low,
                         std::int64_t high, std::optional<std::int64_t> fallback) {
  KeySpec spec = declared(std::move(name), KeyType::integer, std::move(description));
  spec.minimum = static_cast<double>(low);
  spec.maximum = static_cast<double>(high);
  if (fallback) spec.fallback = *fallback;
  return spec;
}

KeySpec KeySpec::choice(std::string name, std::string description, std::vector<std::string> choices,
                        std::string fallback) {
  KeySpec spec = declared(std::move(name), KeyType::choice, std::move(description));
  spec.choices = std::move(choices);
  spec.fallback = std::move(fallback);
  return spec;
}

KeySpec KeySpec::optional_choice(std::string name, std::string description,
                                 std::vector<std::string> choices) {
  KeySpec spec = declared(std::move(name), KeyType::choice, std::move(description));
  spec.choices = std::move(choices);
  spec.required = false;
  return spec;
}

KeySpec KeySpec::integer_pairs(std::string name, std::string description) {
  KeySpec spec = declared(std::move(name), KeyType::integer_pairs, std::move(description));
  spec.required = false;
  return spec;
}

std::string KeySpec::shape() const {
  switch (type) {
    case KeyType::number: {
      const bool bounded = std::isfinite(maximum);
      if (minimum_exclusive) {
        return bounded
                   ? fmt::format("number in ({}, {}]", number_text(minimum), number_text(maximum))
                   : fmt::format("number > {}", number_text(minimum));
      }
      return bounded ? fmt::format("number in [{}, {}]", number_text(minimum), number_text(maximum))
                     : fmt::format("number >= {}", number_text(minimum));
    }
    case KeyType::integer:
      return maximum >= 9223372036854775807.0
                 ? fmt::format("integer >= {}", static_cast<std::int64_t>(minimum))
                 : fmt::format("integer {}..{}", static_cast<std::int64_t>(minimum),
                               static_cast<std::int64_t>(maximum));
    case KeyType::text: return "string";
    case KeyType::choice: return fmt::format("one of {}", fmt::join(choices, ", "));
    case KeyType::integer_pairs: return "array of [integer, integer]";
  }
  return "?";
}

std::string KeySpec::default_text() const {
  if (!fallback) return required ? "required" : "optional";
  return std::visit(
      [](const auto& value) -> std::string {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, double>) return number_text(value);
        if constexpr (std::is_same_v<T, std::int64_t>) return std::to_string(value);
        if constexpr (std::is_same_v<T, std::string>) return "\"" + value + "\"";
        return "pairs";
      },
      *fallback);
}

const KeyValue& Settings::at(std::string_view name) const {
  const auto found = values_.find(name);
  SGDSIM_ASSERT(found != values_.end(), "a setting read without being declared or given");
  return found->second;
}

double Settings::number(std::string_view name) const {
  const KeyValue& value = at(name);
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return static_cast<double>(*integer);
  SGDSIM_ASSERT(std::holds_alternative<double>(value), "a setting read as a number");
  return std::get<double>(value);
}

std::int64_t Settings::integer(std::string_view name) const {
  const KeyValue& value = at(name);
  SGDSIM_ASSERT(std::holds_alternative<std::int64_t>(value), "a setting read as an integer");
  return std::get<std::int64_t>(value);
}

const std::string& Settings::text(std::string_view name) const {
  const KeyValue& value = at(name);
  SGDSIM_ASSERT(std::holds_alternative<std::string>(value), "a setting read as text");
  return std::get<std::string>(value);
}

const std::vector<std::pair<std::int64_t, std::int64_t>>& Settings::pairs(
    std::string_view name) const {
  const KeyValue& value = at(name);
  using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;
  SGDSIM_ASSERT(std::holds_alternative<Pairs>(value), "a setting read as integer pairs");
  return std::get<Pairs>(value);
}

Settings Settings::defaults(const std::vector<KeySpec>& keys) {
  Settings settings;
  for (const KeySpec& key : keys) {
    if (key.fallback) settings.set(key.name, *key.fallback, false);
  }
  return settings;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
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

}  // namespace sgdsim
