// Importer for PipeDream profiler graphs (graph.txt): one line per layer node,
//   nodeN -- Description -- forward_compute_time=F, backward_compute_time=B,
//            activation_size=A, parameter_size=P
// times in milliseconds and sizes in bytes (fp32), then edges "nodeA -- nodeB". Layers come out
// in forward order: a topological order of the graph, ties broken by node number. A layer with
// parameters gets one gradient tensor of P/4 elements (the profile does not split weight and
// bias).
#pragma once

#include <filesystem>
#include <string>

#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

Workload import_pipedream_profile(const std::filesystem::path& path, int batch_size,
                                  const std::string& model, const std::string& device);

}  // namespace sgdsim
