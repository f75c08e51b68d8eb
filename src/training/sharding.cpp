// Sharded data parallelism: units, memory, and the iteration schedule (the header states the
// model).
#include "sgdsim/training/sharding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <numeric>
#include <optional>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/iteration_simulation.hpp"

namespace sgdsim {

namespace {

ShardingEntry strategy_entry(ShardingStrategy strategy, std::string name, std::string label,
                             std::string description) {
  ShardingEntry entry;
  entry.strategy = strategy;
  entry.name = std::move(name);
  entry.label = std::move(label);
  entry.description = std::move(description);
  return entry;
}

}  // namespace

const Registry<ShardingEntry>& sharding_registry() {
  static const Registry<ShardingEntry> registry(
      "sharding strategy",
      {strategy_entry(
           ShardingStrategy::zero1, "zero1", "ZeRO-1",
           "DeepSpeed ZeRO stage 1: optimizer state sharded; gradients reduce-scattered in "
           "buckets during backward, updated parameters allgathered after the step"),
       strategy_entry(ShardingStrategy::zero2, "zero2", "ZeRO-2",
                      "DeepSpeed ZeRO stage 2: optimizer state and gradients sharded; "
                      "communicates as ZeRO-1"),
       strategy_entry(ShardingStrategy::full_shard, "full_shard", "FULL_SHARD",
                      "FSDP FULL_SHARD, ZeRO-3: parameters sharded, allgathered before each "
                      "unit's forward and again before its backward, gradients reduce-scattered "
                      "after it"),
       strategy_entry(ShardingStrategy::shard_grad_op, "shard_grad_op", "SHARD_GRAD_OP",
                      "FSDP SHARD_GRAD_OP: parameters allgathered before each unit's forward and "
                      "kept through backward, gradients reduce-scattered"),
       strategy_entry(ShardingStrategy::hybrid_shard, "hybrid_shard", "HYBRID_SHARD",
                      "FSDP HYBRID_SHARD (HSDP): FULL_SHARD inside groups of group_gpus, each "
                      "unit's gradient shard allreduced across the replicas")});
  return registry;
}

const ShardingEntry& strategy_info(ShardingStrategy strategy) {
  for (const ShardingEntry& entry : sharding_registry().entries()) {
    if (entry.strategy == strategy) return entry;
  }
  throw InvariantError("a sharding strategy without its entry");
}

std::string_view phase_name(ShardPhase phase) {
  switch (phase) {
    case ShardPhase::forward_allgather: return "forward allgather";
    case ShardPhase::backward_allgather: return "backward allgather";
    case ShardPhase::reduce_scatter: return "reduce-scatter";
    case ShardPhase::replica_allreduce: return "replica allreduce";
    case ShardPhase::step_allgather: return "allgather after step";
  }
  return "";
}

std::int64_t ShardedModel::elements() const {
  std::int64_t total = root_elements;
  for (const ShardUnit& unit : units) total += unit.elements;
  return total;
}

namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// The shortest dotted prefix ending in a number ("transformer.h.7" of
// "transformer.h.7.attn.c_attn"), or "" where there is none.
std::string block_of(const std::string& name) {
  std::size_t begin = 0;
  while (begin <= name.size()) {
    const std::size_t dot = name.find('.', begin);
    const std::size_t end = dot == std::string::npos ? name.size() : dot;
    if (all_digits(std::string_view(name).substr(begin, end - begin))) return name.substr(0, end);
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  return "";
}

// A layer's kind for repeat detection: its name without a trailing "_<number>" (profiler
// imports number operators and modules: "addmm_12", "Conv1D_3").
std::string_view kind_of(std::string_view name) {
  const std::size_t underscore = name.rfind('_');
  if (underscore != std::string_view::npos && all_digits(name.substr(underscore + 1))) {
    return name.substr(0, underscore);
  }
  return name;
}

// A run of `repeats` back-to-back copies of `period` layers from `first`.
struct Repeat {
  std::size_t first = 0;
  std::size_t period = 0;
  std::size_t repeats = 0;
  std::size_t covered() const { return period * repeats; }
};

// The periodic run that covers most of [begin, end) (ties: the shorter period, then the earlier
// start), two copies at least; layers match when kind and parameter count agree.
std::optional<Repeat> longest_repeat(const std::vector<std::string_view>& kinds,
                                     const std::vector<std::int64_t>& elements, std::size_t begin,
                                     std::size_t end) {
  std::optional<Repeat> best;
  const auto same = [&](std::size_t i, std::size_t j) {
    return kinds[i] == kinds[j] && elements[i] == elements[j];
  };
  for (std::size_t period = 2; 2 * period <= end - begin; ++period) {
    std::size_t run = 0;  // layers i with layer i matching layer i + period, ending here
    for (std::size_t i = begin; i + period <= end; ++i) {
      const bool last = i + period == end;
      if (!last && same(i, i + period)) {
        ++run;
        continue;
      }
      // A run of `run` matches from i - run: layers [i - run, i + period) repeat.
      const Repeat found{i - run, period, (run + period) / period};
      if (found.repeats >= 2 && (!best || found.covered() > best->covered())) best = found;
      run = 0;
    }
  }
  return best;
}

// Units as repeated runs of layers, for traces whose names carry no blocks (profiler imports):
// the longest periodic run of kinds and sizes gives a unit per copy (a transformer block), then
// the same on what lies before and after it (a ResNet stage's identical blocks). Each
// parameterised layer's unit name, "" for the root.
std::vector<std::string> repeat_units(const Workload& workload) {
  std::vector<std::size_t> index;  // the layers with parameters
  std::vector<std::string_view> kinds;
  std::vector<std::int64_t> elements;
  for (std::size_t i = 0; i < workload.layers.size(); ++i) {
    const std::int64_t count = gradient_elements(workload.layers[i]);
    if (count == 0) continue;
    index.push_back(i);
    kinds.push_back(kind_of(workload.layers[i].name));
    elements.push_back(count);
  }
  std::vector<std::string> names(workload.layers.size());
  std::vector<std::pair<std::size_t, std::size_t>> open{{0, index.size()}};
  while (!open.empty()) {
    const auto [begin, end] = open.back();
    open.pop_back();
    const std::optional<Repeat> repeat = longest_repeat(kinds, elements, begin, end);
    if (!repeat) continue;
    for (std::size_t copy = 0; copy < repeat->repeats; ++copy) {
      const std::size_t first = repeat->first + copy * repeat->period;
      for (std::size_t k = first; k < first + repeat->period; ++k) {
        names[index[k]] = workload.layers[index[first]].name;
      }
    }
    open.emplace_back(begin, repeat->first);
    open.emplace_back(repeat->first + repeat->covered(), end);
  }
  return names;
}

bool under(const std::string& name, const std::string& prefix) {
  return name == prefix ||
         (name.size() > prefix.size() && name.starts_with(prefix) && name[prefix.size()] == '.');
}

}  // namespace

ShardedModel shard_units(const Workload& workload, const std::string& mode,
                         const std::vector<std::string>& prefixes, const std::string& where) {
  // Each layer's unit name ("" for the root).
  std::vector<std::string> names;
  if (prefixes.empty() && mode == "repeats") {
    names = repeat_units(workload);
  } else {
    for (const Layer& layer : workload.layers) {
      std::string unit;
      if (gradient_elements(layer) > 0) {
        if (!prefixes.empty()) {
          for (const std::string& prefix : prefixes) {
            if (under(layer.name, prefix)) {
              unit = prefix;
              break;
            }
          }
        } else if (mode == "layers") {
          unit = layer.name;
        } else {
          unit = block_of(layer.name);
        }
      }
      names.push_back(unit);
    }
  }
  ShardedModel model;
  model.optimizer = workload.optimizer;
  std::map<std::string, int> seen;
  std::string open;  // the unit whose layers are being read
  for (std::size_t i = 0; i < workload.layers.size(); ++i) {
    const Layer& layer = workload.layers[i];
    const std::string& name = names[i];
    int unit = -1;
    if (!name.empty()) {
      const auto found = seen.find(name);
      if (found == seen.end()) {
        unit = static_cast<int>(model.units.size());
        seen.emplace(name, unit);
        model.units.push_back({name, 0});
      } else {
        unit = found->second;
        if (open != name) {
          throw InputError(fmt::format(
              "{}: unit \"{}\" has layers apart from each other in forward order (\"{}\" comes "
              "after other units' layers): a unit is one flat parameter gathered once; name "
              "prefixes whose layers are contiguous",
              where, name, layer.name));
        }
      }
      model.units[static_cast<std::size_t>(unit)].elements += gradient_elements(layer);
      open = name;
    } else {
      model.root_elements += gradient_elements(layer);
      // Layers without parameters keep the open unit open (a block's activations, dropout).
      if (gradient_elements(layer) > 0) open.clear();
    }
    // Layers without parameters belong to the segment they sit in.
    const int segment_unit =
        name.empty() && gradient_elements(layer) == 0 && !model.segments.empty()
            ? model.segments.back().unit
            : unit;
    if (model.segments.empty() || model.segments.back().unit != segment_unit) {
      model.segments.push_back({segment_unit, Time::zero(), Time::zero()});
    }
    model.segments.back().forward += layer.forward;
    model.segments.back().backward += layer.backward;
  }
  for (const std::string& prefix : prefixes) {
    if (!seen.contains(prefix)) {
      throw InputError(fmt::format("{}: no layer with parameters is named \"{}\" or \"{}.*\"",
                                   where, prefix, prefix));
    }
  }
  if (model.units.empty()) {
    throw InputError(fmt::format(
        "{}: no unit found in the trace's {} layers ({}): give the units as layer-name "
        "prefixes, e.g. [\"layer1\", \"layer2\"], or \"repeats\" for a trace whose layers "
        "are named by operator (a profiler import)",
        where, workload.layers.size(),
        prefixes.empty() ? fmt::format("\"{}\" finds none", mode)
                         : std::string("no layer with parameters is under the prefixes")));
  }
  return model;
}

namespace {

std::int64_t largest_unit(const ShardedModel& model) {
  std::int64_t largest = 0;
  for (const ShardUnit& unit : model.units) largest = std::max(largest, unit.elements);
  return largest;
}

// Units gathered at once: the computing one and those prefetched, within the limit.
int effective_prefetch(int prefetch, int limit) {
  return limit > 0 ? std::min(prefetch, limit - 1) : prefetch;
}

}  // namespace

bool moves_buckets(ShardingStrategy strategy) {
  return strategy == ShardingStrategy::zero1 || strategy == ShardingStrategy::zero2;
}

const std::vector<std::string>& unit_modes() {
  static const std::vector<std::string> modes{"blocks", "layers", "repeats"};
  return modes;
}

const std::vector<std::string>& accumulation_modes() {
  static const std::vector<std::string> modes{"sync_every_pass", "no_sync"};
  return modes;
}

bool reduces_every_pass(const ShardingSettings& settings) {
  switch (settings.strategy) {
    case ShardingStrategy::zero1: return false;
    case ShardingStrategy::zero2: return true;
    default: return !settings.no_sync;
  }
}

bool accumulates_unsharded(const ShardingSettings& settings) {
  return settings.passes > 1 && !reduces_every_pass(settings) && !moves_buckets(settings.strategy);
}

int shard_group(const ShardingSettings& settings) {
  return settings.strategy == ShardingStrategy::hybrid_shard ? settings.group_gpus : settings.gpus;
}

ShardMemory replicated_memory(const ShardedModel& model, const ShardingSettings& settings) {
  const auto psi = static_cast<double>(model.elements());
  const double p = settings.parameter_bytes;
  ShardMemory memory{p * psi, p * psi, settings.optimizer_state_bytes * psi, 0.0};
  memory.peak = memory.at_rest();
  return memory;
}

ShardMemory sharding_memory(const ShardedModel& model, const ShardingSettings& settings) {
  const auto psi = static_cast<double>(model.elements());
  const double p = settings.parameter_bytes;
  const double k = settings.optimizer_state_bytes;
  const double g = shard_group(settings);
  ShardMemory memory;
  switch (settings.strategy) {
    case ShardingStrategy::zero1:
      memory = {p * psi, p * psi, k * psi / g, 0.0};
      memory.peak = memory.at_rest();
      break;
    case ShardingStrategy::zero2:
      // The full gradient of one bucket lives until it is reduce-scattered.
      memory = {p * psi, p * psi / g, k * psi / g, 0.0};
      memory.peak = memory.at_rest() + p * static_cast<double>(std::min(
                                               settings.reduce_bucket_elements, model.elements()));
      break;
    case ShardingStrategy::full_shard:
    case ShardingStrategy::hybrid_shard:
    case ShardingStrategy::shard_grad_op: {
      // no_sync keeps the whole gradient, unsharded, from pass to pass.
      const double gradients = accumulates_unsharded(settings) ? p * psi : p * psi / g;
      memory = {p * psi / g, gradients, k * psi / g, 0.0};
      const auto largest = static_cast<double>(largest_unit(model));
      const auto root = static_cast<double>(model.root_elements);
      const auto units = static_cast<double>(model.units.size());
      // Full parameters gathered on top of the shards, and the gradient of the unit being
      // reduce-scattered, whole before it is.
      double gathered = root;
      if (settings.strategy == ShardingStrategy::shard_grad_op) {
        gathered = psi;
      } else {
        const int prefetch =
            effective_prefetch(std::max(settings.forward_prefetch, settings.backward_prefetch),
                               settings.gathered_limit);
        gathered += std::min(units, prefetch + 1.0) * largest;
      }
      const double unit_gradient = accumulates_unsharded(settings) ? 0.0 : p * (largest + root);
      memory.peak = memory.at_rest() + p * (gathered * (g - 1.0) / g) + unit_gradient;
      break;
    }
  }
  return memory;
}

Time ShardingResult::mean_iteration() const {
  return count > 0 ? Time::from_ps(total.ps() / count) : Time::zero();
}

Time ShardingResult::total_busy() const {
  return std::accumulate(busy.begin(), busy.end(), Time::zero());
}

Time ShardingResult::total_exposed() const {
  return std::accumulate(exposed.begin(), exposed.end(), Time::zero());
}

double ShardingResult::total_bytes_sent() const {
  return std::accumulate(bytes_sent.begin(), bytes_sent.end(), 0.0);
}

namespace {

// A time a rank's compute waited.
struct Gap {
  Time from;
  Time to;
};

// One iteration of a schedule on R ranks. Compute items and collectives are added in the order
// every rank issues them, so the order they are added in is the stream's FIFO order.
class IterationBuilder {
 public:
  IterationBuilder(const ShardingCollectives& collectives, const std::vector<Time>& start,
                   const std::vector<double>& factor, double overlap_slowdown,
                   ShardedIteration& out, std::vector<Gap>& gaps)
      : collectives_(collectives),
        factor_(factor),
        free_(start),
        slowed_(overlap_slowdown),
        out_(out),
        gaps_(gaps) {}

  std::size_t ranks() const { return free_.size(); }

  // A collective issued on rank r at issue[r]: it starts once every rank has issued it and the
  // stream is free. Returns its index.
  std::size_t collective(ShardPhase phase, int unit, Bytes bytes, const std::vector<Time>& issue) {
    Time latest = stream_free_;
    for (const Time at : issue) latest = std::max(latest, at);
    const Time end = latest + cost_of(phase, bytes);
    out_.operations.push_back({phase, unit, bytes, latest, end});
    slowed_.busy(latest, end);
    stream_free_ = end;
    return out_.operations.size() - 1;
  }

  Time end_of(std::size_t operation) const { return out_.operations[operation].end; }

  // When each rank could begin its next compute item, given that it waits for `after`.
  std::vector<Time> begins(std::optional<std::size_t> after) const {
    std::vector<Time> at = free_;
    if (after) {
      for (Time& t : at) t = std::max(t, end_of(*after));
    }
    return at;
  }

  // A compute item of `base` (scaled per rank) after `after`; the wait before it is a gap. It
  // runs slowed through the stream's busy spans, all of them known by now (the header).
  void compute(int unit, bool backward, bool step, Time base, std::optional<std::size_t> after) {
    const std::vector<Time> begin = begins(after);
    for (std::size_t r = 0; r < ranks(); ++r) {
      gap(free_[r], begin[r]);
      const Time work = base.scaled(factor_.empty() ? 1.0 : factor_[r]);
      free_[r] = slowed_.finish(begin[r], work);
    }
    out_.compute.push_back({unit, backward, step, begin[0], free_[0]});
  }

  // Every rank waits for the stream to drain.
  void drain() {
    for (std::size_t r = 0; r < ranks(); ++r) {
      const Time end = std::max(free_[r], stream_free_);
      gap(free_[r], end);
      free_[r] = end;
    }
  }

  const std::vector<Time>& free() const { return free_; }

 private:
  Time cost_of(ShardPhase phase, Bytes bytes) const {
    switch (phase) {
      case ShardPhase::forward_allgather:
      case ShardPhase::backward_allgather:
      case ShardPhase::step_allgather:
        return collectives_.group->shards()->shard_time(ShardOp::allgather, bytes);
      case ShardPhase::reduce_scatter:
        return collectives_.group->shards()->shard_time(ShardOp::reduce_scatter, bytes);
      case ShardPhase::replica_allreduce: return collectives_.replicas->time(bytes);
    }
    return Time::zero();
  }

  // A rank's compute stream idles from `from` to `to`.
  void gap(Time from, Time to) {
    if (to > from) gaps_.push_back({from, to});
  }

  const ShardingCollectives& collectives_;
  const std::vector<double>& factor_;
  std::vector<Time> free_;  // each rank's compute stream is free from
  Time stream_free_;
  SlowedCompute slowed_;  // the stream's busy spans, one clock for every rank
  ShardedIteration& out_;
  std::vector<Gap>& gaps_;  // every rank's
};

Bytes bytes_of(std::int64_t elements, const ShardingSettings& settings) {
  return Bytes(elements * settings.parameter_bytes);
}

// A segment's forward in a pass, with the step's framework work before the first.
Time forward_time(const ShardedModel& model, const ShardSegment& segment, int pass) {
  const bool first = pass == 0 && &segment == &model.segments.front();
  return first ? segment.forward + model.step_overhead : segment.forward;
}

// One forward and backward pass of FULL_SHARD, SHARD_GRAD_OP or HYBRID_SHARD (the header's
// schedule); `reduce_gradients`: whether its gradients are reduce-scattered.
void fsdp_pass(const ShardedModel& model, const ShardingSettings& settings, int pass,
               bool reduce_gradients, IterationBuilder& b) {
  const bool regather = settings.strategy != ShardingStrategy::shard_grad_op;
  const bool hybrid = settings.strategy == ShardingStrategy::hybrid_shard;
  const int units = static_cast<int>(model.units.size());
  const int p = effective_prefetch(settings.forward_prefetch, settings.gathered_limit);
  const int q = effective_prefetch(settings.backward_prefetch, settings.gathered_limit);
  const auto unit_bytes = [&](int u) {
    return bytes_of(model.units[static_cast<std::size_t>(u)].elements, settings);
  };
  std::optional<std::size_t> root;
  if (model.root_elements > 0) {
    root = b.collective(ShardPhase::forward_allgather, -1, bytes_of(model.root_elements, settings),
                        b.free());
  }
  // Forward: allgathers of units [0, upto], in order.
  std::vector<std::size_t> gathered(static_cast<std::size_t>(units));
  int issued = 0;
  const auto gather_forward = [&](int upto, const std::vector<Time>& when) {
    for (; issued <= std::min(upto, units - 1); ++issued) {
      gathered[static_cast<std::size_t>(issued)] =
          b.collective(ShardPhase::forward_allgather, issued, unit_bytes(issued), when);
    }
  };
  gather_forward(p - 1, b.free());
  for (const ShardSegment& segment : model.segments) {
    const Time forward = forward_time(model, segment, pass);
    if (segment.unit < 0) {
      b.compute(-1, false, false, forward, root);
      continue;
    }
    gather_forward(segment.unit, b.free());  // not prefetched: issued as it is needed
    const std::size_t own = gathered[static_cast<std::size_t>(segment.unit)];
    gather_forward(segment.unit + p, b.begins(own));
    b.compute(segment.unit, false, false, forward, own);
  }
  // Backward: allgathers of units [downto, units), last unit first.
  std::vector<std::size_t> regathered(static_cast<std::size_t>(units));
  int lowest = units;
  const auto gather_backward = [&](int downto, const std::vector<Time>& when) {
    for (; lowest > std::max(downto, 0); --lowest) {
      const int u = lowest - 1;
      regathered[static_cast<std::size_t>(u)] =
          b.collective(ShardPhase::backward_allgather, u, unit_bytes(u), when);
    }
  };
  const auto reduce = [&](int u, Bytes bytes) {
    if (!reduce_gradients) return;
    const std::vector<Time> when = b.free();
    b.collective(ShardPhase::reduce_scatter, u, bytes, when);
    if (hybrid) {
      b.collective(ShardPhase::replica_allreduce, u, Bytes(bytes.count() / settings.group_gpus),
                   when);
    }
  };
  if (regather) gather_backward(units - q, b.free());
  for (auto segment = model.segments.rbegin(); segment != model.segments.rend(); ++segment) {
    if (segment->unit < 0) {
      b.compute(-1, true, false, segment->backward, std::nullopt);
      continue;
    }
    const int u = segment->unit;
    std::optional<std::size_t> own;
    if (regather) {
      gather_backward(u, b.free());
      own = regathered[static_cast<std::size_t>(u)];
      gather_backward(u - q, b.begins(own));
    }
    b.compute(u, true, false, segment->backward, own);
    reduce(u, unit_bytes(u));
  }
  if (model.root_elements > 0) reduce(-1, bytes_of(model.root_elements, settings));
}

// FULL_SHARD, SHARD_GRAD_OP and HYBRID_SHARD: the passes, then the optimizer step on 1/G.
void fsdp_iteration(const ShardedModel& model, const ShardingSettings& settings,
                    IterationBuilder& b) {
  for (int pass = 0; pass < settings.passes; ++pass) {
    fsdp_pass(model, settings, pass, pass + 1 == settings.passes || reduces_every_pass(settings),
              b);
  }
  b.drain();
  b.compute(-1, false, true, Time::from_ps(model.optimizer.ps() / shard_group(settings)),
            std::nullopt);
}

// A pass of ZeRO-1 or ZeRO-2; when `reduce_gradients`, buckets reduce-scattered as backward fills
// them. `bucket` numbers the buckets across the iteration.
void zero_pass(const ShardedModel& model, const ShardingSettings& settings, int pass,
               bool reduce_gradients, int& bucket, IterationBuilder& b) {
  for (const ShardSegment& segment : model.segments) {
    b.compute(segment.unit, false, false, forward_time(model, segment, pass), std::nullopt);
  }
  std::int64_t filled = 0;
  const auto reduce = [&] {
    b.collective(ShardPhase::reduce_scatter, bucket++, bytes_of(filled, settings), b.free());
    filled = 0;
  };
  // A segment's parameters: its unit's, or for root segments an even share of the root's.
  std::size_t root_segments = 0;
  for (const ShardSegment& segment : model.segments) root_segments += segment.unit < 0 ? 1 : 0;
  std::int64_t root_left = model.root_elements;
  for (auto segment = model.segments.rbegin(); segment != model.segments.rend(); ++segment) {
    b.compute(segment->unit, true, false, segment->backward, std::nullopt);
    if (segment->unit >= 0) {
      filled += model.units[static_cast<std::size_t>(segment->unit)].elements;
    } else {
      const std::int64_t share = root_left / static_cast<std::int64_t>(root_segments--);
      filled += share;
      root_left -= share;
    }
    if (reduce_gradients && filled >= settings.reduce_bucket_elements) reduce();
  }
  if (reduce_gradients && filled > 0) reduce();
}

// ZeRO-1 and ZeRO-2 (DeepSpeed): buckets reduce-scattered as backward fills them, the step on
// 1/N, the updated parameters allgathered in buckets before the next forward.
void zero_iteration(const ShardedModel& model, const ShardingSettings& settings,
                    IterationBuilder& b) {
  int bucket = 0;
  for (int pass = 0; pass < settings.passes; ++pass) {
    zero_pass(model, settings, pass, pass + 1 == settings.passes || reduces_every_pass(settings),
              bucket, b);
  }
  b.drain();
  b.compute(-1, false, true, Time::from_ps(model.optimizer.ps() / settings.gpus), std::nullopt);
  for (std::int64_t left = model.elements(); left > 0;) {
    const std::int64_t part = std::min(left, settings.allgather_bucket_elements);
    b.collective(ShardPhase::step_allgather, bucket++, bytes_of(part, settings), b.free());
    left -= part;
  }
  b.drain();
}

// The time compute waited while each phase held the stream, summed over ranks.
void add_exposure(const ShardedIteration& iteration, const std::vector<Gap>& gaps,
                  std::array<Time, shard_phases>& exposed) {
  const std::vector<ShardOperation>& ops = iteration.operations;
  for (const Gap& gap : gaps) {
    // Operations are disjoint and in order: the first that ends after the gap begins.
    auto op = std::partition_point(ops.begin(), ops.end(),
                                   [&gap](const ShardOperation& o) { return o.end <= gap.from; });
    for (; op != ops.end() && op->start < gap.to; ++op) {
      const Time overlap = std::min(gap.to, op->end) - std::max(gap.from, op->start);
      if (overlap > Time::zero()) exposed[static_cast<std::size_t>(op->phase)] += overlap;
    }
  }
}

}  // namespace

ShardingResult simulate_sharding(const ShardedModel& model, const ShardingSettings& settings,
                                 const ShardingCollectives& collectives, int iterations,
                                 const std::function<void(std::vector<double>&)>& draw) {
  SGDSIM_ASSERT(iterations >= 1 && settings.gpus >= 1 && collectives.group != nullptr &&
                    collectives.group->shards() != nullptr,
                "a sharded simulation needs iterations, GPUs and a collective with shards");
  SGDSIM_ASSERT(
      settings.strategy != ShardingStrategy::hybrid_shard || collectives.replicas != nullptr,
      "HYBRID_SHARD needs the replicas' allreduce");
  ShardingResult result;
  std::vector<double> factor;
  std::vector<Time> start(1, Time::zero());
  std::vector<Gap> gaps;
  std::array<Time, shard_phases> busy{};
  std::array<Time, shard_phases> exposed{};
  std::array<double, shard_phases> sent{};
  const Shards& shards = *collectives.group->shards();
  for (int i = 0; i < iterations; ++i) {
    if (draw) {
      draw(factor);
      if (start.size() != factor.size()) start.assign(factor.size(), start.front());
    }
    ShardedIteration iteration;
    iteration.start = *std::max_element(start.begin(), start.end());
    gaps.clear();
    IterationBuilder builder(collectives, start, factor, settings.overlap_slowdown, iteration,
                             gaps);
    if (moves_buckets(settings.strategy)) {
      zero_iteration(model, settings, builder);
    } else {
      fsdp_iteration(model, settings, builder);
    }
    start = builder.free();
    iteration.end = *std::max_element(start.begin(), start.end());
    add_exposure(iteration, gaps, exposed);
    for (const ShardOperation& op : iteration.operations) {
      const auto phase = static_cast<std::size_t>(op.phase);
      busy[phase] += op.end - op.start;
      switch (op.phase) {
        case ShardPhase::reduce_scatter:
          sent[phase] += shards.shard_bytes_sent_per_rank(ShardOp::reduce_scatter, op.bytes);
          break;
        case ShardPhase::replica_allreduce:
          sent[phase] += collectives.replicas->bytes_sent_per_rank(op.bytes);
          break;
        default: sent[phase] += shards.shard_bytes_sent_per_rank(ShardOp::allgather, op.bytes);
      }
    }
    result.total += iteration.duration();
    ++result.count;
    if (i + 1 == iterations) result.last = std::move(iteration);
  }
  const auto ranks = static_cast<std::int64_t>(start.size());
  for (std::size_t phase = 0; phase < shard_phases; ++phase) {
    result.busy[phase] = Time::from_ps(busy[phase].ps() / iterations);
    result.exposed[phase] = Time::from_ps(exposed[phase].ps() / (ranks * iterations));
    result.bytes_sent[phase] = sent[phase] / iterations;
  }
  return result;
}

}  // namespace sgdsim
