// Readers for the compression and averaging parts of a scenario, and for compression profile
// files (format "sgdsim-compression-profile", written by tools/gpu_probe).
#pragma once

#include <string>
#include <vector>

#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/scenario/scenario.hpp"

namespace sgdsim {

// A compressor object, a bare ratio, or a list of those.
std::vector<CompressionChoice> read_compressions(const nlohmann::json& value,
                                                 const std::string& source,
                                                 const std::string& path);
void read_averaging(jsonio::ObjectReader reader, ScenarioConfig& config);
CompressionProfile read_compression_profile(const jsonio::Document& document);

}  // namespace sgdsim
