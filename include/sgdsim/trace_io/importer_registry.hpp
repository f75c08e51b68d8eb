// The trace importer family: other tools' profiles turned into sgdsim workloads. Each importer's
// file declares its name, description and the command-line options it reads. Adding an importer:
// one file defining `ImporterEntry NAME_importer()`, and NAME in the importer list of
// src/meson.build.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "sgdsim/core/registry.hpp"
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

// What `sgdsim trace import` passes to an importer.
struct ImportRequest {
  std::filesystem::path input;
  int batch = 0;       // samples per GPU; 0 when not given
  std::string model;   // empty: the importer chooses (folder or file name)
  std::string device;  // the device the profile was taken on
};

struct ImporterEntry : Declaration {
  // Whether --batch must be given (the format does not record the batch size).
  bool needs_batch = true;
  std::function<Workload(const ImportRequest&)> import;
};

const Registry<ImporterEntry>& importer_registry();

}  // namespace sgdsim
