// PyTorch profiler (Kineto) Chrome traces to workloads.
//
// The attribution uses the profile's own links:
//   GPU activity -> its launch on the host (the "correlation" id) -> the outermost operator
//   running on that thread at that moment (a "top" operator);
//   backward operator -> its forward operator (the "fwdbwd" flow, else the sequence number);
//   gradient tensor -> the AccumulateGrad that stores it, which the autograd engine runs right
//   after the backward operator that produced it (AccumulateGrad nodes have the highest
//   priority), so the tensor belongs to that operator's forward layer;
//   forward operator -> its layer: the innermost nn.Module frame around it when the profile has
//   module frames (with_stack), else the operator that consumes a parameter and the operators
//   after it up to the next such operator.
// A gradient is ready when the last GPU activity launched before its AccumulateGrad finished
// has run: the GPU runs a stream in launch order.
#include "sgdsim/trace_io/kineto_profile.hpp"
#include "sgdsim/trace_io/importer_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"
#include "sgdsim/jsonio/json_reader.hpp"

namespace sgdsim {

namespace {

constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
constexpr std::string_view backward_prefix = "autograd::engine::evaluate_function: ";
constexpr std::string_view accumulate_grad = "torch::autograd::AccumulateGrad";
// Timestamps are microseconds as doubles near 5e12: their resolution there is about 1 ns.
constexpr double epsilon_us = 0.002;
constexpr double max_event_us = 86400e6;  // one day
// The largest tensor or collective an sgdsim trace holds (trace_reader.cpp), in elements.
constexpr std::int64_t max_elements = std::int64_t{1} << 40;

using Shape = std::vector<std::int64_t>;

// A host-side event with a duration: annotations (ProfilerStep#N, Optimizer.step#...,
// nccl:all_reduce), nn.Module frames, and the operators (CpuOp).
struct Span {
  double start = 0.0;
  double end = 0.0;
  std::int64_t tid = 0;
  std::string name;
  std::vector<Shape> dims;  // "Input Dims", when recorded (has_dims)
  std::vector<std::string> types;
  bool has_dims = false;
};

struct CpuOp : Span {
  std::optional<std::int64_t> sequence;
  std::size_t top = none;  // the outermost operator around it on its thread (itself if top)
};

struct GpuActivity {
  double start = 0.0;
  double end = 0.0;
  std::int64_t correlation = -1;
  bool collective = false;  // an NCCL kernel: communication, not compute
};

struct Launch {
  std::int64_t tid = 0;
  double time = 0.0;
};

struct Flow {
  std::optional<Launch> forward;   // "s": the forward operator
  std::optional<Launch> backward;  // "f": the backward operator
};

struct Profile {
  std::string source;
  std::string gpu;
  std::string cuda;
  std::vector<CpuOp> ops;  // sorted by thread, start, longest first
  std::vector<GpuActivity> activities;
  std::unordered_map<std::int64_t, Launch> launches;  // by correlation id
  std::vector<Span> annotations;
  std::vector<Span> modules;  // sorted by start
  std::map<std::int64_t, Flow> flows;
  std::map<std::int64_t, std::vector<std::size_t>> tops;  // thread -> top operators by start
  // For a top operator, one past the last operator inside it: ops are sorted so that those
  // inside a top operator follow it, [top, past[top]).
  std::vector<std::size_t> past;
};

// ---- reading --------------------------------------------------------------------------------

std::optional<double> number(const nlohmann::json& event, const char* key) {
  const auto found = event.find(key);
  if (found == event.end() || !found->is_number()) return std::nullopt;
  const double value = found->get<double>();
  return std::isfinite(value) ? std::optional(value) : std::nullopt;
}

std::int64_t thread_of(const nlohmann::json& event) {
  const auto found = event.find("tid");
  if (found != event.end() && found->is_number_integer()) return found->get<std::int64_t>();
  if (found != event.end() && found->is_string())
    return static_cast<std::int64_t>(std::hash<std::string>{}(found->get<std::string>()) >> 2);
  return -1;
}

std::optional<std::int64_t> integer_arg(const nlohmann::json& args, const char* key) {
  const auto found = args.find(key);
  if (found == args.end() || !found->is_number_integer()) return std::nullopt;
  return found->get<std::int64_t>();
}

// The span of an "X" event; its "Input Dims" (one shape per input, [] for a scalar or a
// non-tensor) and "Input type" when recorded.
Span read_span(const nlohmann::json& event, const nlohmann::json& args, double start, double end,
               std::string name) {
  Span span{start, end, thread_of(event), std::move(name), {}, {}, false};
  std::vector<Shape>& dims = span.dims;
  std::vector<std::string>& types = span.types;
  const auto found = args.find("Input Dims");
  if (found == args.end() || !found->is_array()) return span;
  span.has_dims = true;
  for (const nlohmann::json& input : *found) {
    Shape shape;
    if (input.is_array()) {
      for (const nlohmann::json& extent : input) {
        if (extent.is_number_integer()) shape.push_back(extent.get<std::int64_t>());
      }
    }
    dims.push_back(std::move(shape));
  }
  const auto type = args.find("Input type");
  if (type != args.end() && type->is_array()) {
    for (const nlohmann::json& name : *type) types.push_back(name.is_string() ? name : "");
  }
  return span;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

Profile read_profile(const std::filesystem::path& path) {
  Profile profile;
  profile.source = path.string();
  const jsonio::Document document = jsonio::parse_text(
      gunzipped_if_gzip(read_input_file(path, "profile"), profile.source), profile.source);
  const nlohmann::json* events = nullptr;
  if (document.root.is_object() && document.root.contains("traceEvents")) {
    events = &document.root["traceEvents"];
    const auto devices = document.root.find("deviceProperties");
    if (devices != document.root.end() && devices->is_array() && !devices->empty() &&
        (*devices)[0].is_object() && (*devices)[0].contains("name") &&
        (*devices)[0]["name"].is_string()) {
      profile.gpu = (*devices)[0]["name"].get<std::string>();
    }
    const auto runtime = document.root.find("cuda_runtime_version");
    if (runtime != document.root.end() && runtime->is_number_integer()) {
      const std::int64_t version = runtime->get<std::int64_t>();
      profile.cuda = fmt::format("{}.{}", version / 1000, version % 1000 / 10);
    }
  } else if (document.root.is_array()) {
    events = &document.root;
  }
  if (events == nullptr || !events->is_array()) {
    throw InputError(fmt::format(
        "{}: not a Chrome trace: expected a JSON object with a \"traceEvents\" array (what "
        "torch.profiler's export_chrome_trace writes)",
        profile.source));
  }
  for (const nlohmann::json& event : *events) {
    if (!event.is_object()) continue;
    const auto ph = event.find("ph");
    if (ph == event.end() || !ph->is_string()) continue;
    const std::string phase = ph->get<std::string>();
    const std::string category =
        event.contains("cat") && event["cat"].is_string() ? lowercase(event["cat"]) : "";
    const std::string name =
        event.contains("name") && event["name"].is_string() ? event["name"].get<std::string>() : "";
    const auto ts = number(event, "ts");
    if (!ts) continue;
    static const nlohmann::json no_args = nlohmann::json::object();
    const nlohmann::json& args =
        event.contains("args") && event["args"].is_object() ? event["args"] : no_args;
    if (phase == "s" || phase == "f") {
      if (category != "fwdbwd") continue;
      const auto id = event.find("id");
      if (id == event.end() || !id->is_number_integer()) continue;
      Flow& flow = profile.flows[id->get<std::int64_t>()];
      (phase == "s" ? flow.forward : flow.backward) = Launch{thread_of(event), *ts};
      continue;
    }
    if (phase != "X") continue;
    const double duration = number(event, "dur").value_or(0.0);
    // A day per event is far beyond any operator or kernel; more is a corrupt profile, and the
    // sums would leave what sgdsim's times hold.
    if (duration < 0.0 || duration > max_event_us || std::abs(*ts) > 1e16) {
      throw InputError(fmt::format(
          "{}: event \"{}\" at ts {:g} us lasts {:g} us: expected 0 to {:g} us (a day) and a "
          "timestamp within 1e16 us; is the profile corrupt?",
          profile.source, name.substr(0, 60), *ts, duration, max_event_us));
    }
    const double end = *ts + duration;
    if (category == "cpu_op" || category == "operator") {
      profile.ops.push_back(
          {read_span(event, args, *ts, end, name), integer_arg(args, "Sequence number"), none});
    } else if (category == "kernel" || category == "gpu_memset" || category == "gpu_memcpy" ||
               category == "memset" || category == "memcpy") {
      profile.activities.push_back({*ts, end, integer_arg(args, "correlation").value_or(-1),
                                    lowercase(name).starts_with("nccl")});
    } else if (category == "cuda_runtime" || category == "cuda_driver" || category == "runtime") {
      if (const auto correlation = integer_arg(args, "correlation"))
        profile.launches[*correlation] = Launch{thread_of(event), *ts};
    } else if (category == "user_annotation") {
      profile.annotations.push_back(read_span(event, args, *ts, end, name));
    } else if (category == "python_function" && name.starts_with("nn.Module: ")) {
      profile.modules.push_back({*ts, end, thread_of(event), name.substr(11), {}, {}, false});
    }
  }
  std::sort(profile.ops.begin(), profile.ops.end(), [](const CpuOp& a, const CpuOp& b) {
    return std::tie(a.tid, a.start, b.end) < std::tie(b.tid, b.start, a.end);
  });
  std::sort(profile.modules.begin(), profile.modules.end(),
            [](const Span& a, const Span& b) { return a.start < b.start; });
  // Each operator's outermost enclosing operator on its thread.
  std::size_t top = none;
  for (std::size_t index = 0; index < profile.ops.size(); ++index) {
    CpuOp& op = profile.ops[index];
    if (top == none || op.tid != profile.ops[top].tid ||
        op.start > profile.ops[top].end + epsilon_us) {
      top = index;
      profile.tops[op.tid].push_back(index);
    }
    op.top = top;
  }
  profile.past.resize(profile.ops.size());
  for (std::size_t index = 0; index < profile.ops.size(); ++index) {
    profile.past[profile.ops[index].top] = index + 1;
  }
  return profile;
}

// The top operator on `tid` running at `time`, else the last one before it; `none` if neither.
std::size_t top_at(const Profile& profile, std::int64_t tid, double time, bool or_before) {
  const auto tops = profile.tops.find(tid);
  if (tops == profile.tops.end()) return none;
  const std::vector<std::size_t>& list = tops->second;
  auto after = std::upper_bound(list.begin(), list.end(), time + epsilon_us,
                                [&](double t, std::size_t i) { return t < profile.ops[i].start; });
  if (after == list.begin()) return none;
  const std::size_t candidate = *(after - 1);
  if (or_before || time <= profile.ops[candidate].end + epsilon_us) return candidate;
  return none;
}

// Elements of a tensor of this shape; -1 for a negative extent or more than max_elements.
std::int64_t elements_of(const Shape& shape) {
  std::int64_t elements = 1;
  for (const std::int64_t extent : shape) {
    if (extent < 0 || (extent > 0 && elements > max_elements / extent)) return -1;
    elements *= extent;
  }
  return elements;
}

// ---- one iteration ----------------------------------------------------------------------------

enum class Phase : std::uint8_t { forward, backward, optimizer };

struct TensorResult {
  std::string name;
  std::int64_t elements = 0;
  std::string dtype;
  double ready_busy = 0.0;
  double ready_wall = 0.0;
  double stored = 0.0;  // when its AccumulateGrad finished on the host (readiness order)
};

struct LayerResult {
  std::string name;
  double forward_busy = 0.0, backward_busy = 0.0, forward_wall = 0.0, backward_wall = 0.0;
  std::vector<TensorResult> tensors;
};

struct BucketResult {
  std::int64_t elements = 0;
  std::vector<std::string> gradients;
  double launch_wall = 0.0;
};

struct IterationResult {
  std::vector<LayerResult> layers;
  double optimizer_busy = 0.0, optimizer_wall = 0.0;
  double gpu_span = 0.0, busy = 0.0, host_span = 0.0;
  std::vector<BucketResult> buckets;
  std::size_t collective_kernels = 0;
};

// The name of input `position` of a forward operator that takes a parameter there.
std::string parameter_name(std::string_view op, std::size_t position) {
  if (op.starts_with("aten::")) op.remove_prefix(6);
  const bool weight_bias = op.starts_with("conv") || op == "linear" || op == "batch_norm" ||
                           op == "instance_norm" || op == "prelu" || op == "bilinear";
  const bool norm = op == "layer_norm" || op == "group_norm" || op == "rms_norm";
  if (weight_bias && (position == 1 || position == 2)) return position == 1 ? "weight" : "bias";
  if (norm && (position == 2 || position == 3)) return position == 2 ? "weight" : "bias";
  if ((op == "embedding" || op == "embedding_bag") && position == 0) return "weight";
  if (op == "addmm" && (position == 0 || position == 2)) return position == 0 ? "bias" : "weight";
  return fmt::format("input{}", position);
}

std::string short_name(std::string_view op) {
  if (op.starts_with("aten::")) op.remove_prefix(6);
  std::string name(op);
  for (char& c : name) {
    if (c == ':' || c == ' ') c = '_';
  }
  return name;
}

// A gradient's element type as sgdsim names it; empty for a type it does not carry.
std::string dtype_of(const std::string& type) {
  if (type == "c10::Half" || type == "Half") return "fp16";
  if (type == "c10::BFloat16" || type == "BFloat16") return "bf16";
  if (type == "float" || type == "Float" || type.empty()) return "fp32";  // empty: not recorded
  return "";
}

class IterationImport {
 public:
  IterationImport(const Profile& profile, double from, double to, bool cpu_only)
      : profile_(profile), from_(from), to_(to), cpu_only_(cpu_only) {}

  std::size_t linked_activities() const { return activities_.size(); }

  std::optional<IterationResult> run() {
    collect_tops();
    if (backward_.empty()) return std::nullopt;
    link_backward();
    assign_forward_layers();
    assign_backward_layers();
    collect_activities();
    charge();
    place_tensors();
    read_buckets();
    return std::move(result_);
  }

 private:
  // Top operators in the window, their phases; the optimizer annotations.
  void collect_tops() {
    for (const Span& range : profile_.annotations) {
      if (range.start >= from_ - epsilon_us && range.start <= to_ &&
          range.name.starts_with("Optimizer."))
        optimizer_ranges_.push_back(range);
    }
    for (const auto& [tid, list] : profile_.tops) {
      for (const std::size_t index : list) {
        const CpuOp& op = profile_.ops[index];
        if (op.start >= from_ - epsilon_us && op.start <= to_) window_.push_back(index);
      }
    }
    std::sort(window_.begin(), window_.end(), [&](std::size_t a, std::size_t b) {
      return profile_.ops[a].start < profile_.ops[b].start;
    });
    for (const std::size_t index : window_) {
      if (profile_.ops[index].name.starts_with(backward_prefix)) backward_.push_back(index);
    }
    if (backward_.empty()) return;
    const double first = profile_.ops[backward_.front()].start;
    double last = 0.0;
    for (const std::size_t index : backward_) last = std::max(last, profile_.ops[index].end);
    for (const std::size_t index : window_) {
      const CpuOp& op = profile_.ops[index];
      Phase phase = Phase::backward;
      const bool in_optimizer =
          std::any_of(optimizer_ranges_.begin(), optimizer_ranges_.end(), [&](const Span& range) {
            return range.tid == op.tid && op.start >= range.start - epsilon_us &&
                   op.start <= range.end + epsilon_us;
          });
      if (op.name.starts_with(backward_prefix)) {
        phase = Phase::backward;
      } else if (in_optimizer || op.start >= last) {
        phase = Phase::optimizer;
      } else if (op.start < first) {
        phase = Phase::forward;
      }
      phase_[index] = phase;
    }
  }

  // Backward top operator -> forward top operator: the fwdbwd flow, else the sequence number.
  void link_backward() {
    for (const auto& [id, flow] : profile_.flows) {
      if (!flow.forward || !flow.backward) continue;
      const std::size_t backward = top_at(profile_, flow.backward->tid, flow.backward->time, false);
      const std::size_t forward = top_at(profile_, flow.forward->tid, flow.forward->time, false);
      if (backward == none || forward == none || !phase_.contains(backward) ||
          !phase_.contains(forward) || phase_[forward] != Phase::forward)
        continue;
      forward_of_[backward] = forward;
    }
    std::unordered_map<std::int64_t, std::size_t> by_sequence;  // the last forward op with it
    for (const std::size_t index : window_) {
      if (phase_[index] != Phase::forward) continue;
      for (std::size_t op = index; op < profile_.past[index]; ++op) {
        if (profile_.ops[op].sequence) by_sequence[*profile_.ops[op].sequence] = index;
      }
    }
    for (const std::size_t index : backward_) {
      if (forward_of_.contains(index)) continue;
      const std::optional<std::int64_t> sequence = sequence_of(index);
      if (!sequence) continue;
      const auto found = by_sequence.find(*sequence);
      if (found != by_sequence.end()) forward_of_[index] = found->second;
    }
    // Gradient tensors: each AccumulateGrad after the backward operator that produced it.
    std::size_t producer = none;
    for (const std::size_t index : backward_) {
      const CpuOp& op = profile_.ops[index];
      if (op.name.substr(backward_prefix.size()) != accumulate_grad) {
        if (const auto found = forward_of_.find(index); found != forward_of_.end())
          producer = found->second;
        continue;
      }
      const CpuOp* inner = nullptr;
      for (std::size_t nested = index + 1; nested < profile_.past[index] && !inner; ++nested) {
        if (profile_.ops[nested].name == accumulate_grad) inner = &profile_.ops[nested];
      }
      if (inner == nullptr || !inner->has_dims || inner->dims.empty()) {
        throw InputError(fmt::format(
            "{}: no input shapes on the AccumulateGrad operators: the gradient sizes are "
            "unknown; record the profile with record_shapes=True",
            profile_.source));
      }
      const std::int64_t elements = elements_of(inner->dims[0]);
      if (elements == 0) continue;  // an empty parameter carries nothing
      if (elements < 0 || elements > max_elements) {
        throw InputError(fmt::format(
            "{}: an AccumulateGrad's input shape [{}] is not a tensor of 1 to 2^40 elements",
            profile_.source, fmt::join(inner->dims[0], ", ")));
      }
      pending_tensors_.push_back({producer, elements, inner->types.empty() ? "" : inner->types[0],
                                  op.end, inner->dims[0]});
    }
  }

  std::optional<std::int64_t> sequence_of(std::size_t top) const {
    for (std::size_t op = top; op < profile_.past[top]; ++op) {
      if (profile_.ops[op].sequence) return profile_.ops[op].sequence;
    }
    return std::nullopt;
  }

  std::size_t new_layer(std::string name) {
    result_.layers.push_back({std::move(name), 0, 0, 0, 0, {}});
    return result_.layers.size() - 1;
  }

  // Forward top operators into layers: module frames where recorded, else parameterised ops.
  void assign_forward_layers() {
    std::set<std::size_t> owners;
    for (const PendingTensor& tensor : pending_tensors_) {
      if (tensor.producer != none) owners.insert(tensor.producer);
    }
    const bool by_module = !profile_.modules.empty();
    std::map<std::string, std::size_t> layer_of_module;  // "Conv2d_3": class and instance
    std::map<std::string, int> counts;
    std::vector<std::size_t> before_first;  // ops before any layer: they join the first
    std::size_t current = none;
    for (const std::size_t index : window_) {
      if (phase_[index] != Phase::forward) continue;
      const CpuOp& op = profile_.ops[index];
      std::size_t layer = none;
      if (by_module) {
        const Span* frame = innermost_module(op);
        if (frame != nullptr) {
          const auto [found, added] = layer_of_module.try_emplace(frame->name, none);
          if (added) found->second = new_layer(frame->name);
          layer = found->second;
        }
      } else if (owners.contains(index)) {
        const std::string name = short_name(op.name);
        layer = new_layer(fmt::format("{}_{}", name, counts[name]++));
      }
      if (layer == none) layer = current;
      if (layer == none) {
        before_first.push_back(index);
        continue;
      }
      current = layer;
      layer_[index] = layer;
    }
    if (result_.layers.empty()) new_layer("forward");
    for (const std::size_t index : before_first) layer_[index] = 0;
  }

  const Span* innermost_module(const CpuOp& op) const {
    const auto& modules = profile_.modules;
    auto after = std::upper_bound(modules.begin(), modules.end(), op.start + epsilon_us,
                                  [](double t, const Span& r) { return t < r.start; });
    while (after != modules.begin()) {
      --after;
      if (after->tid == op.tid && op.start <= after->end + epsilon_us) return &*after;
    }
    return nullptr;
  }

  // Backward operators take their forward operator's layer; those without a link (and the
  // AccumulateGrads) that of the last linked one before them.
  void assign_backward_layers() {
    std::size_t current = result_.layers.size() - 1;
    for (const std::size_t index : window_) {
      if (phase_[index] != Phase::backward) continue;
      if (const auto found = forward_of_.find(index); found != forward_of_.end()) {
        if (const auto layer = layer_.find(found->second); layer != layer_.end())
          current = layer->second;
      }
      layer_[index] = current;
    }
  }

  // The window's GPU activities (or, in a profile of the CPU alone, its top operators), each
  // with the top operator that launched it.
  void collect_activities() {
    if (cpu_only_) {
      for (const std::size_t index : window_) {
        const CpuOp& op = profile_.ops[index];
        activities_.push_back({op.start, op.end, index, op.start});
      }
    } else {
      for (const GpuActivity& activity : profile_.activities) {
        const auto launch = profile_.launches.find(activity.correlation);
        if (launch == profile_.launches.end()) continue;
        const double time = launch->second.time;
        if (time < from_ - epsilon_us || time > to_) continue;
        if (activity.collective) {
          ++result_.collective_kernels;
          continue;
        }
        std::size_t owner = top_at(profile_, launch->second.tid, time, true);
        if (owner != none && !phase_.contains(owner)) owner = none;
        activities_.push_back({activity.start, activity.end, owner, time});
      }
    }
    std::sort(activities_.begin(), activities_.end(),
              [](const Owned& a, const Owned& b) { return a.start < b.start; });
  }

  // Busy time (durations) and wall time (each activity charged with the GPU's idle time before
  // it, so the charges add up to the iteration's GPU span) per layer and phase.
  void charge() {
    if (activities_.empty()) return;
    double cursor = activities_.front().start;
    const double first = cursor;
    bool backward_seen = false;
    for (Owned& activity : activities_) {
      const Phase phase = activity.owner == none ? Phase::optimizer : phase_[activity.owner];
      if (phase == Phase::backward && !backward_seen) {
        backward_seen = true;
        backward_wall_start_ = cursor;
      }
      const double busy = activity.end - activity.start;
      const double wall = std::max(0.0, activity.end - cursor);
      cursor = std::max(cursor, activity.end);
      result_.busy += busy;
      if (phase == Phase::optimizer) {
        result_.optimizer_busy += busy;
        result_.optimizer_wall += wall;
        continue;
      }
      LayerResult& layer = result_.layers[layer_.at(activity.owner)];
      (phase == Phase::forward ? layer.forward_busy : layer.backward_busy) += busy;
      (phase == Phase::forward ? layer.forward_wall : layer.backward_wall) += wall;
      if (phase == Phase::backward) backward_activities_.push_back(activity);
    }
    result_.gpu_span = cursor - first;
    if (!backward_seen) backward_wall_start_ = cursor;
    by_launch_ = activities_;
    std::sort(by_launch_.begin(), by_launch_.end(),
              [](const Owned& a, const Owned& b) { return a.launch < b.launch; });
    double latest = -std::numeric_limits<double>::infinity();
    for (Owned& activity : by_launch_) {
      latest = std::max(latest, activity.end);
      activity.end_so_far = latest;
    }
    std::vector<Owned> by_end = backward_activities_;
    std::sort(by_end.begin(), by_end.end(),
              [](const Owned& a, const Owned& b) { return a.end < b.end; });
    double busy = 0.0;
    for (const Owned& activity : by_end) {
      busy += activity.end - activity.start;
      backward_ends_.push_back(activity.end);
      backward_busy_by_end_.push_back(busy);
    }
  }

  // When the GPU has run everything launched up to host time `time`: on its timeline, and as
  // backward busy time.
  std::pair<double, double> gpu_done(double time) const {
    auto after = std::upper_bound(by_launch_.begin(), by_launch_.end(), time + epsilon_us,
                                  [](double t, const Owned& a) { return t < a.launch; });
    if (after == by_launch_.begin()) return {0.0, 0.0};
    const double done = (after - 1)->end_so_far;
    // Backward kernel time of the activities that have ended by then.
    const auto ended =
        std::upper_bound(backward_ends_.begin(), backward_ends_.end(), done + epsilon_us);
    const double busy =
        ended == backward_ends_.begin()
            ? 0.0
            : backward_busy_by_end_[static_cast<std::size_t>(ended - backward_ends_.begin() - 1)];
    return {std::max(0.0, done - backward_wall_start_), busy};
  }

  void place_tensors() {
    std::map<std::size_t, std::set<std::size_t>> used;  // forward op -> inputs named
    std::set<std::string> names;
    for (const PendingTensor& pending : pending_tensors_) {
      const std::size_t layer_index = pending.producer != none && layer_.contains(pending.producer)
                                          ? layer_.at(pending.producer)
                                          : result_.layers.size() - 1;
      LayerResult& layer = result_.layers[layer_index];
      std::string parameter = fmt::format("parameter{}", layer.tensors.size());
      if (pending.producer != none) {
        const CpuOp& op = profile_.ops[pending.producer];
        for (std::size_t position = 0; position < op.dims.size(); ++position) {
          if (op.dims[position] == pending.shape && !used[pending.producer].contains(position)) {
            used[pending.producer].insert(position);
            parameter = parameter_name(op.name, position);
            break;
          }
        }
      }
      std::string name = layer.name + "." + parameter;
      for (int copy = 2; names.contains(name); ++copy) {
        name = fmt::format("{}.{}#{}", layer.name, parameter, copy);
      }
      names.insert(name);
      const auto [wall, busy] = gpu_done(pending.stored);
      layer.tensors.push_back(
          {name, pending.elements, dtype_of(pending.type), busy, wall, pending.stored});
    }
  }

  // nccl:all_reduce annotations (PyTorch DDP's buckets): their sizes, the gradients they add up
  // to in readiness order, their launch on the GPU's timeline.
  void read_buckets() {
    std::vector<const TensorResult*> ready;
    for (const LayerResult& layer : result_.layers) {
      for (const TensorResult& tensor : layer.tensors) ready.push_back(&tensor);
    }
    std::stable_sort(ready.begin(), ready.end(), [](const TensorResult* a, const TensorResult* b) {
      return a->stored < b->stored;
    });
    std::vector<const Span*> calls;
    for (const Span& range : profile_.annotations) {
      if (range.name == "nccl:all_reduce" && range.start >= from_ && range.start <= to_ &&
          range.has_dims && !range.dims.empty())
        calls.push_back(&range);
    }
    std::sort(calls.begin(), calls.end(),
              [](const Span* a, const Span* b) { return a->start < b->start; });
    std::size_t next = 0;
    for (const Span* call : calls) {
      BucketResult bucket;
      bucket.elements = elements_of(call->dims[0]);
      if (bucket.elements < 1 || bucket.elements > max_elements)
        continue;  // nothing a bucket holds
      bucket.launch_wall = gpu_done(call->start).first;
      std::int64_t sum = 0;
      std::size_t end = next;
      while (end < ready.size() && sum < bucket.elements) sum += ready[end++]->elements;
      if (sum == bucket.elements) {
        for (std::size_t i = next; i < end; ++i) bucket.gradients.push_back(ready[i]->name);
        next = end;
      }
      result_.buckets.push_back(std::move(bucket));
    }
  }

  struct PendingTensor {
    std::size_t producer = none;  // forward top operator
    std::int64_t elements = 0;
    std::string type;
    double stored = 0.0;
    Shape shape;
  };
  struct Owned {
    double start = 0.0;
    double end = 0.0;
    std::size_t owner = none;
    double launch = 0.0;
    double end_so_far = 0.0;
  };

  const Profile& profile_;
  double from_;
  double to_;
  bool cpu_only_;
  std::vector<Span> optimizer_ranges_;
  std::vector<std::size_t> window_;    // top operators by start
  std::vector<std::size_t> backward_;  // backward top operators by start
  std::unordered_map<std::size_t, Phase> phase_;
  std::unordered_map<std::size_t, std::size_t> forward_of_;
  std::unordered_map<std::size_t, std::size_t> layer_;
  std::vector<PendingTensor> pending_tensors_;
  std::vector<Owned> activities_;
  std::vector<Owned> by_launch_;
  std::vector<Owned> backward_activities_;
  std::vector<double> backward_ends_;         // backward activities' ends, ascending
  std::vector<double> backward_busy_by_end_;  // their kernel time up to each end
  double backward_wall_start_ = 0.0;
  IterationResult result_;
};

// The profiled iterations: ProfilerStep#N annotations, else the spans ending with each
// Optimizer.step annotation, else the whole profile.
std::vector<std::pair<double, double>> iteration_windows(const Profile& profile) {
  std::vector<std::pair<double, double>> windows;
  for (const Span& range : profile.annotations) {
    if (range.name.starts_with("ProfilerStep#")) windows.emplace_back(range.start, range.end);
  }
  if (windows.empty()) {
    std::vector<double> ends;
    for (const Span& range : profile.annotations) {
      if (range.name.starts_with("Optimizer.step")) ends.push_back(range.end);
    }
    std::sort(ends.begin(), ends.end());
    double from = -std::numeric_limits<double>::infinity();
    for (const double end : ends) {
      windows.emplace_back(from, end);
      from = end;
    }
  }
  if (windows.empty()) {
    windows.emplace_back(-std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::infinity());
  }
  std::sort(windows.begin(), windows.end());
  // A window inside another (a ProfilerStep annotation recorded twice, or nested) is the same
  // work: keep the outer one.
  std::vector<std::pair<double, double>> outer;
  for (const auto& window : windows) {
    if (!outer.empty() && window.second <= outer.back().second) continue;
    outer.push_back(window);
  }
  return outer;
}

Time us(double microseconds) {
  return Time::from_us(std::max(0.0, microseconds));
}

}  // namespace

Workload import_kineto_profile(const ImportRequest& options) {
  const std::filesystem::path& path = options.input;
  const std::string device = options.device == "unknown" ? "" : options.device;
  const Profile profile = read_profile(path);
  const std::string& source = profile.source;
  if (profile.ops.empty()) {
    throw InputError(fmt::format(
        "{}: no CPU operators (cpu_op events): record the profile with ProfilerActivity.CPU",
        source));
  }
  const bool cpu_only = profile.activities.empty();
  // A CPU run on a machine with a GPU still names the GPU; --device cpu says it is one.
  if (cpu_only && !profile.gpu.empty() && device != "cpu") {
    throw InputError(fmt::format(
        "{}: no kernels: the profile names the GPU {} but has no GPU activity; record it with "
        "ProfilerActivity.CUDA",
        source, profile.gpu));
  }
  std::vector<IterationResult> iterations;
  std::size_t linked = 0;  // GPU activities joined to a launch in some iteration
  for (const auto& [from, to] : iteration_windows(profile)) {
    IterationImport step(profile, from, to, cpu_only);
    std::optional<IterationResult> result = step.run();
    linked += step.linked_activities();
    if (result) {
      result->host_span = std::isfinite(to - from) ? to - from : 0.0;
      iterations.push_back(std::move(*result));
    }
  }
  if (iterations.empty()) {
    throw InputError(fmt::format(
        "{}: no training step found: no backward operator (autograd::engine::evaluate_function) "
        "in any profiled iteration; is this a profile of inference only?",
        source));
  }
  if (!cpu_only && linked == 0) {
    throw InputError(fmt::format(
        "{}: no GPU kernel is joined to its launch (no correlation ids shared by kernel and "
        "cuda_runtime events): the kernels cannot be attributed to operators",
        source));
  }
  std::size_t tensors = 0;
  for (const LayerResult& layer : iterations.front().layers) tensors += layer.tensors.size();
  if (tensors == 0) {
    throw InputError(fmt::format(
        "{}: no gradient was stored (no AccumulateGrad operator): nothing to communicate; is "
        "every parameter frozen?",
        source));
  }
  // Iterations must agree layer by layer and tensor by tensor; their times are averaged.
  const IterationResult& first = iterations.front();
  for (std::size_t k = 1; k < iterations.size(); ++k) {
    const IterationResult& other = iterations[k];
    bool same = other.layers.size() == first.layers.size();
    for (std::size_t i = 0; same && i < first.layers.size(); ++i) {
      same = other.layers[i].name == first.layers[i].name &&
             other.layers[i].tensors.size() == first.layers[i].tensors.size();
      for (std::size_t j = 0; same && j < first.layers[i].tensors.size(); ++j) {
        same = other.layers[i].tensors[j].name == first.layers[i].tensors[j].name &&
               other.layers[i].tensors[j].elements == first.layers[i].tensors[j].elements;
      }
    }
    if (!same) {
      throw InputError(fmt::format(
          "{}: profiled iterations 1 and {} differ in their layers or gradients ({} and {} "
          "layers); profile iterations of the same training step",
          source, k + 1, first.layers.size(), other.layers.size()));
    }
  }
  const double n = static_cast<double>(iterations.size());
  auto mean = [&](auto field) {
    double sum = 0.0;
    for (const IterationResult& iteration : iterations) sum += field(iteration);
    return sum / n;
  };

  Workload workload;
  workload.model = options.model.empty() ? path.filename().string() : options.model;
  if (options.model.empty()) {
    for (const std::string_view suffix : {".gz", ".json", ".pt.trace"}) {
      if (workload.model.ends_with(suffix))
        workload.model.resize(workload.model.size() - suffix.size());
    }
  }
  workload.device = !device.empty() ? device : !profile.gpu.empty() ? profile.gpu : "cpu";
  workload.framework = "PyTorch (profiler trace)";
  workload.batch_size = options.batch;
  workload.sequence_length = options.sequence_length;
  std::string dtype;
  for (std::size_t i = 0; i < first.layers.size(); ++i) {
    const LayerResult& shape = first.layers[i];
    Layer layer;
    layer.name = shape.name;
    layer.forward = us(mean([&](const IterationResult& r) { return r.layers[i].forward_busy; }));
    layer.backward = us(mean([&](const IterationResult& r) { return r.layers[i].backward_busy; }));
    layer.forward_wall =
        us(mean([&](const IterationResult& r) { return r.layers[i].forward_wall; }));
    layer.backward_wall =
        us(mean([&](const IterationResult& r) { return r.layers[i].backward_wall; }));
    for (std::size_t j = 0; j < shape.tensors.size(); ++j) {
      GradientTensor tensor{shape.tensors[j].name, shape.tensors[j].elements, {}, {}};
      tensor.ready_offset =
          us(mean([&](const IterationResult& r) { return r.layers[i].tensors[j].ready_busy; }));
      tensor.ready_wall_offset =
          us(mean([&](const IterationResult& r) { return r.layers[i].tensors[j].ready_wall; }));
      if (shape.tensors[j].dtype.empty()) {
        throw InputError(fmt::format(
            "{}: the gradient {} has a type sgdsim does not carry (it knows float, Half and "
            "BFloat16 gradients)",
            source, shape.tensors[j].name));
      }
      if (dtype.empty()) dtype = shape.tensors[j].dtype;
      if (dtype != shape.tensors[j].dtype) {
        throw InputError(fmt::format(
            "{}: gradients of more than one type ({} and {} for {}): sgdsim traces carry one "
            "gradient dtype",
            source, dtype, shape.tensors[j].dtype, shape.tensors[j].name));
      }
      layer.gradients.push_back(std::move(tensor));
    }
    workload.layers.push_back(std::move(layer));
  }
  workload.gradient_dtype = dtype.empty() ? "fp32" : dtype;
  workload.bytes_per_element = dtype_bytes(workload.gradient_dtype);
  workload.optimizer = us(mean([](const IterationResult& r) { return r.optimizer_busy; }));
  workload.optimizer_wall = us(mean([](const IterationResult& r) { return r.optimizer_wall; }));
  if (options.measured_iteration_us)
    workload.measured_iteration = us(*options.measured_iteration_us);
  const std::int64_t elements = total_gradient_elements(workload);
  if (options.parameter_count && *options.parameter_count != elements) {
    throw InputError(fmt::format(
        "{}: the gradients stored in a profiled iteration add up to {} elements, the model has "
        "{} parameters (--parameters): {} elements unaccounted for",
        source, elements, *options.parameter_count, *options.parameter_count - elements));
  }
  workload.parameter_count = options.parameter_count;
  // DDP buckets, from the last iteration (the first may run before DDP rebuilds its buckets).
  for (const BucketResult& bucket : iterations.back().buckets) {
    workload.observed_buckets.push_back(
        {bucket.elements, bucket.gradients, us(bucket.launch_wall)});
  }

  const double busy = mean([](const IterationResult& r) { return r.busy; });
  const double span = mean([](const IterationResult& r) { return r.gpu_span; });
  const double host = mean([](const IterationResult& r) { return r.host_span; });
  const bool by_module = !profile.modules.empty();
  workload.provenance.method = "imported";
  workload.provenance.capture.gpu = profile.gpu;
  workload.provenance.capture.cuda = profile.cuda;
  workload.provenance.capture.precision = options.precision;
  workload.provenance.capture.timed_iterations = static_cast<std::int64_t>(iterations.size());
  workload.provenance.description = fmt::format(
      "Imported by sgdsim trace import --from kineto from the PyTorch profiler trace {}: {} "
      "profiled iteration{} averaged. {} Layers are {}. forward_us/backward_us are {}; the *_wall "
      "times are the same work on the {} timeline, waits for the host included ({:.3f} ms busy "
      "in a {:.3f} ms span per iteration{}). Ready offsets: when the work launched before each "
      "gradient's AccumulateGrad has run. The optimizer step (and anything after backward) is "
      "optimizer_us.{}",
      path.filename().string(), iterations.size(), iterations.size() == 1 ? "" : "s",
      cpu_only ? "A profile of the CPU alone: times are the outermost operators' CPU time."
               : fmt::format("GPU {}.", profile.gpu.empty() ? "unnamed" : profile.gpu),
      by_module ? "the innermost nn.Module frames around the forward operators (with_stack)"
                : "the operators that take a parameter, each with the operators after it "
                  "(no module frames: record with with_stack=True for module layers)",
      cpu_only ? "CPU operator time" : "GPU kernel time (kernels, memsets, copies)",
      cpu_only ? "CPU's" : "GPU's", busy / 1e3, span / 1e3,
      host > 0.0 ? fmt::format(", {:.3f} ms on the host", host / 1e3) : "",
      first.collective_kernels > 0 ? " NCCL kernels are communication and left out." : "");
  return workload;
}

ImporterEntry kineto_importer() {
  ImporterEntry entry;
  entry.name = "kineto";
  entry.description =
      "PyTorch profiler (Kineto) Chrome trace, .json or .json.gz (per-layer GPU kernel time, "
      "readiness on the GPU timeline, DDP buckets)";
  entry.reads_run_details = true;
  entry.import = import_kineto_profile;
  return entry;
}

}  // namespace sgdsim
