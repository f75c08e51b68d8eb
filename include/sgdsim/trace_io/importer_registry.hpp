// The trace importer family: other tools' profiles turned into sgdsim workloads. Each importer's
// file declares its name, description and the command-line options it reads. Adding an importer:
// one file defining `ImporterEntry NAME_importer()`, and NAME in the importer list of
// src/meson.build.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sgdsim/core/registry.hpp"
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

// What `sgdsim trace import` passes to an importer.
struct ImportRequest {
  std::filesystem::path input;
  int batch = 0;          // samples per GPU; 0 when not given
  std::string model;      // empty: the importer chooses (folder or file name)
  std::string device;     // the device the profile was taken on
  std::string time_unit;  // --time-unit, one of the importer's time_units; empty: its first
  // What the profiled run was, for importers that take it (reads_run_details): tokens per
  // sample, a plain iteration measured apart from the profile, the model's trainable
  // parameters, the training precision.
  int sequence_length = 0;
  std::optional<double> measured_iteration_us{};
  std::optional<std::int64_t> parameter_count{};
  std::string precision{};
};

struct ImporterEntry : Declaration {
  // Whether --batch must be given (the format does not record the batch size).
  bool needs_batch = true;
  // The units --time-unit may name for the format's durations, the default first; empty when
  // the format states its own unit.
  std::vector<std::string> time_units;
  // Whether --sequence, --measured-us, --parameters and --precision apply.
  bool reads_run_details = false;
  std::function<Workload(const ImportRequest&)> import;
};

const Registry<ImporterEntry>& importer_registry();

}  // namespace sgdsim
