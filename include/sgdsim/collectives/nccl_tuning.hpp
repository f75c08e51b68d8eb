// An optional latency and bandwidth-efficiency table in the style of NCCL's tuning model
// (NVIDIA NCCL, src/graph/tuning.cc and tuning.h, "baseLat" and "hwLat" tables, 2.x releases):
// a collective costs a base latency once, plus a per-step latency that depends on the algorithm,
// the protocol and the slowest hardware a step crosses, and its bandwidth is scaled by the
// protocol's efficiency. Values (microseconds), as published in those files:
//              base latency           per-step latency (NVLink / PCI / network)
//   ring  LL      3.6                 0.47 / 1.0 / 2.7
//   ring  LL128  10.0                 1.9  / 2.5 / 4.0
//   ring  Simple  8.4                 3.4  / 5.7 / 9.6
//   tree  LL      4.4                 0.52 / 1.0 / 5.0
//   tree  LL128   4.4                 1.2  / 1.9 / 8.5
//   tree  Simple  0                   28   / 28  / 50
// Protocol efficiency: LL carries 4 bytes of data per 8-byte line (0.5); LL128 120 of every 128
// bytes (0.9375); Simple the whole bandwidth (1.0).
#pragma once

#include <optional>
#include <string_view>

#include "sgdsim/core/time.hpp"

namespace sgdsim {

enum class NcclProtocol { ll, ll128, simple };
enum class NcclAlgorithm { ring, tree };
enum class HardwareClass { nvlink, pci, network };

struct NcclCost {
  Time base_latency;  // once per collective
  Time step_latency;  // per step (replaces the route latency of the hop)
  double efficiency;  // fraction of the hop bandwidth the protocol delivers
};

std::optional<NcclProtocol> parse_nccl_protocol(std::string_view name);
NcclCost nccl_cost(NcclAlgorithm algorithm, NcclProtocol protocol, HardwareClass hardware);

}  // namespace sgdsim
