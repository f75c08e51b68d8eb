// Reading and describing declared keys (core/registry.hpp): each key is read through the
// ObjectReader accessor of its shape, so a declared key fails with the same path-qualified
// message as a hand-read one, and its JSON Schema comes from the same declaration.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "sgdsim/core/registry.hpp"
#include "sgdsim/jsonio/json_reader.hpp"

namespace sgdsim::jsonio {

// Reads every key of `keys` present in the reader's object (filling defaults, failing on missing
// required keys); leaves unknown-key rejection to the caller, who may read more keys.
Settings read_settings(ObjectReader& reader, const std::vector<KeySpec>& keys);

// The JSON Schema (draft 2020-12) of one key's value, with its description, default and range.
nlohmann::ordered_json key_schema(const KeySpec& key);

// Adds `keys` to an object schema's "properties" (and "required").
void add_key_schemas(nlohmann::ordered_json& object_schema, const std::vector<KeySpec>& keys);

}  // namespace sgdsim::jsonio
