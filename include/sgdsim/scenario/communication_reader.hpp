// Readers for the compression, averaging and sharding parts of a scenario, and for compression
// profile files (format "sgdsim-compression-profile", written by tools/gpu_probe).
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
// communication.sharding; the cluster, network and collective must be read before it.
void read_sharding(jsonio::ObjectReader reader, ScenarioConfig& config);
// The parameter bytes (the trace's dtype unless given) and the optimizer state they imply.
void complete_sharding(ShardingSpec& spec, int trace_bytes_per_element);
CompressionProfile read_compression_profile(const jsonio::Document& document);

}  // namespace sgdsim
