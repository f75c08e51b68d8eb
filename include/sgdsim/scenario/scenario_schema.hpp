// The JSON Schema (draft 2020-12) of scenario files, generated from the key declarations: the
// registries give the collective, merge, compression and averaging parts, and the fixed sections
// are declared in scenario_schema.cpp beside the reader's defaults. `sgdsim schema` prints it;
// scenarios/scenario.schema.json is its committed copy (a test checks they match and that every
// example scenario validates against it).
#pragma once

#include <nlohmann/json.hpp>

namespace sgdsim {

nlohmann::ordered_json scenario_schema();

}  // namespace sgdsim
