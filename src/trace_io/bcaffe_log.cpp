// B-Caffe log parsing. Any line without a trailing [..] list of numbers is ignored.
#include "sgdsim/trace_io/bcaffe_log.hpp"
#include "sgdsim/trace_io/importer_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"
#include "sgdsim/core/units.hpp"

namespace sgdsim {

namespace {

// 2^53: every count up to it is exact in the double the log's text is read into.
constexpr double max_bcaffe_elements = 9007199254740992.0;

bool parse_row(const std::string& line, BcaffeRow& row) {
  const auto open = line.rfind('[');
  const auto close = line.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  std::string inside = line.substr(open + 1, close - open - 1);
  for (char& c : inside) {
    if (c == ',') c = ' ';
  }
  std::istringstream fields(inside);
  double id = 0;
  double elements = 0;
  if (!(fields >> id >> elements >> row.backward_us >> row.allreduce_us)) return false;
  // Only whole numbers in range are cast; anything else becomes a row the caller refuses.
  const bool whole_id = whole_in(id, 0.0, 1e9);
  const bool whole_elements = whole_in(elements, 1.0, max_bcaffe_elements);
  row.param_id = whole_id && whole_elements ? static_cast<int>(id) : -1;
  row.elements = whole_id && whole_elements ? static_cast<std::int64_t>(elements) : 0;
  return true;
}

}  // namespace

BcaffeLog import_bcaffe_log(const std::filesystem::path& path, int batch_size,
                            const std::string& device) {
  std::istringstream file(read_input_file(path, "file"));
  std::vector<std::vector<BcaffeRow>> dumps;
  std::string line;
  int line_number = 0;
  while (std::getline(file, line)) {
    ++line_number;
    BcaffeRow row;
    if (!parse_row(line, row)) continue;
    if (row.param_id == 0) dumps.emplace_back();
    if (dumps.empty() || row.param_id != static_cast<int>(dumps.back().size()) ||
        row.elements < 1 || row.backward_us < 0.0) {
      throw InputError(fmt::format(
          "{}:{}: expected B-Caffe row [param_id, elements, backward_us, allreduce_us, ...] with "
          "param_id counting up from 0 and elements a whole number from 1 to 2^53, found \"{}\"",
          path.string(), line_number, line));
    }
    dumps.back().push_back(row);
  }
  if (dumps.empty()) {
    throw InputError(
        fmt::format("{}: no B-Caffe parameter rows found (is this a B-Caffe log?)", path.string()));
  }
  // The last dump may be cut short by the end of the log; the one before it is then complete.
  const std::size_t longest = std::max_element(dumps.begin(), dumps.end(), [](auto& a, auto& b) {
                                return a.size() < b.size();
                              })->size();
  while (dumps.back().size() < longest) dumps.pop_back();

  BcaffeLog log;
  log.rows = dumps.back();
  Workload& workload = log.workload;
  workload.model = "googlenet-bcaffe";
  workload.device = device;
  workload.framework = "B-Caffe";
  workload.batch_size = batch_size;
  workload.provenance = {"imported",
                         fmt::format("B-Caffe per-parameter log {} (last complete dump of {} "
                                     "rows); forward times are not in the log and are zero",
                                     path.filename().string(), log.rows.size()),
                         "",
                         {}};
  for (const BcaffeRow& row : log.rows) {
    const bool same_layer = !workload.layers.empty() &&
                            workload.layers.back().backward == Time::from_us(row.backward_us);
    if (!same_layer) {
      workload.layers.push_back(Layer{fmt::format("layer{}", workload.layers.size()),
                                      Time::zero(),
                                      Time::from_us(row.backward_us),
                                      {}});
    }
    workload.layers.back().gradients.push_back(
        {fmt::format("param{}", row.param_id), row.elements, std::nullopt});
  }
  return log;
}

ImporterEntry bcaffe_importer() {
  ImporterEntry entry;
  entry.name = "bcaffe";
  entry.description = "B-Caffe per-parameter log (layer times and sizes per parameter blob)";
  entry.import = [](const ImportRequest& request) {
    return import_bcaffe_log(request.input, request.batch, request.device).workload;
  };
  return entry;
}

}  // namespace sgdsim
