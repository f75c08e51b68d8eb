// Readers for collective benchmark output, for `sgdsim calibrate`: OSU micro-benchmarks
// (osu_allreduce: "# Size  Avg Latency(us)" then "size latency" rows, optionally prefixed by
// "nodes," as in the B-Caffe logs) and nccl-tests (all_reduce_perf: rows of size, count, type,
// redop, root, time(us), algbw, busbw, #wrong, ...; the out-of-place time is used, the GPU
// count is the number of "Rank" lines in the header, and the GPUs per node the number of those
// on each host, "... on HOST device ...", when every host has as many).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sgdsim/network/linear_fit.hpp"

namespace sgdsim {

struct BenchmarkLog {
  std::string format;  // "osu" or "nccl-tests"
  std::optional<int> gpus;
  std::optional<int> gpus_per_node;   // nccl-tests: ranks per host, when all hosts have as many
  std::vector<SizeTimePoint> points;  // sizes strictly increasing
};

// InputError for an unreadable file, a file with no measurements, or sizes that do not increase.
BenchmarkLog read_benchmark_log(const std::filesystem::path& path);

// How the fit reproduces one measured size, inside the fitted range or not.
struct FitCheck {
  double bytes = 0.0;
  double measured_us = 0.0;
  double fitted_us = 0.0;
  bool fitted = false;  // inside the size range the fit used
  double error() const { return fitted_us / measured_us - 1.0; }
};

struct Calibration {
  int gpus = 0;
  std::size_t points = 0;  // measurements inside the size range
  LinearFit fit;
  std::vector<FitCheck> checks;  // every measured size
};

// Least-squares fit of t = a + b * bytes over the measurements with min_bytes <= size <=
// max_bytes, of absolute errors or (`relative`) of relative ones. `gpus` overrides the count
// read from the log; one of the two is required. At least three measurements must fall in the
// range, and the fit must give a > 0 and b > 0.
Calibration calibrate(const BenchmarkLog& log, const std::string& source, double min_bytes,
                      double max_bytes, std::optional<int> gpus, bool relative = false);

}  // namespace sgdsim
