// Sweeps: a scenario's "sweep" object maps dotted keys ("cluster.gpus",
// "communication.merge.policy") to lists of values or ranges; the cross product of all axes is a
// grid of scenarios, each validated like a scenario of its own before anything runs. Points are
// numbered with the last axis (keys in alphabetical order) varying fastest, and rows are always
// written in that order, however many threads or MPI ranks ran them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sgdsim/core/run_monitor.hpp"
#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/scenario/scenario.hpp"

namespace sgdsim {

inline constexpr int sweep_schema_version = 2;  // as result_schema_version

struct SweepAxis {
  std::string key;
  std::vector<nlohmann::json> values;
};

class Sweep {
 public:
  // Reads a scenario with a "sweep" object and validates every point, on `threads` threads;
  // InputError on bad input (the first bad point in point order, whatever the threads).
  static Sweep read(const std::filesystem::path& path, unsigned threads = 1);
  static Sweep read(const jsonio::Document& document, const std::filesystem::path& base,
                    unsigned threads = 1);

  const std::string& source() const { return source_; }
  const std::vector<SweepAxis>& axes() const { return axes_; }
  std::size_t size() const { return size_; }
  // A point's scenario, read again from the grid (it was validated by `read`): points are not
  // kept, so a sweep's memory does not grow with its size.
  ScenarioConfig point(std::size_t index) const;
  // Every file some point reads (scenario, traces, profiles, curves), and every trace, sorted.
  const std::vector<std::filesystem::path>& input_files() const { return input_files_; }
  const std::vector<std::filesystem::path>& trace_paths() const { return trace_paths_; }
  // The swept values of a point, one per axis, and the same as written in CSV cells.
  std::vector<nlohmann::json> point_settings(std::size_t index) const;
  std::vector<std::string> point_values(std::size_t index) const;
  // Implausible bandwidths and latencies in the scenario and among the swept values, once each
  // (scenario/plausibility.hpp).
  std::vector<std::string> warnings() const;

 private:
  void validate(unsigned threads);

  std::string source_;
  std::filesystem::path base_;  // folder relative paths are resolved from
  nlohmann::json base_json_;    // the scenario without its sweep
  std::vector<SweepAxis> axes_;
  std::size_t size_ = 0;
  std::vector<std::filesystem::path> input_files_;
  std::vector<std::filesystem::path> trace_paths_;
};

// The rows one finished point contributes (one per policy and compressor).
struct SweepPointRows {
  std::size_t index = 0;
  std::vector<std::string> csv;
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
};

// A point that failed: its error, and which kind (bad input, a simulation that cannot finish, a
// bug) so that the command can choose its exit code.
struct SweepFailure {
  enum class Kind : std::uint8_t { input, simulation, internal };
  std::size_t index = 0;
  Kind kind = Kind::internal;
  std::string message;
};

struct SweepRunOptions {
  unsigned threads = 1;
  std::vector<std::size_t> points;           // the points to run; empty means all
  const std::atomic<bool>* stop = nullptr;   // set (e.g. by Ctrl-C) to finish early
  std::atomic<std::size_t>* done = nullptr;  // incremented as points finish, for progress
  // Each thread's monitor (core/run_monitor.hpp): its stop flag interrupts the points in flight,
  // which then count neither as finished nor as failed.
  RunMonitor* monitor = nullptr;
  bool json = true;  // also build each row as JSON (most of a big sweep's memory when unused)
  // Called (one call at a time, and never at the same time as on_failed) with each point's rows
  // as soon as it finishes, in finishing order, to stream them: the rows are then the caller's,
  // and run_sweep returns none. It must not throw.
  std::function<void(SweepPointRows)> on_finished;
  // Called likewise with each failed point (with `failures` given), after it is recorded there.
  std::function<void(const SweepFailure&)> on_failed;
  // When given, a failing point is recorded here and the other points go on; otherwise the
  // first failure ends the sweep and is rethrown.
  std::vector<SweepFailure>* failures = nullptr;
};

// Runs the points on `threads` threads; returns the finished ones in point order (none when
// on_finished takes them).
std::vector<SweepPointRows> run_sweep(const Sweep& sweep, const SweepRunOptions& options);

// Whole files: a schema line, a header with the swept keys first, then the rows in point order.
// Failed points are listed after the rows ("# failed: point N (values): message"), and fewer
// finished or failed points than the grid is marked as an interrupted run.
std::string sweep_csv(const Sweep& sweep, const std::vector<SweepPointRows>& rows,
                      const std::vector<SweepFailure>& failures = {});
// The first two lines of sweep_csv (what a stream of finished rows starts with), and its last
// lines after the rows of `finished` points: the failed points and the interruption mark.
std::string sweep_csv_header(const Sweep& sweep);
std::string sweep_csv_tail(const Sweep& sweep, std::size_t finished,
                           const std::vector<SweepFailure>& failures);
// The JSON document (format sgdsim-sweep, indented by one space per level): the grid, then the
// rows, then how many points finished and which failed, so that it can be streamed as points
// finish: sweep_json_head, sweep_json_rows for each point in order (`first` until a row has
// been written), sweep_json_tail.
std::string sweep_json(const Sweep& sweep, const std::vector<SweepPointRows>& rows,
                       const std::vector<SweepFailure>& failures = {});
std::string sweep_json_head(const Sweep& sweep);
std::string sweep_json_rows(const SweepPointRows& rows, bool first);
std::string sweep_json_tail(std::size_t finished, const std::vector<SweepFailure>& failures,
                            bool any_rows);

}  // namespace sgdsim
