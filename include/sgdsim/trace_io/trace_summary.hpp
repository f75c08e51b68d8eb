// The human-readable listing printed by `sgdsim trace show`.
#pragma once

#include <string>

#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

std::string trace_summary(const Workload& workload);

}  // namespace sgdsim
