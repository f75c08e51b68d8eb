// Declared keys -> validated settings, and -> JSON Schema.
#include "sgdsim/jsonio/declared_keys.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <limits>

namespace sgdsim::jsonio {

namespace {

// An integer bound declared as a double; the int64 ends map to themselves (a double cannot hold
// 2^63 - 1 exactly, and converting 2^63 back would overflow).
std::int64_t integer_bound(double bound) {
  constexpr double top = 9223372036854775807.0;  // rounds to 2^63
  if (bound >= top) return std::numeric_limits<std::int64_t>::max();
  if (bound <= -top) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(bound);
}

// The "expected ..." text of a key, the same words ObjectReader's accessors use.
std::string expected_text(const KeySpec& key) {
  switch (key.type) {
    case KeyType::integer:
      return fmt::format("an integer from {} to {}", integer_bound(key.minimum),
                         integer_bound(key.maximum));
    case KeyType::text: return "a string";
    case KeyType::choice: return fmt::format("one of \"{}\"", fmt::join(key.choices, "\", \""));
    case KeyType::integer_pairs: return "a non-empty array of " + key.description;
    case KeyType::number: break;
  }
  return "a " + key.shape();
}

double read_number(ObjectReader& reader, const KeySpec& key) {
  const bool bounded = std::isfinite(key.maximum);
  if (key.minimum == 0.0 && !bounded) {
    return key.minimum_exclusive ? reader.positive_number(key.name)
                                 : reader.non_negative_number_or(key.name, 0.0);
  }
  if (key.minimum == 0.0 && key.minimum_exclusive && key.maximum == 1.0) {
    return reader.fraction(key.name);
  }
  const nlohmann::json& found = reader.value(key.name);
  const std::string expected = expected_text(key);
  if (!found.is_number()) reader.fail(key.name, expected, found);
  const double number = found.get<double>();
  const bool below = key.minimum_exclusive ? !(number > key.minimum) : !(number >= key.minimum);
  if (!std::isfinite(number) || below || number > key.maximum) {
    reader.fail(key.name, expected, found);
  }
  return number;
}

std::vector<std::pair<std::int64_t, std::int64_t>> read_pairs(ObjectReader& reader,
                                                              const KeySpec& key) {
  const nlohmann::json& list = reader.value(key.name);
  if (!list.is_array() || list.empty()) reader.fail(key.name, expected_text(key), list);
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  for (std::size_t index = 0; index < list.size(); ++index) {
    const nlohmann::json& pair = list[index];
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
        !pair[1].is_number_integer()) {
      throw value_error(reader.source(), element_path(reader.path_of(key.name), index),
                        "a pair of two integers", describe(pair));
    }
    pairs.emplace_back(pair[0].get<std::int64_t>(), pair[1].get<std::int64_t>());
  }
  return pairs;
}

KeyValue read_one(ObjectReader& reader, const KeySpec& key) {
  switch (key.type) {
    case KeyType::number: return read_number(reader, key);
    case KeyType::integer:
      return reader.integer_in(key.name, integer_bound(key.minimum), integer_bound(key.maximum));
    case KeyType::text: return reader.text(key.name);
    case KeyType::choice: return reader.choice_or(key.name, key.choices, "");
    case KeyType::integer_pairs: return read_pairs(reader, key);
  }
  SGDSIM_ASSERT(false, "a key of unknown type");
  return 0.0;
}

nlohmann::ordered_json value_json(const KeyValue& value) {
  return std::visit(
      [](const auto& held) -> nlohmann::ordered_json {
        using T = std::decay_t<decltype(held)>;
        if constexpr (std::is_same_v<T, std::vector<std::pair<std::int64_t, std::int64_t>>>) {
          nlohmann::ordered_json list = nlohmann::ordered_json::array();
          for (const auto& [a, b] : held) list.push_back({a, b});
          return list;
        } else {
          return held;
        }
      },
      value);
}

}  // namespace

Settings read_settings(ObjectReader& reader, const std::vector<KeySpec>& keys) {
  Settings settings;
  for (const KeySpec& key : keys) {
    if (reader.has(key.name)) {
      settings.set(key.name, read_one(reader, key));
    } else if (key.fallback) {
      settings.set(key.name, *key.fallback, false);
    } else if (key.required) {
      throw value_error(reader.source(), reader.path_of(key.name), expected_text(key),
                        "nothing (this key is required)");
    }
  }
  return settings;
}

nlohmann::ordered_json key_schema(const KeySpec& key) {
  nlohmann::ordered_json schema;
  schema["description"] = key.description;
  switch (key.type) {
    case KeyType::number:
      schema["type"] = "number";
      schema[key.minimum_exclusive ? "exclusiveMinimum" : "minimum"] = key.minimum;
      if (std::isfinite(key.maximum)) schema["maximum"] = key.maximum;
      break;
    case KeyType::integer:
      schema["type"] = "integer";
      schema["minimum"] = integer_bound(key.minimum);
      schema["maximum"] = integer_bound(key.maximum);
      break;
    case KeyType::text: schema["type"] = "string"; break;
    case KeyType::choice: schema["enum"] = key.choices; break;
    case KeyType::integer_pairs:
      schema["type"] = "array";
      schema["minItems"] = 1;
      schema["items"] = {
          {"type", "array"}, {"items", {{"type", "integer"}}}, {"minItems", 2}, {"maxItems", 2}};
      break;
  }
  if (key.fallback) schema["default"] = value_json(*key.fallback);
  return schema;
}

void add_key_schemas(nlohmann::ordered_json& object_schema, const std::vector<KeySpec>& keys) {
  for (const KeySpec& key : keys) {
    object_schema["properties"][key.name] = key_schema(key);
    if (key.required && !key.fallback) object_schema["required"].push_back(key.name);
  }
}

}  // namespace sgdsim::jsonio
