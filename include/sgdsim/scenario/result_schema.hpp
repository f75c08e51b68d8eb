// JSON Schema (draft 2020-12) of the result file `sgdsim run --json` writes (format
// sgdsim-result): every field with its type, unit and meaning, so that it doubles as the field
// reference (`sgdsim schema --result`, committed as docs/result.schema.json; docs/outputs.md).
// Objects are closed (additionalProperties false) except the scenario as the user wrote it,
// which the scenario schema describes.
#pragma once

#include <nlohmann/json.hpp>

namespace sgdsim {

nlohmann::ordered_json result_schema();

}  // namespace sgdsim
