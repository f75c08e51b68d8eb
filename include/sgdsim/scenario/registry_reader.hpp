// Reading a family member's name from a scenario: the registry gives the choices, the aliases
// and the "did you mean" suggestion.
#pragma once

#include <string>
#include <string_view>

#include "sgdsim/core/registry.hpp"
#include "sgdsim/jsonio/json_reader.hpp"

namespace sgdsim {

// The member named by `name` (a string) at `path`; an unknown name fails with every choice listed
// and the closest one suggested.
template <class Entry>
const Entry& read_member(const nlohmann::json& name, const std::string& source,
                         const std::string& path, const Registry<Entry>& registry) {
  const Entry* entry = name.is_string() ? registry.find(name.get<std::string>()) : nullptr;
  if (entry != nullptr) return *entry;
  std::string found = jsonio::describe(name);
  if (name.is_string()) {
    if (const auto closest = registry.closest(name.get<std::string>())) {
      found += " (did you mean \"" + *closest + "\"?)";
    }
  }
  throw value_error(source, path, registry.choices(), found);
}

template <class Entry>
const Entry& read_member(jsonio::ObjectReader& reader, std::string_view key,
                         const Registry<Entry>& registry) {
  return read_member(reader.value(key), reader.source(), reader.path_of(key), registry);
}

}  // namespace sgdsim
