// Several training jobs on one fabric at flow fidelity: each job is one representative worker
// (forward, backward releasing its merge plan's messages onto a FIFO stream, the update, as in
// iteration_simulation.hpp), and each message's transfers run on a flow network that every job
// shares, so a job's collectives slow down exactly while another job's flows cross the same
// links. Jobs differ in model, GPUs, collective, policy and start time; each runs its own number
// of iterations back to back from its start.
//
// A job whose links no other job crosses is not simulated flow by flow: its messages take the
// times they take alone on the fabric (`alone` below), which is what the shared simulation gives
// such a job to the picosecond (the network settles flows only where flows change, so other
// jobs' events move no arrival; tests check).
#pragma once

#include <cstdint>
#include <vector>

#include "sgdsim/network/flow_network.hpp"
#include "sgdsim/topology/topology.hpp"
#include "sgdsim/training/iteration_simulation.hpp"

namespace sgdsim {

// One gradient message as the fabric runs it: local work first (a framework's cost per call),
// then its transfer programs one after another on the fabric's vertices.
struct FabricMessage {
  MessageGroup group;
  Bytes bytes;
  Time ready;  // release offset from the start of backward, never before the previous message's
  Time local;
  std::vector<TransferProgram> programs;
};

struct FabricJob {
  Time forward;  // everything before backward (framework work and accumulated passes included)
  Time backward;
  Time optimizer;
  std::vector<FabricMessage> messages;
  Time start;  // the first iteration's start on the shared clock
  int iterations = 1;
  // Backward at 1 / this while the job's stream is busy (simulate_iterations' overlap_slowdown):
  // the stream's spans are known only as they happen, so each release is scheduled again when
  // the stream starts or stops.
  double overlap_slowdown = 1.0;
};

// Each message's time alone on the fabric: its local work plus its programs, each priced alone
// (FlowNetwork::shape_priced_time, else run).
std::vector<Time> alone_message_times(const Topology& fabric, const FabricJob& job);

// The jobs run together from their start times until each has run its iterations; one result
// per job, its iterations' timelines on the shared clock (messages as offsets from backward).
// `shared[j]` false: job j crosses no link another job crosses, and its messages take their
// `alone_message_times` instead of running on the network.
std::vector<SimulationResult> simulate_shared_fabric(const Topology& fabric,
                                                     const std::vector<const FabricJob*>& jobs,
                                                     const std::vector<bool>& shared);

// Every directed link a job's programs cross on the fabric, sorted (FlowNetwork's link ids:
// 2 x edge id, + 1 from the higher vertex to the lower).
std::vector<int> links_crossed(const Topology& fabric, const FabricJob& job);

}  // namespace sgdsim
