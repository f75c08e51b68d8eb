// The NCCL-style latency table (values cited in the header).
#include "sgdsim/collectives/nccl_tuning.hpp"

#include <array>

namespace sgdsim {

namespace {

// [algorithm][protocol], microseconds.
constexpr std::array<std::array<double, 3>, 2> base_latency_us{{{3.6, 10.0, 8.4}, {4.4, 4.4, 0.0}}};
// [hardware][algorithm][protocol], microseconds.
constexpr std::array<std::array<std::array<double, 3>, 2>, 3> step_latency_us{{
    {{{0.47, 1.9, 3.4}, {0.52, 1.2, 28.0}}},  // NVLink
    {{{1.0, 2.5, 5.7}, {1.0, 1.9, 28.0}}},    // PCI
    {{{2.7, 4.0, 9.6}, {5.0, 8.5, 50.0}}},    // network
}};
constexpr std::array<double, 3> efficiency{0.5, 120.0 / 128.0, 1.0};

}  // namespace

std::optional<NcclProtocol> parse_nccl_protocol(std::string_view name) {
  if (name == "ll") return NcclProtocol::ll;
  if (name == "ll128") return NcclProtocol::ll128;
  if (name == "simple") return NcclProtocol::simple;
  return std::nullopt;
}

NcclCost nccl_cost(NcclAlgorithm algorithm, NcclProtocol protocol, HardwareClass hardware) {
  const auto a = static_cast<std::size_t>(algorithm);
  const auto p = static_cast<std::size_t>(protocol);
  const auto h = static_cast<std::size_t>(hardware);
  return NcclCost{Time::from_us(base_latency_us[a][p]), Time::from_us(step_latency_us[h][a][p]),
                  efficiency[p]};
}

}  // namespace sgdsim
