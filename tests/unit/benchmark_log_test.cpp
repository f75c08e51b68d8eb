// Tests for trace_io/benchmark_log.hpp: nccl-tests output as users post it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "sgdsim/trace_io/benchmark_log.hpp"

using namespace sgdsim;

TEST_CASE("nccl-tests on one host: GPUs and GPUs per node from the rank lines") {
  // tests/data/nccl_tests_2080ti_x2_shm.txt: two RTX 2080 Ti without P2P, both ranks on one host.
  const BenchmarkLog log =
      read_benchmark_log(std::filesystem::path(SGDSIM_TEST_DATA) / "nccl_tests_2080ti_x2_shm.txt");
  CHECK(log.format == "nccl-tests");
  CHECK(log.gpus == 2);
  CHECK(log.gpus_per_node == 2);
  CHECK(log.points.size() == 28);  // 8 B to 1 GiB, doubling
  // Over the full range the relative fit's slope, 0.2588 ns/B (its 11.9 us intercept is
  // negligible at 1 GiB), is within 5% of the largest sizes' measured 268,588 us / 2^30 B =
  // 0.2501 ns/B (+3.5%); the checks cover every measured size, 28, all inside the range.
  const Calibration full = calibrate(log, "log", 0.0, 0x1p50, std::nullopt, true);
  REQUIRE(full.checks.size() == 28);
  CHECK(full.points == 28);
  CHECK(std::abs(full.checks.back().error()) < 0.05);
  // The default range, 16 KiB to 1 MiB, fits 7 sizes; the other 21 are checked outside it.
  const Calibration part = calibrate(log, "log", 16384, 1048576, std::nullopt);
  CHECK(part.points == 7);
  CHECK(std::count_if(part.checks.begin(), part.checks.end(),
                      [](const FitCheck& c) { return !c.fitted; }) == 21);
}

TEST_CASE("nccl-tests across hosts: ranks per host, only when every host has as many") {
  const auto write = [](const std::string& name, const std::string& ranks) {
    const auto path = std::filesystem::temp_directory_path() / name;
    std::ofstream(path) << "# nThread 1 nGpus 1\n"
                        << ranks
                        << "#  size count type redop root time algbw busbw\n"
                           "1024 256 float sum -1 20.0 0.05 0.1 0\n"
                           "2048 512 float sum -1 22.0 0.09 0.2 0\n"
                           "4096 1024 float sum -1 26.0 0.16 0.3 0\n";
    return path;
  };
  const BenchmarkLog two = read_benchmark_log(
      write("sgdsim_two_hosts.txt",
            "#  Rank  0 Group  0 Pid 1 on node-a device  0 [0x1a] Tesla V100\n"
            "#  Rank  1 Group  0 Pid 2 on node-a device  1 [0x1b] Tesla V100\n"
            "#  Rank  2 Group  0 Pid 3 on node-b device  0 [0x1a] Tesla V100\n"
            "#  Rank  3 Group  0 Pid 4 on node-b device  1 [0x1b] Tesla V100\n"));
  CHECK(two.gpus == 4);
  CHECK(two.gpus_per_node == 2);
  const BenchmarkLog uneven = read_benchmark_log(
      write("sgdsim_uneven_hosts.txt",
            "#  Rank  0 Group  0 Pid 1 on node-a device  0 [0x1a] Tesla V100\n"
            "#  Rank  1 Group  0 Pid 2 on node-a device  1 [0x1b] Tesla V100\n"
            "#  Rank  2 Group  0 Pid 3 on node-b device  0 [0x1a] Tesla V100\n"));
  CHECK(uneven.gpus == 3);
  CHECK_FALSE(uneven.gpus_per_node.has_value());
}
