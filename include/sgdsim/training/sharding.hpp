// Sharded data parallelism: ZeRO stages 1-3 (Rajbhandari et al., "ZeRO: Memory Optimizations
// Toward Training Trillion Parameter Models", SC 2020) and PyTorch FSDP's sharding strategies
// (Zhao et al., "PyTorch FSDP", VLDB 2023; torch.distributed.fsdp.ShardingStrategy), each an
// iteration schedule of reduce-scatters, allgathers and allreduces around compute.
//
// The model is cut into units, as FSDP wraps it: each unit one flat parameter gathered and freed
// as a whole (a transformer block, a ResNet block or stage); the layers of no unit form the
// root, gathered once per iteration before the first forward and kept until backward ends (the
// root's reshard_after_forward is False, as fully_shard documents). One representative rank per
// schedule (every rank does the same; per_rank fidelity scales each rank's compute), a compute
// stream and one FIFO communication stream: collectives run one at a time, in the order the
// ranks issue them, each starting when the last rank has issued it and the stream is free.
//
// FULL_SHARD / ZeRO-3, for units u = 0..U-1 in forward order, prefetch p (forward) and q
// (backward), a limit of L units gathered at once (FSDP's limit_all_gathers: 2):
//   forward:  allgather(u) issued when unit u-p's forward starts and unit u-L's has ended
//             (p = 0: when unit u-1's forward ends); forward(u) after it; then u is freed;
//   backward: allgather(u) again, issued when unit u+q's backward starts (q = 1 is FSDP's
//             BACKWARD_PRE); backward(u) after it; then reduce-scatter(u) of its gradient;
//   the root's reduce-scatter after the last backward; the optimizer step on 1/G of the
//   parameters once every reduce-scatter has ended.
// Compute beside a collective runs at 1 / overlap_slowdown (the collectives' kernels share the
// GPU with it): every collective that can overlap a compute item is issued before that item is
// placed (prefetches as the item begins, reduce-scatters as the one before it ends), so each
// item's wall-clock end follows from the stream's busy spans known by then.
// SHARD_GRAD_OP / ZeRO-2 in FSDP: the same forward; parameters are kept through backward (no
// backward allgather). HYBRID_SHARD: FULL_SHARD inside groups of G GPUs, and after each
// reduce-scatter an allreduce of the unit's shard (1/G of it) across the N/G replicas.
// ZeRO-1 and ZeRO-2 (DeepSpeed): parameters replicated; gradients reduce-scattered in buckets of
// reduce_bucket_size elements as backward fills them (overlap_comm); after the optimizer step on
// 1/N of the parameters, the updated parameters allgathered in buckets of
// allgather_bucket_size elements before the next forward. Both stages communicate alike (the ZeRO
// paper: 2 Psi per iteration, as an allreduce); they differ in memory.
//
// Gradient accumulation (k passes per step): FSDP's strategies gather parameters in every pass
// and reduce-scatter (and, for HYBRID_SHARD, allreduce) every pass's gradients, or with
// no_sync only the last pass's, keeping whole gradients in between; DeepSpeed's engine
// (allreduce_gradients) reduces ZeRO-2's buckets in every pass and ZeRO-1's only in the last.
// The optimizer step and ZeRO's allgather follow the last pass.
//
// Memory per GPU, model states only (the ZeRO paper's Figure 1 accounting): Psi parameters of
// p bytes, gradients of p bytes, K bytes of optimizer state per parameter, shard group G:
//   replicated (DDP)  (2p + K) Psi            ZeRO-1  2p Psi + K Psi / G
//   ZeRO-2            p Psi + (p + K) Psi / G  ZeRO-3 / FULL_SHARD / HYBRID_SHARD (2p + K) Psi / G
//   SHARD_GRAD_OP     as ZeRO-3 at rest
// and at the peak, the gathered units on top: for FULL_SHARD the root and min(L, U) of the
// largest units with their full gradients; for SHARD_GRAD_OP every unit (kept from forward to
// backward) and one unit's gradient. Under no_sync with k > 1 the FSDP strategies keep p Psi of
// gradients.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/core/registry.hpp"
#include "sgdsim/core/time.hpp"
#include "sgdsim/core/units.hpp"
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

enum class ShardingStrategy { zero1, zero2, full_shard, shard_grad_op, hybrid_shard };

// The strategies as a family registry (name, label, description), as sgdsim list shows them.
struct ShardingEntry : Declaration {
  ShardingStrategy strategy = ShardingStrategy::full_shard;
};
const Registry<ShardingEntry>& sharding_registry();
const ShardingEntry& strategy_info(ShardingStrategy strategy);

// A segment of the forward pass: consecutive layers of one unit (or of the root).
struct ShardSegment {
  int unit = -1;  // index into ShardedModel::units; -1 for the root
  Time forward;
  Time backward;
};

struct ShardUnit {
  std::string name;           // the layers' common prefix, or the first layer's name
  std::int64_t elements = 0;  // parameters (gradient elements)
};

// The trace cut into units. `segments` are in forward order; every unit's layers are contiguous.
struct ShardedModel {
  std::vector<ShardUnit> units;    // forward order
  std::int64_t root_elements = 0;  // parameters of the layers in no unit
  std::vector<ShardSegment> segments;
  Time optimizer;  // the whole model's optimizer step on one GPU
  // The framework's per-step work, added to the first segment's forward in the first pass.
  Time step_overhead;
  std::int64_t elements() const;
};

// How units are found: "blocks" (the shortest dotted prefix of a layer's name that ends in a
// number: transformer.h.7, bert.encoder.layer.3, layer2.1), "layers" (every layer with
// parameters is its own unit), "repeats" (for traces named by operator, as profiler imports
// are: the longest run of back-to-back copies of a sequence of layers, matched by kind, the name
// without its "_<number>", and parameter count, gives a unit per copy; then the same before and
// after that run), or explicit prefixes (each prefix one unit; the layers under no prefix form
// the root). `where` names the setting in errors.
ShardedModel shard_units(const Workload& workload, const std::string& mode,
                         const std::vector<std::string>& prefixes, const std::string& where);
// The modes above by name: "blocks", "layers", "repeats".
const std::vector<std::string>& unit_modes();

struct ShardingSettings {
  ShardingStrategy strategy = ShardingStrategy::full_shard;
  int group_gpus = 0;  // HYBRID_SHARD's shard group (the others shard over all N)
  int gpus = 0;        // N
  int forward_prefetch = 1;
  int backward_prefetch = 1;
  int gathered_limit = 2;  // L; 0: no limit
  int parameter_bytes = 4;
  double optimizer_state_bytes = 8.0;                    // K per parameter
  std::int64_t reduce_bucket_elements = 500'000'000;     // DeepSpeed's reduce_bucket_size
  std::int64_t allgather_bucket_elements = 500'000'000;  // DeepSpeed's allgather_bucket_size
  int passes = 1;        // forward and backward passes per optimizer step (accumulation)
  bool no_sync = false;  // FSDP: reduce-scatter only in the last pass (FSDP.no_sync)
  // Compute runs at 1 / this while a collective holds the stream (compute.overlap_slowdown;
  // iteration_simulation.hpp's SlowedCompute).
  double overlap_slowdown = 1.0;
};

// ZeRO-1 and ZeRO-2: parameters replicated, collectives on buckets rather than units.
bool moves_buckets(ShardingStrategy strategy);

// communication.sharding.accumulation's values: "sync_every_pass" (the default), "no_sync".
const std::vector<std::string>& accumulation_modes();
// Whether every pass of an accumulated step reduces its gradients (else only the last): FSDP
// unless no_sync, ZeRO-2 always, ZeRO-1 never (DeepSpeed's engine, allreduce_gradients).
bool reduces_every_pass(const ShardingSettings& settings);
// FSDP under no_sync with several passes: whole gradients kept until the last pass.
bool accumulates_unsharded(const ShardingSettings& settings);

// G: the GPUs one parameter is sharded over (group_gpus for HYBRID_SHARD, else all N).
int shard_group(const ShardingSettings& settings);

// Where a collective's time goes; also the timeline's tracks.
enum class ShardPhase {
  forward_allgather,
  backward_allgather,
  reduce_scatter,
  replica_allreduce,
  step_allgather
};
inline constexpr int shard_phases = 5;
std::string_view phase_name(ShardPhase phase);

struct ShardMemory {
  double parameters = 0.0;  // bytes per GPU at rest
  double gradients = 0.0;
  double optimizer = 0.0;
  double peak = 0.0;  // at rest plus what is gathered at once
  double at_rest() const { return parameters + gradients + optimizer; }
};
ShardMemory sharding_memory(const ShardedModel& model, const ShardingSettings& settings);
// Replicated data parallelism (DDP), for comparison.
ShardMemory replicated_memory(const ShardedModel& model, const ShardingSettings& settings);

// The collectives a schedule uses: reduce-scatter and allgather over a shard group, and (for
// HYBRID_SHARD) an allreduce across replicas. Each must outlive the simulation.
struct ShardingCollectives {
  const Collective* group = nullptr;     // plays Shards
  const Collective* replicas = nullptr;  // HYBRID_SHARD only
};

struct ShardOperation {
  ShardPhase phase;
  int unit;  // -1: the root; for bucketed phases, the bucket's index
  Bytes bytes;
  Time start;
  Time end;
};

struct ShardComputeSpan {
  int unit;  // -1: the root or the optimizer step
  bool backward;
  bool step;
  Time start;
  Time end;
};

struct ShardedIteration {
  Time start;
  Time end;
  std::vector<ShardComputeSpan> compute;
  std::vector<ShardOperation> operations;
  Time duration() const { return end - start; }
};

struct ShardingResult {
  ShardedIteration last;  // the last iteration, in full
  Time total;             // of every iteration
  std::int64_t count = 0;
  // Per phase, means per iteration: time on the stream, and the part of it compute waited for.
  std::array<Time, shard_phases> busy{};
  std::array<Time, shard_phases> exposed{};
  std::array<double, shard_phases> bytes_sent{};  // per GPU per iteration
  Time mean_iteration() const;
  // The same, summed over the phases.
  Time total_busy() const;
  Time total_exposed() const;
  double total_bytes_sent() const;
};

// `draw`, where given, fills each rank's compute factor for the next iteration (per_rank
// fidelity: every rank's own timeline, and each collective waits for the last rank to issue
// it); without it one rank with factor 1 stands for all (analytic fidelity). Exposure is the
// mean over ranks.
ShardingResult simulate_sharding(const ShardedModel& model, const ShardingSettings& settings,
                                 const ShardingCollectives& collectives, int iterations,
                                 const std::function<void(std::vector<double>&)>& draw = {});

}  // namespace sgdsim
