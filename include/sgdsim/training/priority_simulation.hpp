// ByteScheduler (Peng et al., "A Generic Communication Scheduler for Distributed DNN Training
// Acceleration", SOSP'19; github.com/bytedance/byteps, bytescheduler/common/bytecore.py): every
// layer's gradient is cut into partitions, and a scheduler launches them by priority, the layer
// that the next forward pass needs first going first, while a credit of unacknowledged bytes is
// left: a partition is launched whenever the credit is positive (it may overdraw it) and gives
// its bytes back when it completes. A partition that becomes ready goes ahead of queued ones of
// lower priority; partitions already launched are not interrupted.
//
// What makes priority pay is that the next iteration does not wait for all communication: its
// forward pass runs layer by layer and stalls only where a layer's parameters are not yet
// aggregated, applying each layer's share of the optimizer step just before that layer's
// forward (sgdsim's FIFO model instead waits for the last message and the whole update). Here:
//   - iteration i+1's forward reaches layer l at offset needed(l) of its own progress; it starts
//     layer l no earlier than the end of layer l's last partition of iteration i, then spends
//     optimizer x bytes(l) / bytes(model) on its update;
//   - launched partitions share the collective: each costs its collective time d = a + w, a the
//     part it can spend beside the data of the partitions ahead (Collective::overlappable: its
//     startup; for BytePS's pipeline all but its partitions' periods, so that partitions in flight
//     pipeline through push, sum and pull as one message's partitions do) and w the rest; a
//     partition launched at s moves its data once the previous one has (w_k = max(s + a,
//     previous end)) and ends at w_k + w. With one partition in flight this is FIFO order; with
//     several, the startups (and stages) overlap the data ahead, which is what the credit buys.
// The first iteration has nothing to wait for; the last one flushes (the end of its
// communication, then the whole optimizer step), so the mean over iterations counts every
// compute exactly once.
#pragma once

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/training/iteration_simulation.hpp"

namespace sgdsim {

struct PrioritySettings {
  Bytes partition;  // partitions of at most this many bytes
  Bytes credit;     // bytes that may be in flight
};

// `overlap_slowdown` slows compute while partitions are on the wire, as in simulate_iterations:
// backward (releasing its partitions later) and the next forward, which overlaps the last
// partitions of the iteration before.
SimulationResult simulate_priority(const BackwardProfile& profile, const Collective& collective,
                                   PrioritySettings settings, int iterations,
                                   double overlap_slowdown = 1.0);

}  // namespace sgdsim
