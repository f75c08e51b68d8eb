// Unit slips in bandwidths and latencies: see plausibility.hpp.
#include "sgdsim/scenario/plausibility.hpp"

#include <fmt/format.h>

#include <string_view>

namespace sgdsim {

namespace {

void check(const nlohmann::json& value, const std::string& path, std::string_view key,
           std::vector<std::string>& out) {
  if (!value.is_number() || value.get<double>() <= 0.0) return;  // the reader judges the rest
  const double x = value.get<double>();
  if (key.ends_with("_gbps")) {
    if (x > plausible_gbps_max) {
      out.push_back(fmt::format(
          "{}: {:g} Gbit/s is more than {:g} Gbit/s, far beyond any real link (NVLink 5: 7,200 "
          "Gbit/s); the key is in Gbit/s: was it given in bit/s ({:g} Gbit/s)?",
          path, x, plausible_gbps_max, x * 1e-9));
    } else if (x < plausible_gbps_min) {
      out.push_back(fmt::format(
          "{}: {:g} Gbit/s is below {:g} Gbit/s (1 Mbit/s), slower than any data-centre link; "
          "the key is in Gbit/s: was it given in Tbit/s ({:g} Gbit/s)?",
          path, x, plausible_gbps_min, x * 1e3));
    }
  } else if (key.ends_with("latency_us") || key.ends_with("overhead_us")) {
    if (x < plausible_us_min) {
      out.push_back(fmt::format(
          "{}: {:g} us is below {:g} us (1 ns), less than a link's own wire delay (a PCIe or "
          "NVLink hop takes hundreds of ns); the key is in microseconds: was it given in "
          "seconds ({:g} us)?",
          path, x, plausible_us_min, x * 1e6));
    } else if (x > plausible_us_max) {
      out.push_back(fmt::format(
          "{}: {:g} us is more than {:g} us (1 s) per message; the key is in microseconds: was "
          "it given in nanoseconds ({:g} us)?",
          path, x, plausible_us_max, x * 1e-3));
    }
  }
}

// Checks `node` under `key` (its member's name, whose unit suffix also applies to the items of a
// list: a sweep's values, "network.bandwidth_gbps": [10, 1e11]), then what it holds.
void walk(const nlohmann::json& node, const std::string& path, std::string_view key,
          std::vector<std::string>& out) {
  check(node, path, key, out);
  if (node.is_object()) {
    for (const auto& [member, value] : node.items()) walk(value, path + "." + member, member, out);
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      walk(node[i], fmt::format("{}[{}]", path, i), key, out);
    }
  }
}

}  // namespace

std::vector<std::string> plausibility_warnings(const ScenarioConfig& config) {
  return config.document ? plausibility_warnings(*config.document, "sweep")
                         : std::vector<std::string>();
}

std::vector<std::string> plausibility_warnings(const nlohmann::json& scenario,
                                               std::string_view skip) {
  std::vector<std::string> out;
  if (!scenario.is_object()) return out;
  for (const auto& [key, value] : scenario.items()) {
    if (key != skip) walk(value, key, key, out);
  }
  return out;
}

}  // namespace sgdsim
