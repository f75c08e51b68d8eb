// Importer for the per-parameter logs of B-Caffe, the MG-WFBP authors' Caffe fork: glog lines
// ending in [param_id, elements, layer_backward_us, allreduce_us(, merged_allreduce_us)], with
// param_id in forward order. A log may hold several dumps; the last complete one is used.
// Weight and bias rows of one layer repeat the layer's backward time, which is how rows are
// grouped into layers. Forward times are not in the log and are set to zero.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

struct BcaffeRow {
  int param_id = 0;
  std::int64_t elements = 0;
  double backward_us = 0.0;
  double allreduce_us = 0.0;  // measured time of this tensor's own allreduce (0: sent with another)
};

struct BcaffeLog {
  std::vector<BcaffeRow> rows;  // the last complete dump, forward order
  Workload workload;
};

// `batch_size` and `device` are not in the log; the caller states them.
BcaffeLog import_bcaffe_log(const std::filesystem::path& path, int batch_size,
                            const std::string& device);

}  // namespace sgdsim
