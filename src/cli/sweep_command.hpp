// `sgdsim sweep`: expand a scenario's sweep, run the grid on all cores (and MPI ranks), show
// progress on a terminal, write CSV/JSON, and optionally plot.
#pragma once

#include <string>

#include "distributed.hpp"

namespace sgdsim::cli {

struct SweepOptions {
  std::string scenario;
  std::string csv_path;
  std::string json_path;
  std::string plot_path;
  unsigned threads = 0;  // 0: all cores
};

// Returns the exit code (0, or 130 when interrupted).
int sweep_command(const SweepOptions& options, const Distributed& distributed);

}  // namespace sgdsim::cli
