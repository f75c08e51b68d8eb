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

#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/scenario/scenario.hpp"

namespace sgdsim {

inline constexpr int sweep_schema_version = 1;

struct SweepAxis {
  std::string key;
  std::vector<nlohmann::json> values;
};

class Sweep {
 public:
  // Reads a scenario with a "sweep" object and validates every point; InputError on bad input.
  static Sweep read(const std::filesystem::path& path);
  static Sweep read(const jsonio::Document& document, const std::filesystem::path& base);

  const std::string& source() const { return source_; }
  const std::vector<SweepAxis>& axes() const { return axes_; }
  std::size_t size() const { return points_.size(); }
  const ScenarioConfig& point(std::size_t index) const { return points_.at(index); }
  // The swept values of a point, one per axis, and the same as written in CSV cells.
  std::vector<nlohmann::json> point_settings(std::size_t index) const;
  std::vector<std::string> point_values(std::size_t index) const;

 private:
  std::string source_;
  std::vector<SweepAxis> axes_;
  std::vector<ScenarioConfig> points_;
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
  bool json = true;  // also build each row as JSON (most of a big sweep's memory when unused)
  // Called (one call at a time) with each point's rows as soon as it finishes, in finishing
  // order: a caller that may have to stop at once keeps what is done.
  std::function<void(const SweepPointRows&)> on_finished;
  // When given, a failing point is recorded here and the other points go on; otherwise the
  // first failure ends the sweep and is rethrown.
  std::vector<SweepFailure>* failures = nullptr;
};

// Runs the points on `threads` threads; returns the finished ones in point order.
std::vector<SweepPointRows> run_sweep(const Sweep& sweep, const SweepRunOptions& options);

// Whole files: a schema line, a header with the swept keys first, then the rows in point order.
// Failed points are listed after the rows ("# failed: point N (values): message"), and fewer
// finished or failed points than the grid is marked as an interrupted run.
std::string sweep_csv(const Sweep& sweep, const std::vector<SweepPointRows>& rows,
                      const std::vector<SweepFailure>& failures = {});
// The first two lines of sweep_csv (what a stream of finished rows starts with).
std::string sweep_csv_header(const Sweep& sweep);
nlohmann::ordered_json sweep_json(const Sweep& sweep, const std::vector<SweepPointRows>& rows,
                                  const std::vector<SweepFailure>& failures = {});

}  // namespace sgdsim
