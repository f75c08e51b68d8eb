// Workloads to trace files in the current schema version.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

nlohmann::json trace_to_json(const Workload& workload);
void write_trace(const Workload& workload, std::ostream& out);

}  // namespace sgdsim
