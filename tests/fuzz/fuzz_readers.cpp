// libFuzzer targets for every reader of user files, compiled once: each fuzz_NAME program is
// fuzz_entry.cpp, whose SGDSIM_FUZZ_TARGET picks the reader here. Bad input must end in
// InputError (or SimulationError for a well-formed scenario that cannot be simulated); anything
// else, an invariant failure, a crash or a sanitizer report, is a finding.
#include "fuzz_readers.hpp"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "sgdsim/core/error.hpp"
#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/scenario/communication_reader.hpp"
#include "sgdsim/scenario/measured_curve.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"
#include "sgdsim/scenario/sweep.hpp"
#include "sgdsim/topology/node_topology.hpp"
#include "sgdsim/trace_io/bcaffe_log.hpp"
#include "sgdsim/trace_io/benchmark_log.hpp"
#include "sgdsim/trace_io/chakra_trace.hpp"
#include "sgdsim/trace_io/kineto_profile.hpp"
#include "sgdsim/trace_io/node_description_io.hpp"
#include "sgdsim/trace_io/pipedream_profile.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"

namespace {

// Readers that take a path get the input through one scratch file per process.
std::filesystem::path scratch(std::string_view bytes) {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("sgdsim_fuzz_" + std::to_string(getpid()));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Scenarios name their trace relative to this folder (tests/data: four_layers.json and the
// profile), so that valid inputs reach the model.
const std::filesystem::path data_dir = SGDSIM_FUZZ_DATA;

// A scenario small enough to run in a few milliseconds is also simulated, so that the model's
// arithmetic meets the values the reader let through; bigger ones are only read (the fuzzer's
// time is better spent on more inputs than on one 4096-GPU flow run).
bool small_enough_to_run(const sgdsim::ScenarioConfig& config) {
  return config.gpus <= 64 && config.iterations <= 4 && config.run_iterations <= 10'000;
}

void read(int target, std::string_view bytes) {
  using namespace sgdsim;
  switch (target) {
    case 1: {
      const ScenarioConfig config = read_scenario(jsonio::parse_text(bytes, "fuzz.json"), data_dir);
      if (small_enough_to_run(config)) run_scenario(config);
      return;
    }
    case 2: Sweep::read(jsonio::parse_text(bytes, "fuzz.json"), data_dir); return;
    case 3: read_trace(jsonio::parse_text(bytes, "fuzz.json")); return;
    case 4: read_compression_profile(jsonio::parse_text(bytes, "fuzz.json")); return;
    case 5: import_bcaffe_log(scratch(bytes), 32, "fuzz"); return;
    case 6: import_pipedream_profile(scratch(bytes), 32, "fuzz", "fuzz"); return;
    case 7: read_benchmark_log(scratch(bytes)); return;
    case 8: read_chakra_trace(bytes, "fuzz.et"); return;
    case 9: {
      // Both targets (accuracy and loss), the second as a schedule's curve ending at 1,000.
      ConvergenceSpec spec;
      spec.task = "measured";
      spec.target_accuracy = 0.8;
      parse_measured_curve(bytes, "fuzz.csv", "none", spec, std::nullopt);
      spec.target_accuracy.reset();
      spec.target_loss = 0.5;
      parse_measured_curve(bytes, "fuzz.csv", "constant(period=4)", spec, 1000);
      return;
    }
    case 10: {
      ImportRequest request;
      request.input = scratch(bytes);
      request.batch = 8;
      import_kineto_profile(request);
      return;
    }
    case 11:
    case 12:
    case 13: {
      // A node file of each kind, then the model a scenario takes from it (paths, ring search).
      const std::filesystem::path file = scratch(bytes);
      const NodeDescription node = target == 11   ? import_nccl_topology(file)
                                   : target == 12 ? import_nvidia_smi_topo(file)
                                                  : read_node_description(file);
      model_node(NodeTopology::build(node, "fuzz"));
      return;
    }
    default: std::abort();  // fuzz_entry.cpp names a reader 1..13
  }
}

}  // namespace

int sgdsim_fuzz_one(int target, const std::uint8_t* data, std::size_t size) {
  try {
    read(target, std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const sgdsim::InputError&) {
  } catch (const sgdsim::SimulationError&) {
  }
  return 0;  // anything else escapes, and libFuzzer reports it
}
