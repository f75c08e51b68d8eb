// Shared fixtures for the unit tests: the hand-made four-layer trace and a collective whose cost
// is a plain alpha + beta * bytes, so schedules can be worked out by hand.
//
// tests/data/four_layers.json, in backward order (L4 first):
//   layer  backward  ready (sum of backward so far)  bytes (fp32)  tc = 0.5 ms + 1 us/byte
//   L4     1.0 ms    1.0 ms                          1000          1.5 ms
//   L3     2.0 ms    3.0 ms                          2000          2.5 ms
//   L2     1.0 ms    4.0 ms                           500          1.0 ms
//   L1     1.8 ms    5.8 ms                          1500          2.0 ms
// forward 4 x 1 ms = 4 ms, optimizer 0.5 ms, backward 5.8 ms.
#pragma once

#include <functional>
#include <string>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/registry.hpp"

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/collectives/hops.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"

namespace sgdsim::test {

inline std::string data_path(const std::string& name) {
  return std::string(SGDSIM_TEST_DATA) + "/" + name;
}

inline Workload four_layers() {
  return read_trace(data_path("four_layers.json"));
}

// An allreduce only: no gather, no transfer programs. `pipelined`: a message queued behind
// another runs its startup beside it (queued_overlap = alpha), as BytePS's stages do.
class LinearCollective final : public Collective {
 public:
  LinearCollective(Time alpha, double ps_per_byte, bool pipelined = false)
      : alpha_(alpha), ps_per_byte_(ps_per_byte), pipelined_(pipelined) {}
  std::string name() const override { return "linear-test"; }
  int ranks() const override { return 2; }
  Time time(Bytes message) const override {
    return alpha_ + Time::from_ps(static_cast<std::int64_t>(ps_per_byte_ *
                                                            static_cast<double>(message.count())));
  }
  LinearCost linear_cost() const override { return {alpha_, ps_per_byte_}; }
  double bytes_sent_per_rank(Bytes message) const override {
    return static_cast<double>(message.count());
  }
  Requantisation requantisation() const override { return {1, 1.0}; }
  Time queued_overlap(Bytes /*message*/) const override {
    return pipelined_ ? alpha_ : Time::zero();
  }

 private:
  Time alpha_;
  double ps_per_byte_;
  bool pipelined_;
};

// The InputError message `action` throws, or "(no error)": bad-input tests compare it verbatim.
inline std::string input_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

// Settings holding a density (ignored by compressors that do not declare it).
inline Settings density(double value) {
  Settings settings;
  settings.set("density", value);
  return settings;
}

// Nodes of `per_node` GPUs on a 200 Gbit/s, 2 us link inside, joined at 25 Gbit/s with 8 us
// links (the GPU links carry half the intra-node latency, the NIC links half the network's: 2 us
// a hop inside a node, 10 us between nodes).
inline ClusterShape cluster(int gpus, int per_node, bool nic_per_gpu = false) {
  ClusterShape shape;
  shape.gpus = gpus;
  shape.gpus_per_node = per_node;
  shape.nic_per_gpu = nic_per_gpu;
  shape.intra_node = {Bandwidth::from_gbps(200.0), Time::from_us(2.0)};
  shape.network = {Bandwidth::from_gbps(25.0), Time::from_us(8.0)};
  return shape;
}

// Workers of one GPU each, 256 Gbit/s and 1 us inside, 10 Gbit/s and 20 us between, with
// `servers` parameter servers (or BytePS's) on links like the workers'.
inline ClusterShape workers(int gpus, int servers, ServerPlacement placement) {
  ClusterShape shape;
  shape.gpus = gpus;
  shape.gpus_per_node = 1;
  shape.intra_node = {Bandwidth::from_gbps(256.0), Time::from_us(1.0)};
  shape.network = {Bandwidth::from_gbps(10.0), Time::from_us(20.0)};
  shape.servers = servers;
  shape.server_placement = placement;
  shape.server_link = shape.network;
  return shape;
}

// BytePS's test cluster: 2 machines of 4 GPUs (800 Gbit/s, 1 us inside: 0.01 ns/B), one
// 100 Gbit/s NIC each (0.08 ns/B, 5 us), 2 dedicated servers at 100 Gbit/s.
inline ClusterShape byteps_cluster() {
  ClusterShape shape;
  shape.gpus = 8;
  shape.gpus_per_node = 4;
  shape.intra_node = {Bandwidth::from_gbps(800.0), Time::from_us(1.0)};
  shape.network = {Bandwidth::from_gbps(100.0), Time::from_us(5.0)};
  shape.servers = 2;
  shape.server_placement = ServerPlacement::dedicated;
  shape.server_link = shape.network;
  return shape;
}

// A collective context on the whole cluster (so transfer programs exist).
inline CollectiveContext full_context(const ClusterShape& shape,
                                      double reduction_ps_per_byte = 0.0) {
  return CollectiveContext{std::make_shared<const Topology>(Topology::build(shape)),
                           reduction_ps_per_byte, std::nullopt};
}

// alpha = 0.5 ms, beta = 1 us per byte.
inline LinearCollective hand_collective() {
  return LinearCollective(Time::from_us(500.0), 1e6);
}

}  // namespace sgdsim::test
