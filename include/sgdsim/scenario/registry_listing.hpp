// What `sgdsim list` prints: every family's members with their descriptions and keys, as text,
// as JSON (what the plot scripts read their labels from) and as the Markdown reference tables of
// scenarios/README.md (a test fails when the README drifts from this).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace sgdsim {

// "collectives", "policies", "compressors", "schedules", "importers".
const std::vector<std::string>& registry_families();
bool is_registry_family(std::string_view family);

// Empty family: every family.
std::string list_text(std::string_view family);
nlohmann::ordered_json list_json(std::string_view family);
std::string list_markdown();

}  // namespace sgdsim
