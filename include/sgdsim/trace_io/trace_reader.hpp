// Trace files (format "sgdsim-trace", schema version 1, documented in traces/README.md) to
// workloads. Every value is validated; problems are InputErrors with the file and JSON path.
#pragma once

#include <filesystem>

#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

inline constexpr int trace_schema_version = 1;

Workload read_trace(const std::filesystem::path& path);
Workload read_trace(const jsonio::Document& document);

}  // namespace sgdsim
