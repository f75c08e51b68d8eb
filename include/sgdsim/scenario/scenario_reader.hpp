// Scenario JSON to a validated ScenarioConfig; every problem is an InputError with the file,
// the JSON path, what was expected and what was found.
#pragma once

#include <filesystem>

#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/scenario/scenario.hpp"

namespace sgdsim {

ScenarioConfig read_scenario(const std::filesystem::path& path);
// `base` is the folder that relative trace paths are resolved from.
ScenarioConfig read_scenario(const jsonio::Document& document, const std::filesystem::path& base);

}  // namespace sgdsim
