// Where a result comes from, written into every result file so that a figure can be traced back
// and rerun: the sgdsim version and commit, the input files with their sizes and SHA-256 (taken
// when the result is written), the scenario as it was read, and its main values resolved
// (presets and transports applied, defaults filled in).
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "sgdsim/scenario/scenario.hpp"

namespace sgdsim {

// {"path", "bytes", "sha256"} per input that is a regular file (a scenario given as a Python
// dict is not), each path once, in the order given.
nlohmann::ordered_json input_digests(const std::vector<std::filesystem::path>& inputs);

// {"sgdsim_version", "commit", "inputs", "scenario", "resolved"}.
nlohmann::ordered_json provenance_json(const ScenarioConfig& config);

}  // namespace sgdsim
