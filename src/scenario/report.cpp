// Formatting of results. Times are printed in milliseconds (table) or microseconds (files) with
// fixed precision so that output is byte-identical across runs and machines.
#include "sgdsim/scenario/report.hpp"
#include "sgdsim/scenario/convergence_run.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sgdsim/scenario/provenance.hpp"
#include "sgdsim/scenario/rank_spread.hpp"

namespace sgdsim {

namespace {

std::string collective_text(const ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  const std::string text =
      config.collective->describe
          ? config.collective->describe(config.collective_settings, cluster_shape(config))
          : result.collective_name;
  if (config.collective_chunks == 1) return text;
  return fmt::format("{} in {} chunks one after another", text, config.collective_chunks);
}

// A count with its thousands grouped, 25557032 -> "25,557,032": model sizes a reader compares.
std::string grouped(std::int64_t count) {
  const std::string digits = std::to_string(count < 0 ? -count : count);
  std::string out = count < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string layer_span(const ScenarioResult& result, const PolicyOutcome& outcome,
                       const MessageGroup& group) {
  const auto& layers = profile_of(result, outcome).layers;
  const std::string& first = layers[static_cast<std::size_t>(group.first)].name;
  if (group.first == group.last) return first;
  return fmt::format("{}..{}", first, layers[static_cast<std::size_t>(group.last)].name);
}

double us(Time time) {
  return time.us();
}

// A figure of the network, null where a one-node job has none.
nlohmann::ordered_json or_null(bool present, double value) {
  return present ? nlohmann::ordered_json(value) : nlohmann::ordered_json();
}

// The CSV's bandwidth_gbps and goodput_gbps cells: empty where a one-node job has no network.
std::string network_cells(const NetworkConfig& network) {
  if (!network.stated) return ",";
  return fmt::format("{:g},{:g}", network.line_rate.gbps(), network.link.bandwidth.gbps());
}

std::optional<double> tokens_per_second(const ScenarioResult& result,
                                        const ScalingFigures& scaling) {
  if (result.workload.sequence_length == 0) return std::nullopt;
  return scaling.samples_per_second * result.workload.sequence_length;
}

// "1 2 3 ... 4990 5000": the first and last few averaging iterations.
std::string rounds_text(const std::vector<int>& rounds) {
  constexpr std::size_t head = 8;
  constexpr std::size_t tail = 3;
  std::string text;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    if (i == head && rounds.size() > head + tail) {
      text += " ...";
      i = rounds.size() - tail;
    }
    text += fmt::format("{}{}", text.empty() ? "" : " ", rounds[i]);
  }
  return text;
}

std::string schedule_table(const ScenarioResult& result) {
  const PolicyOutcome& baseline = result.outcomes[result.baseline];
  std::string out = fmt::format(
      "\naveraging over a run of {} iterations (full-communication SGD: {}, {:.3f} ms per "
      "iteration)\n",
      result.config.run_iterations, outcome_label(baseline), baseline.breakdown.iteration.ms());
  std::size_t width = 8;
  for (const ScheduleOutcome& s : result.schedules) {
    width = std::max(width, averaging_label(s.spec).size());
  }
  out += fmt::format("{:<{}} {:>7} {:>9} {:>13} {:>11} {:>9} {:>8} {:>12}\n", "schedule", width,
                     "rounds", "local ms", "averaging ms", "total s", "GB/GPU", "speedup",
                     "to target s");
  for (const ScheduleOutcome& s : result.schedules) {
    const bool sgd = s.spec.every_iteration();
    out += fmt::format(
        "{:<{}} {:>7} {:>9} {:>13.3f} {:>11.3f} {:>9.2f} {:>7.3f}x {:>12}\n",
        averaging_label(s.spec), width, s.rounds.size(),
        sgd ? std::string("-") : fmt::format("{:.3f}", s.local_iteration.ms()),
        s.averaging_iteration.ms(), s.total.seconds(), s.bytes_sent_per_gpu() * 1e-9, s.speedup,
        s.time_to_target ? fmt::format("{:.3f}", s.time_to_target->seconds()) : std::string("-"));
  }
  if (std::any_of(result.schedules.begin(), result.schedules.end(),
                  [](const ScheduleOutcome& s) { return s.target_source == "convergence"; })) {
    out += "to target s: iterations to target from the convergence table below\n";
  }
  for (const ScheduleOutcome& s : result.schedules) {
    if (s.spec.every_iteration()) continue;
    out += fmt::format("{} averages after iterations: {}\n", averaging_label(s.spec),
                       rounds_text(s.rounds));
  }
  return out;
}

// Bytes as decimal gigabytes, as memory is quoted.
double gigabytes(double bytes) {
  return bytes * 1e-9;
}

std::string sharding_table(const ScenarioResult& result) {
  const ShardedModel& model = result.sharded_model;
  const ShardingSettings& settings = result.sharding_settings;
  std::string out = fmt::format(
      "\nsharded data parallelism: {} units + root, {} parameters of {} bytes, {:g} bytes of "
      "optimizer state each; replicated (DDP) holds {:.2f} GB per GPU\n",
      model.units.size(), grouped(model.elements()), settings.parameter_bytes,
      settings.optimizer_state_bytes, gigabytes(result.replicated_memory.at_rest()));
  out += fmt::format("{:<14} {:>5} {:>9} {:>10} {:>6} {:>8} {:>8} {:>27} {:>8} {:>9} {:>8}\n",
                     "strategy", "group", "iter ms", "samples/s", "eff %", "comm ms", "exposed",
                     "fwd AG/bwd AG/RS/AR/step AG", "GB sent", "state GB", "peak GB");
  for (const ShardingOutcome& s : result.sharding) {
    const ShardingResult& sim = s.simulation;
    std::string phases;
    for (std::size_t k = 0; k < shard_phases; ++k) {
      phases += fmt::format("{}{:.1f}", k == 0 ? "" : "/", sim.exposed[k].ms());
    }
    out += fmt::format(
        "{:<14} {:>5} {:>9.3f} {:>10.1f} {:>6.1f} {:>8.3f} {:>8.3f} {:>27} {:>8.3f} {:>9.2f} "
        "{:>8.2f}\n",
        strategy_info(s.strategy).display(), s.group_gpus, sim.mean_iteration().ms(),
        s.scaling.samples_per_second, 100.0 * s.scaling.efficiency, sim.total_busy().ms(),
        sim.total_exposed().ms(), phases, gigabytes(sim.total_bytes_sent()),
        gigabytes(s.memory.at_rest()), gigabytes(s.memory.peak));
  }
  out +=
      "exposed: ms per iteration compute waited for each phase (AG allgather, RS "
      "reduce-scatter, AR replica allreduce); GB sent per GPU per iteration; memory: model "
      "states per GPU, at rest and at the peak with gathered units; eff % against one GPU, whose "
      "optimizer step is not sharded (a sharded step can pass 100%)\n";
  return out;
}

// Node numbers with runs of three or more at one stride joined: "0-3,8,10-22/4" (10, 14, 18, 22).
std::string node_runs(const std::vector<int>& nodes) {
  std::string out;
  for (std::size_t i = 0; i < nodes.size();) {
    std::size_t j = i;
    if (i + 1 < nodes.size() && nodes[i + 1] > nodes[i]) {
      const int stride = nodes[i + 1] - nodes[i];
      while (j + 1 < nodes.size() && nodes[j + 1] - nodes[j] == stride) ++j;
      if (j - i < 2) j = i;  // two are listed as two
    }
    out += fmt::format("{}{}", out.empty() ? "" : ",", nodes[i]);
    if (j > i) {
      const int stride = nodes[i + 1] - nodes[i];
      out += stride == 1 ? fmt::format("-{}", nodes[j]) : fmt::format("-{}/{}", nodes[j], stride);
    }
    i = j + 1;
  }
  return out;
}

std::string jobs_table(const ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  std::string out = fmt::format(
      "\njobs sharing the fabric: {} GPUs ({} nodes of {}), placement {}\n", result.fabric_gpus,
      result.fabric_gpus / config.gpus_per_node, config.gpus_per_node, config.jobs->placement);
  std::size_t width = 3;
  for (const JobOutcome& job : result.jobs) width = std::max(width, job.name.size());
  out += fmt::format("{:<{}} {:>6} {:<18} {:<9} {:>9} {:>10} {:>10} {:>8} {:>10} {:>9}\n", "job",
                     width, "GPUs", "collective", "policy", "start ms", "alone ms", "shared ms",
                     "slowdown", "samples/s", "comm ms");
  for (const JobOutcome& job : result.jobs) {
    out += fmt::format(
        "{:<{}} {:>6} {:<18} {:<9} {:>9.3f} {:>10.3f} {:>10.3f} {:>8.3f} {:>10.1f} {:>9.3f}\n",
        job.name, width, job.gpus, job.collective, policy_label(job.policy), job.start.ms(),
        job.alone.mean_iteration().ms(), job.shared.mean_iteration().ms(), job.slowdown(),
        job.scaling.samples_per_second, job.communication().ms());
  }
  for (const JobOutcome& job : result.jobs) {
    out += fmt::format("{}: nodes {}; {}\n", job.name, node_runs(job.nodes),
                       job.contends_with.empty() ? "shares no link with another job"
                                                 : fmt::format("shares links with {}",
                                                               fmt::join(job.contends_with, ", ")));
  }
  out +=
      "alone: the job by itself on its nodes; shared: with every job from its start time; ms "
      "are means over each job's own iterations; comm ms: its communication stream's busy time "
      "per iteration, shared\n";
  return out;
}

// Where the network line's link comes from, when not from the scenario's link as given.
std::string network_origin(const NetworkConfig& network) {
  if (network.measures_network()) return " (from a measured allreduce fit)";
  if (!network.transport) return "";
  const Transport& t = *network.transport;
  const std::string cap = t.flow_cap.bits_per_second() > 0.0
                              ? fmt::format(", {} connection{} of {:.3f} Gbps", t.connections_used,
                                            t.connections_used == 1 ? "" : "s", t.flow_cap.gbps())
                              : "";
  return fmt::format(" ({}: {:.3f} Gbps line rate x {:.4f} goodput{})", t.name,
                     network.line_rate.gbps(), t.goodput_fraction, cap);
}

}  // namespace

// Time to target per compressor and schedule (scenario/convergence_run.hpp), in two tables of
// one scale each: what the proxy task trained (iterations, accuracy, measured contraction) and
// what the timed model costs (iteration time, bits, time to target).
std::string convergence_table(const ScenarioResult& result) {
  const ConvergenceSpec& spec = *result.config.convergence;
  const bool engine = spec.task != "measured";
  const std::string target =
      fmt::format("target test {} {}{}", spec.target_accuracy ? "accuracy" : "loss",
                  spec.target_accuracy ? *spec.target_accuracy : *spec.target_loss,
                  spec.target_accuracy ? " or more" : " or less");
  std::string out;
  if (!engine) {
    out = fmt::format(
        "\nconvergence  measured curves (iterations from your runs, times from the "
        "simulation), {}\n",
        target);
  } else {
    out = fmt::format(
        "\nconvergence  proxy task {} ({} parameters) on {}, {} workers x batch {}, learning "
        "rate {:g}, {}\n",
        spec.task, grouped(result.convergence_parameters), result.convergence_source, spec.workers,
        spec.batch, spec.learning_rate, target);
  }
  if (engine && spec.workers != result.config.gpus) {
    out += fmt::format(
        "             the engine's {} workers stand for the {} simulated GPUs: iterations counted "
        "with {} workers are timed as {}-GPU iterations (a different global batch would need a "
        "different number of iterations)\n",
        spec.workers, result.config.gpus, spec.workers, result.config.gpus);
  }
  if (engine) {
    out += fmt::format("             {} seed{} per configuration (from {}){}\n", spec.seeds,
                       spec.seeds == 1 ? "" : "s", result.config.seed,
                       spec.seeds > 1
                           ? ": means and 95% intervals over the seeds, where every seed reached "
                             "the target"
                           : "");
  }
  std::size_t width = 13;
  for (const ConvergenceOutcome& c : result.convergence) width = std::max(width, c.label.size());
  const auto interval_text = [](const std::optional<convergence::Interval>& i, double scale,
                                const char* format) {
    return fmt::format(fmt::runtime(format), i->mean * scale, i->low * scale, i->high * scale);
  };
  // Each configuration's cells, "not reached" or "k of n seeds" where not every seed got there.
  const auto unreached = [](const ConvergenceOutcome& c) {
    return c.seeds.size() > 1 ? fmt::format("{} of {} seeds", c.seeds_reached(), c.seeds.size())
                              : std::string("not reached");
  };

  out += engine ? fmt::format(
                      "\nproxy task (trained): iterations to the target and final accuracy; "
                      "compressors' delta or omega measured on its gradients (bound at its d = "
                      "{})\n",
                      grouped(result.convergence_parameters))
                : std::string("\nmeasured curves: iterations to the target and final accuracy\n");
  out += fmt::format("{:<{}} {:>27} {:>16} {:>7}  {}\n", "configuration", width, "iterations",
                     "accuracy", "rounds", engine ? "measured (bound)" : "");
  for (const ConvergenceOutcome& c : result.convergence) {
    const auto pair = [](const char* name, std::optional<double> measured,
                         std::optional<double> bound) {
      if (!measured || !bound) return std::string();
      return fmt::format("{} {:.3g} ({:.3g})", name, *measured, *bound);
    };
    const std::string quality = c.bound_delta ? pair("delta", c.measured_delta, c.bound_delta)
                                              : pair("omega", c.measured_omega, c.bound_omega);
    std::string iterations = unreached(c);
    if (c.iterations_interval && c.seeds.size() > 1) {
      iterations = interval_text(c.iterations_interval, 1.0, "{:.0f} [{:.0f}, {:.0f}]");
    } else if (c.iterations_interval) {
      iterations = fmt::format("{:.0f}", c.iterations_interval->mean);
    }
    std::string accuracy = "-";
    if (c.seeds.size() > 1 && c.accuracy_interval) {
      accuracy = fmt::format("{:.4f} +-{:.4f}", c.accuracy_interval->mean,
                             c.accuracy_interval->high - c.accuracy_interval->mean);
    } else if (c.final_accuracy) {
      accuracy = fmt::format("{:.4f}", *c.final_accuracy);
    }
    out += fmt::format("{:<{}} {:>27} {:>16} {:>7}  {}\n", c.label, width, iterations, accuracy,
                       c.averaging_rounds, quality);
  }

  out += fmt::format(
      "\ntimed model (simulated): {}, {} gradient elements on {} GPUs; each configuration's "
      "iterations to the target at its simulated iterations, bits per GPU at this model's size "
      "(densities are fractions of each model's gradient)\n",
      result.workload.model, grouped(total_gradient_elements(result.workload)), result.config.gpus);
  out += fmt::format("{:<{}} {:>10} {:>13} {:>27} {:>28}  {}\n", "configuration", width, "iter ms",
                     "Mbit/GPU/it", "to target s", "Gbit/GPU to target", "bound at its d");
  for (const ConvergenceOutcome& c : result.convergence) {
    std::string seconds = unreached(c);
    std::string bits = "-";
    if (c.seconds_to_target && c.seeds.size() > 1) {
      seconds = interval_text(c.seconds_to_target, 1.0, "{:.3f} [{:.3f}, {:.3f}]");
      if (c.bits_interval) bits = interval_text(c.bits_interval, 1e-9, "{:.2f} [{:.2f}, {:.2f}]");
    } else if (c.seconds_to_target) {
      seconds = fmt::format("{:.3f}", c.seconds_to_target->mean);
      if (c.bits_interval) bits = fmt::format("{:.2f}", c.bits_interval->mean * 1e-9);
    }
    const std::string bound = c.timed_delta   ? fmt::format("delta {:.3g}", *c.timed_delta)
                              : c.timed_omega ? fmt::format("omega {:.3g}", *c.timed_omega)
                                              : std::string();
    out += fmt::format("{:<{}} {:>10.3f} {:>13.3f} {:>27} {:>28}  {}\n", c.label, width,
                       c.iteration.ms(), c.bits_per_iteration * 1e-6, seconds, bits, bound);
  }
  const std::vector<const ConvergenceOutcome*> leaders = first_to_target(result.convergence);
  if (leaders.empty()) {
    out += fmt::format("\nno configuration reached the target within {} iterations{}\n",
                       spec.max_iterations, spec.seeds > 1 ? " in every seed" : "");
  } else if (leaders.front()->seeds.size() < 2) {
    out += fmt::format("\nfirst to target: {} after {:.3f} s{}\n", leaders.front()->label,
                       leaders.front()->seconds_to_target->mean,
                       engine ? " (one seed: no interval to rank by)" : "");
  } else if (leaders.size() == 1) {
    const bool alone = std::count_if(result.convergence.begin(), result.convergence.end(),
                                     [](const ConvergenceOutcome& c) {
                                       return c.seconds_to_target.has_value();
                                     }) == 1;
    out += fmt::format("\nfirst to target: {} after {:.3f} s (mean of {} seeds; {})\n",
                       leaders.front()->label, leaders.front()->seconds_to_target->mean,
                       leaders.front()->seeds.size(),
                       alone ? "the only configuration to reach it in every seed"
                             : "its 95% interval lies below every other's");
  } else {
    std::string names;
    for (const ConvergenceOutcome* c : leaders) {
      names += fmt::format("{}{} ({:.3f} s)", names.empty() ? "" : ", ", c->label,
                           c->seconds_to_target->mean);
    }
    out +=
        fmt::format("\nfirst to target: a tie between {} (their 95% intervals overlap)\n", names);
  }
  return out;
}

// Compute's slowdown beside the collectives as the policies ran: compute.overlap_slowdown (Lee et
// al.'s average unless stated) beside the kernels that run them, over their share.
std::string slowdown_text(const ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  const auto [fewest, most] =
      std::minmax_element(result.outcomes.begin(), result.outcomes.end(),
                          [](const PolicyOutcome& a, const PolicyOutcome& b) {
                            return a.kernel_share < b.kernel_share;
                          });
  if (fewest == result.outcomes.end() || most->overlap_slowdown == 1.0) return "";
  const std::string source =
      config.overlap_slowdown_given ? "compute.overlap_slowdown" : "Lee et al.'s average";
  if (fewest->kernel_share >= 1.0) {
    return fmt::format(" (at 1/{:g} of its speed beside collectives, {})", config.overlap_slowdown,
                       source);
  }
  const auto span = [](const std::string& low, const std::string& high) {
    return low == high ? low : fmt::format("{} to {}", low, high);
  };
  return fmt::format(
      " (at {} of its speed beside communication on average: kernels run {}% of it, beside which "
      "it runs at 1/{:g}, {})",
      span(fmt::format("1/{:.3f}", fewest->overlap_slowdown),
           fmt::format("1/{:.3f}", most->overlap_slowdown)),
      span(fmt::format("{:.0f}", fewest->kernel_share * 100.0),
           fmt::format("{:.0f}", most->kernel_share * 100.0)),
      config.overlap_slowdown, source);
}

std::string summary_table(const ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  const Workload& workload = result.workload;
  const BackwardProfile& profile = result.profile;
  std::string out = fmt::format("scenario   {} ({})\n", config.name, config.source);
  out += fmt::format(
      "model      {}, batch {} per GPU{}, {} layers with gradients, {:.2f} MB of {} "
      "gradients{}\n",
      workload.model, workload.batch_size,
      workload.sequence_length > 0 ? fmt::format(" x {} tokens", workload.sequence_length) : "",
      profile.layers.size(), total_gradient_bytes(workload).megabytes(), workload.gradient_dtype,
      config.wire_bytes_per_element > 0
          ? fmt::format(" ({} bytes per element on the wire)", config.wire_bytes_per_element)
          : "");
  out += fmt::format("trace      {}: {}\n", workload.provenance.method, workload.device);
  out += fmt::format(
      "compute    forward {:.3f} ms + backward {:.3f} ms + optimizer {:.3f} ms = "
      "{:.3f} ms per iteration on one GPU{}{}{}\n",
      profile.forward.ms(), profile.backward.ms(), profile.optimizer.ms(), profile.compute().ms(),
      config.single_gpu_samples_per_s
          ? fmt::format(" (scaled to one GPU's measured {:g} samples/s)",
                        *config.single_gpu_samples_per_s)
          : "",
      slowdown_text(result),
      config.accumulation_steps > 1
          ? fmt::format(" ({} passes accumulated: forward includes the first {})",
                        config.accumulation_steps, config.accumulation_steps - 1)
          : "");
  if (result.iteration_overhead > Time::zero() || result.call_overhead > Time::zero()) {
    const auto& measured = workload.framework_overheads;
    const bool from_trace = measured && (!config.iteration_overhead || !config.call_overhead);
    out += fmt::format("framework  {:.3f} us per iteration + {:.3f} us per message{}\n",
                       result.iteration_overhead.us(), result.call_overhead.us(),
                       from_trace
                           ? fmt::format(" ({} {} measured in the trace)", measured->wrapper,
                                         measured->backend.empty() ? "" : "on " + measured->backend)
                           : "");
  }
  const int nodes = config.gpus / config.gpus_per_node;
  out += fmt::format("cluster    {} GPU{} ({} node{} x {}), {}\n", config.gpus,
                     config.gpus == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s",
                     config.gpus_per_node, collective_text(result));
  if (config.network.stated) {
    out += fmt::format("network    {:.3f} Gbps, {:.3f} us per message{}\n",
                       config.network.link.bandwidth.gbps(), config.network.link.latency.us(),
                       network_origin(config.network));
  } else {
    out += "network    none: one node, whose collectives never leave it\n";
  }
  out +=
      fmt::format("cost       t(S) = {:.3f} us + {:.4f} ns/byte x S per message\n",
                  result.collective_cost.startup.us(), result.collective_cost.ps_per_byte * 1e-3);
  out +=
      fmt::format("run        {} iterations, {} fidelity\n\n", config.iterations, config.fidelity);
  std::size_t width = 15;
  for (const PolicyOutcome& outcome : result.outcomes) {
    width = std::max(width, outcome_label(outcome).size());
  }
  // Sequence models also get tokens/s, after samples/s.
  const bool tokens = workload.sequence_length > 0;
  // The last column: what each GPU sends per iteration (bytes_sent_per_gpu), in MB.
  out += fmt::format("{:<{}} {:>8} {:>10} {:>11}{} {:>8} {:>7} {:>10} {:>11} {:>12}\n", "policy",
                     width, "messages", "iter ms", "samples/s",
                     tokens ? fmt::format(" {:>12}", "tokens/s") : "", "speedup", "eff %",
                     "comm ms", "exposed ms", "sent MB/GPU");
  for (const PolicyOutcome& outcome : result.outcomes) {
    const IterationBreakdown& b = outcome.breakdown;
    const std::optional<double> per_token = tokens_per_second(result, outcome.scaling);
    out += fmt::format(
        "{:<{}} {:>8} {:>10.3f} {:>11.1f}{} {:>8.2f} {:>7.1f} {:>10.3f} {:>11.3f} {:>12.2f}\n",
        outcome_label(outcome), width, b.messages, b.iteration.ms(),
        outcome.scaling.samples_per_second, per_token ? fmt::format(" {:>12.0f}", *per_token) : "",
        outcome.scaling.speedup, 100.0 * outcome.scaling.efficiency, b.communication.ms(),
        b.exposed_communication.ms(), outcome.bytes_sent_per_gpu * 1e-6);
  }
  if (result.outcomes.size() > 1) {
    const auto best = std::min_element(result.outcomes.begin(), result.outcomes.end(),
                                       [](const PolicyOutcome& a, const PolicyOutcome& b) {
                                         return a.breakdown.iteration < b.breakdown.iteration;
                                       });
    out += fmt::format("\nfastest: {} at {:.3f} ms per iteration\n", outcome_label(*best),
                       best->breakdown.iteration.ms());
  }
  for (const PolicyOutcome& outcome : result.outcomes) {
    if (outcome.time_to_target) {
      out += fmt::format("time to target with {}: {:.3f} s\n", outcome_label(outcome),
                         outcome.time_to_target->seconds());
    }
  }
  for (const auto& [spec, unused] : config.compressions) {
    if (biased(spec)) {
      out += fmt::format("error feedback for {}: {:.2f} MB of residuals per GPU\n",
                         compressor_label(spec), total_gradient_bytes(workload).megabytes());
    }
  }
  out += rank_spread_table(result, width);
  if (!result.schedules.empty()) out += schedule_table(result);
  if (!result.sharding.empty()) out += sharding_table(result);
  if (!result.jobs.empty()) out += jobs_table(result);
  if (config.convergence) out += convergence_table(result);
  return out;
}

// Every configuration's curve and time to target, for plots/convergence.py.
nlohmann::ordered_json convergence_json(const ScenarioResult& result) {
  if (!result.config.convergence) return nlohmann::ordered_json();
  const auto optional_number = [](std::optional<double> value) {
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json();
  };
  const auto interval = [](const std::optional<convergence::Interval>& i) {
    if (!i) return nlohmann::ordered_json();
    return nlohmann::ordered_json{
        {"samples", i->samples}, {"mean", i->mean}, {"low", i->low}, {"high", i->high}};
  };
  nlohmann::ordered_json configurations = nlohmann::ordered_json::array();
  for (const ConvergenceOutcome& c : result.convergence) {
    nlohmann::ordered_json seeds = nlohmann::ordered_json::array();
    for (const SeedRun& run : c.seeds) {
      seeds.push_back(
          {{"seed", run.seed},
           {"iterations_to_target", run.iterations_to_target
                                        ? nlohmann::ordered_json(*run.iterations_to_target)
                                        : nlohmann::ordered_json()},
           {"time_to_target_us", run.time_to_target
                                     ? nlohmann::ordered_json(run.time_to_target->us())
                                     : nlohmann::ordered_json()},
           {"final_test_accuracy", optional_number(run.final_accuracy)},
           {"bits_to_target", optional_number(run.bits_to_target)},
           {"rounds_to_target", run.rounds_to_target ? nlohmann::ordered_json(*run.rounds_to_target)
                                                     : nlohmann::ordered_json()}});
    }
    nlohmann::ordered_json curve = nlohmann::ordered_json::array();
    for (const ConvergencePoint& p : c.curve) {
      nlohmann::ordered_json point{{"iteration", p.iteration}, {"time_us", p.time.us()}};
      if (p.loss) point["loss"] = *p.loss;
      if (p.variance) point["variance"] = *p.variance;
      if (p.test_accuracy) point["test_accuracy"] = *p.test_accuracy;
      if (p.test_loss) point["test_loss"] = *p.test_loss;
      if (p.bits_sent) point["bits_sent"] = *p.bits_sent;
      curve.push_back(std::move(point));
    }
    configurations.push_back(
        {{"label", c.label},
         {"iterations_to_target", c.iterations_to_target
                                      ? nlohmann::ordered_json(*c.iterations_to_target)
                                      : nlohmann::ordered_json()},
         {"iteration_us", c.iteration.us()},
         {"bits_per_iteration", c.bits_per_iteration},
         {"message_bits_per_iteration", c.message_bits_per_iteration},
         {"time_to_target_us", c.time_to_target ? nlohmann::ordered_json(c.time_to_target->us())
                                                : nlohmann::ordered_json()},
         {"final_test_accuracy", optional_number(c.final_accuracy)},
         {"final_test_loss", optional_number(c.final_loss)},
         {"averaging_rounds", c.averaging_rounds},
         {"measured_delta", optional_number(c.measured_delta)},
         {"measured_omega", optional_number(c.measured_omega)},
         {"bound_delta", optional_number(c.bound_delta)},
         {"bound_omega", optional_number(c.bound_omega)},
         {"timed_bound_delta", optional_number(c.timed_delta)},
         {"timed_bound_omega", optional_number(c.timed_omega)},
         {"seeds", std::move(seeds)},
         {"seconds_to_target", interval(c.seconds_to_target)},
         {"iterations_to_target_interval", interval(c.iterations_interval)},
         {"final_test_accuracy_interval", interval(c.accuracy_interval)},
         {"bits_to_target_interval", interval(c.bits_interval)},
         {"curve", std::move(curve)}});
  }
  nlohmann::ordered_json leaders = nlohmann::ordered_json::array();
  for (const ConvergenceOutcome* c : first_to_target(result.convergence))
    leaders.push_back(c->label);
  const ConvergenceSpec& spec = *result.config.convergence;
  nlohmann::ordered_json milestones = spec.schedule.milestones;
  return {{"task", spec.task},
          {"data", result.convergence_source},
          {"proxy_parameters", result.convergence_parameters},
          {"timed_model", result.workload.model},
          {"timed_gradient_elements", total_gradient_elements(result.workload)},
          {"workers", spec.workers},
          {"batch", spec.batch},
          {"learning_rate", spec.learning_rate},
          {"learning_rate_schedule",
           {{"decay",
             convergence::learning_rate_decays()[static_cast<std::size_t>(spec.schedule.decay)]},
            {"warmup", spec.schedule.warmup},
            {"milestones", std::move(milestones)},
            {"gamma", spec.schedule.gamma}}},
          {"momentum", spec.momentum},
          {"weight_decay", spec.weight_decay},
          {"seeds", spec.task == "measured" ? 1 : spec.seeds},
          {"first_to_target", std::move(leaders)},
          {"target", spec.target_accuracy ? "accuracy" : "loss"},
          {"target_value", spec.target_accuracy ? *spec.target_accuracy : *spec.target_loss},
          {"configurations", std::move(configurations)}};
}

nlohmann::ordered_json policy_summary(const ScenarioResult& result, const PolicyOutcome& outcome) {
  const IterationBreakdown& b = outcome.breakdown;
  // Convergence factors of the compressor applied to the whole model (d = all parameters).
  const CompressionQuality quality_factors =
      quality(outcome.compression, total_gradient_elements(result.workload));
  auto optional_number = [](std::optional<double> value) {
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json();
  };
  return {{"policy", policy_name(outcome.policy)},
          {"label", outcome_label(outcome)},
          {"compression", compressor_label(outcome.compression)},
          {"merge_units", outcome.per_tensor ? "tensors" : "layers"},
          {"error_feedback_bytes", outcome.error_feedback.count()},
          {"compressor_delta", optional_number(quality_factors.delta)},
          {"compressor_omega", optional_number(quality_factors.omega)},
          {"time_to_target_us", outcome.time_to_target
                                    ? nlohmann::ordered_json(us(*outcome.time_to_target))
                                    : nlohmann::ordered_json()},
          {"iteration_us", us(b.iteration)},
          {"samples_per_second", outcome.scaling.samples_per_second},
          {"tokens_per_second", optional_number(tokens_per_second(result, outcome.scaling))},
          {"speedup", outcome.scaling.speedup},
          {"scaling_efficiency", outcome.scaling.efficiency},
          {"compute_us", us(b.compute)},
          {"communication_us", us(b.communication)},
          {"exposed_communication_us", us(b.exposed_communication)},
          {"overlapped_communication_us", us(b.overlapped_communication)},
          {"overlap_slowdown", outcome.overlap_slowdown},
          {"kernel_share", outcome.kernel_share},
          {"messages", b.messages},
          {"simulated_events", outcome.simulation.events},
          {"gradient_bytes", b.gradient_bytes.count()},
          {"bytes_sent_per_gpu", outcome.bytes_sent_per_gpu},
          {"per_rank", rank_spread_json(outcome.simulation)}};
}

namespace {

// A range's fields, then the fastest policy's iteration as run and at the range's two ends.
template <typename Range>
nlohmann::ordered_json with_fastest(nlohmann::ordered_json fields, const Range& range) {
  fields["fastest_iteration_us"] = us(range.fastest_assumed);
  fields["fastest_iteration_low_us"] = us(range.fastest_low);
  fields["fastest_iteration_high_us"] = us(range.fastest_high);
  return fields;
}

nlohmann::ordered_json node_range_json(const ScenarioResult& result) {
  if (!result.node_range) return nullptr;
  const NodeRange& range = *result.node_range;
  return with_fastest({{"gpus_per_node", range.gpus_per_node},
                       {"presets", range.presets},
                       {"assumed_gbps", range.assumed_gbps},
                       {"low_gbps", range.low_gbps},
                       {"low_preset", range.low_preset},
                       {"high_gbps", range.high_gbps},
                       {"high_preset", range.high_preset}},
                      range);
}

nlohmann::ordered_json transport_range_json(const ScenarioResult& result) {
  if (!result.transport_range) return nullptr;
  const TransportRange& range = *result.transport_range;
  return with_fastest({{"transport", range.transport},
                       {"connections", range.connections},
                       {"assumed_gbps", range.assumed_gbps},
                       {"low_gbps", range.low_gbps},
                       {"high_gbps", range.high_gbps},
                       {"network_gbps", range.network_gbps},
                       {"network_low_gbps", range.network_low_gbps},
                       {"network_high_gbps", range.network_high_gbps}},
                      range);
}

nlohmann::ordered_json host_read_range_json(const ScenarioResult& result) {
  if (!result.host_read_range) return nullptr;
  const HostReadRange& range = *result.host_read_range;
  return with_fastest({{"assumed", range.assumed},
                       {"low", range.low},
                       {"high", range.high},
                       {"intra_node_gbps", range.intra_gbps},
                       {"intra_node_low_gbps", range.intra_low_gbps},
                       {"intra_node_high_gbps", range.intra_high_gbps},
                       {"network_gbps", or_null(range.network, range.network_gbps)},
                       {"network_low_gbps", or_null(range.network, range.network_low_gbps)},
                       {"network_high_gbps", or_null(range.network, range.network_high_gbps)},
                       {"server_gbps", range.server_gbps},
                       {"server_low_gbps", range.server_low_gbps},
                       {"server_high_gbps", range.server_high_gbps}},
                      range);
}

nlohmann::ordered_json overlap_range_json(const ScenarioResult& result) {
  if (!result.overlap_range) return nullptr;
  const OverlapRange& range = *result.overlap_range;
  return with_fastest({{"assumed", range.assumed}, {"low", range.low}, {"high", range.high}},
                      range);
}

nlohmann::ordered_json combined_range_json(const ScenarioResult& result) {
  if (!result.combined_range) return nullptr;
  const CombinedRange& range = *result.combined_range;
  return with_fastest({{"facts", range.facts}}, range);
}

}  // namespace

namespace {

nlohmann::ordered_json memory_json(const ShardMemory& memory) {
  return {{"parameters_bytes", memory.parameters},
          {"gradients_bytes", memory.gradients},
          {"optimizer_bytes", memory.optimizer},
          {"at_rest_bytes", memory.at_rest()},
          {"peak_bytes", memory.peak}};
}

// The `sharding` section of the result (training/sharding.hpp).
nlohmann::ordered_json sharding_json(const ScenarioResult& result) {
  const ShardedModel& model = result.sharded_model;
  nlohmann::ordered_json units = nlohmann::ordered_json::array();
  for (const ShardUnit& unit : model.units) {
    units.push_back({{"name", unit.name}, {"parameters", unit.elements}});
  }
  nlohmann::ordered_json strategies = nlohmann::ordered_json::array();
  for (const ShardingOutcome& s : result.sharding) {
    const ShardingResult& sim = s.simulation;
    nlohmann::ordered_json phases;
    for (int phase = 0; phase < shard_phases; ++phase) {
      const auto k = static_cast<std::size_t>(phase);
      std::string key(phase_name(static_cast<ShardPhase>(phase)));
      std::replace(key.begin(), key.end(), ' ', '_');
      std::replace(key.begin(), key.end(), '-', '_');
      phases[key] = {{"busy_us", us(sim.busy[k])},
                     {"exposed_us", us(sim.exposed[k])},
                     {"bytes_sent_per_gpu", sim.bytes_sent[k]}};
    }
    nlohmann::ordered_json operations = nlohmann::ordered_json::array();
    for (const ShardOperation& op : sim.last.operations) {
      operations.push_back({{"phase", phase_name(op.phase)},
                            {"unit", op.unit},
                            {"bytes", op.bytes.count()},
                            {"start_us", us(op.start - sim.last.start)},
                            {"end_us", us(op.end - sim.last.start)}});
    }
    strategies.push_back({{"strategy", strategy_info(s.strategy).name},
                          {"label", strategy_info(s.strategy).display()},
                          {"group_gpus", s.group_gpus},
                          {"iteration_us", us(sim.mean_iteration())},
                          {"samples_per_second", s.scaling.samples_per_second},
                          {"speedup", s.scaling.speedup},
                          {"efficiency", s.scaling.efficiency},
                          {"phases", std::move(phases)},
                          {"memory", memory_json(s.memory)},
                          {"operations", std::move(operations)}});
  }
  const ShardingSettings& settings = result.sharding_settings;
  return {{"parameters", model.elements()},
          {"root_parameters", model.root_elements},
          {"units", std::move(units)},
          {"parameter_bytes", settings.parameter_bytes},
          {"optimizer_state_bytes", settings.optimizer_state_bytes},
          {"forward_prefetch", settings.forward_prefetch},
          {"backward_prefetch", settings.backward_prefetch},
          {"limit_all_gathers", settings.gathered_limit},
          {"passes", settings.passes},
          {"accumulation", accumulation_modes()[settings.no_sync ? 1 : 0]},
          {"replicated_memory", memory_json(result.replicated_memory)},
          {"strategies", std::move(strategies)}};
}

// The `jobs` section of the result (scenario/jobs.hpp).
nlohmann::ordered_json jobs_json(const ScenarioResult& result) {
  if (result.jobs.empty()) return nullptr;
  nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
  for (const JobOutcome& job : result.jobs) {
    nlohmann::ordered_json iterations = nlohmann::ordered_json::array();
    for (const IterationTimeline& iteration : job.shared.iterations) {
      iterations.push_back({{"start_us", us(iteration.start)}, {"end_us", us(iteration.end)}});
    }
    jobs.push_back({{"name", job.name},
                    {"trace", job.trace},
                    {"gpus", job.gpus},
                    {"nodes", job.nodes},
                    {"collective", job.collective},
                    {"policy", job.policy.name()},
                    {"start_us", us(job.start)},
                    {"messages", job.messages},
                    {"alone_iteration_us", us(job.alone.mean_iteration())},
                    {"iteration_us", us(job.shared.mean_iteration())},
                    {"slowdown", job.slowdown()},
                    {"samples_per_second", job.scaling.samples_per_second},
                    {"speedup", job.scaling.speedup},
                    {"efficiency", job.scaling.efficiency},
                    {"communication_us", us(job.communication())},
                    {"contends_with", job.contends_with},
                    {"iterations", std::move(iterations)}});
  }
  const JobsSpec& spec = *result.config.jobs;
  return {{"fabric_gpus", result.fabric_gpus},
          {"placement", spec.placement},
          {"seed", spec.seed},
          {"jobs", std::move(jobs)}};
}

}  // namespace

nlohmann::ordered_json result_json(const ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  nlohmann::ordered_json policies = nlohmann::ordered_json::array();
  for (const PolicyOutcome& outcome : result.outcomes) {
    nlohmann::ordered_json messages = nlohmann::ordered_json::array();
    for (const ScheduledMessage& message : outcome.simulation.last.messages) {
      messages.push_back({{"layers", layer_span(result, outcome, message.group)},
                          {"first_layer", message.group.first},
                          {"last_layer", message.group.last},
                          {"bytes", message.bytes.count()},
                          {"ready_us", us(message.ready)},
                          {"start_us", us(message.start)},
                          {"end_us", us(message.end)}});
    }
    nlohmann::ordered_json policy = policy_summary(result, outcome);
    policy["message_breakdown"] = std::move(messages);
    policies.push_back(std::move(policy));
  }
  nlohmann::ordered_json schedules = nlohmann::ordered_json::array();
  for (const ScheduleOutcome& s : result.schedules) {
    nlohmann::ordered_json entry{{"schedule", averaging_label(s.spec)},
                                 {"rounds", s.rounds.size()},
                                 {"averaging_iterations", s.rounds},
                                 {"local_iteration_us", us(s.local_iteration)},
                                 {"averaging_iteration_us", us(s.averaging_iteration)},
                                 {"total_us", us(s.total)},
                                 {"bytes_sent_per_gpu", s.bytes_sent_per_gpu()},
                                 {"speedup_vs_full_sgd", s.speedup}};
    if (s.time_to_target) {
      entry["iterations_to_target"] = *s.iterations_to_target;
      entry["time_to_target_us"] = us(*s.time_to_target);
      entry["target_source"] = s.target_source;
    }
    schedules.push_back(std::move(entry));
  }
  nlohmann::ordered_json averaging;
  if (!result.schedules.empty()) {
    averaging = {{"run_iterations", config.run_iterations},
                 {"baseline", outcome_label(result.outcomes[result.baseline])},
                 {"schedules", std::move(schedules)}};
  }
  nlohmann::ordered_json sharding;
  if (!result.sharding.empty()) sharding = sharding_json(result);
  return {{"format", "sgdsim-result"},
          {"schema_version", result_schema_version},
          {"scenario", config.name},
          {"scenario_file", config.source},
          {"model", result.workload.model},
          {"trace_method", result.workload.provenance.method},
          {"batch_size", result.workload.batch_size},
          {"sequence_length", result.workload.sequence_length > 0
                                  ? nlohmann::ordered_json(result.workload.sequence_length)
                                  : nlohmann::ordered_json()},
          {"gpus", config.gpus},
          {"gpus_per_node", config.gpus_per_node},
          {"collective", result.collective_name},
          {"bandwidth_gbps", or_null(config.network.stated, config.network.line_rate.gbps())},
          {"goodput_gbps", or_null(config.network.stated, config.network.link.bandwidth.gbps())},
          {"latency_us", or_null(config.network.stated, us(config.network.link.latency))},
          {"collective_startup_us", us(result.collective_cost.startup)},
          {"collective_ns_per_byte", result.collective_cost.ps_per_byte * 1e-3},
          {"framework_iteration_overhead_us", us(result.iteration_overhead)},
          {"framework_message_overhead_us", us(result.call_overhead)},
          {"overlap_slowdown", config.overlap_slowdown},
          {"fidelity", config.fidelity},
          {"iterations", config.iterations},
          {"seed", config.seed},
          {"single_gpu_iteration_us", us(result.profile.compute())},
          {"policies", std::move(policies)},
          {"averaging", std::move(averaging)},
          {"sharding", std::move(sharding)},
          {"jobs", jobs_json(result)},
          {"convergence", convergence_json(result)},
          {"node_range", node_range_json(result)},
          {"transport_range", transport_range_json(result)},
          {"host_read_range", host_read_range_json(result)},
          {"overlap_range", overlap_range_json(result)},
          {"combined_range", combined_range_json(result)},
          {"provenance", provenance_json(config)}};
}

std::string csv_field(std::string_view text, bool always_quote) {
  const bool edge_space = !text.empty() && (text.front() == ' ' || text.back() == ' ');
  if (!always_quote && !edge_space && text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::optional<std::vector<CsvField>> split_csv_line(std::string_view line) {
  std::vector<CsvField> fields(1);
  bool in_quotes = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back().text += '"';
      ++i;
    } else if (c == '"') {
      in_quotes = !in_quotes;
      fields.back().quoted = true;
    } else if (c == ',' && !in_quotes) {
      fields.emplace_back();
    } else {
      fields.back().text += c;
    }
  }
  if (in_quotes) return std::nullopt;
  return fields;
}

std::string csv_header() {
  return "scenario,model,batch_size,gpus,bandwidth_gbps,goodput_gbps,collective,policy,compression,"
         "iteration_us,samples_per_second,tokens_per_second,speedup,scaling_efficiency,"
         "compute_us,communication_us,exposed_communication_us,overlapped_communication_us,"
         "messages,gradient_bytes,bytes_sent_per_gpu,shard_group_gpus,memory_at_rest_bytes,"
         "memory_peak_bytes,job,alone_iteration_us,slowdown,overlap_slowdown,kernel_share,"
         "schema_version";
}

std::vector<std::string> csv_rows(const ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  std::vector<std::string> rows;
  for (const PolicyOutcome& outcome : result.outcomes) {
    const IterationBreakdown& b = outcome.breakdown;
    const std::optional<double> tokens = tokens_per_second(result, outcome.scaling);
    rows.push_back(fmt::format(
        "{},{},{},{},{},{},{},{},{:.6f},{:.3f},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},"
        "{:.6f},{},{},{:.0f},,,,,,,{:.6f},{:.6f},{}",
        csv_field(config.name), csv_field(result.workload.model), result.workload.batch_size,
        config.gpus, network_cells(config.network), csv_field(result.collective_name, true),
        csv_field(policy_name(outcome.policy)),
        csv_field(compressor_label(outcome.compression), true), us(b.iteration),
        outcome.scaling.samples_per_second, tokens ? fmt::format("{:.1f}", *tokens) : "",
        outcome.scaling.speedup, outcome.scaling.efficiency, us(b.compute), us(b.communication),
        us(b.exposed_communication), us(b.overlapped_communication), b.messages,
        b.gradient_bytes.count(), outcome.bytes_sent_per_gpu, outcome.overlap_slowdown,
        outcome.kernel_share, result_schema_version));
  }
  // Sharded strategies: the strategy in `policy`; communication is time on the stream, exposed
  // what compute waited for; messages are the collectives of an iteration.
  for (const ShardingOutcome& s : result.sharding) {
    const ShardingResult& sim = s.simulation;
    const Time busy = sim.total_busy();
    const Time exposed = sim.total_exposed();
    const Time iteration = sim.mean_iteration();
    const std::optional<double> tokens = tokens_per_second(result, s.scaling);
    rows.push_back(fmt::format(
        "{},{},{},{},{},{},{},{},{:.6f},{:.3f},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},"
        "{:.6f},{},{},{:.0f},{},{:.0f},{:.0f},,,,{:.6f},1,{}",
        csv_field(config.name), csv_field(result.workload.model), result.workload.batch_size,
        config.gpus, network_cells(config.network), csv_field(result.collective_name, true),
        strategy_info(s.strategy).name, csv_field("none", true), us(iteration),
        s.scaling.samples_per_second, tokens ? fmt::format("{:.1f}", *tokens) : "",
        s.scaling.speedup, s.scaling.efficiency, us(iteration - exposed), us(busy), us(exposed),
        us(hidden_communication(busy, exposed)), sim.last.operations.size(),
        result.sharded_model.elements() * result.sharding_settings.parameter_bytes,
        sim.total_bytes_sent(), s.group_gpus, s.memory.at_rest(), s.memory.peak,
        config.overlap_slowdown, result_schema_version));
  }
  // Jobs sharing the fabric: one row each, named in `job`, its figures shared, its own model,
  // GPUs, collective and policy.
  for (const JobOutcome& job : result.jobs) {
    const Time iteration = job.shared.mean_iteration();
    const Time busy = job.communication();
    const Time exposed = iteration - job.compute;
    rows.push_back(fmt::format(
        "{},{},{},{},{},{},{},{},{:.6f},{:.3f},,{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},"
        "{:.6f},{},{},{:.0f},,,,{},{:.6f},{:.6f},,,{}",
        csv_field(config.name), csv_field(job.model), job.batch_size, job.gpus,
        network_cells(config.network), csv_field(job.collective, true),
        csv_field(policy_name(job.policy)), csv_field("none", true), us(iteration),
        job.scaling.samples_per_second, job.scaling.speedup, job.scaling.efficiency,
        us(job.compute), us(busy), us(exposed), us(hidden_communication(busy, exposed)),
        job.messages, job.gradient_bytes, job.bytes_sent_per_gpu, csv_field(job.name, true),
        us(job.alone.mean_iteration()), job.slowdown(), result_schema_version));
  }
  return rows;
}

std::string result_csv(const ScenarioResult& result) {
  std::string out = csv_header() + "\n";
  for (const std::string& row : csv_rows(result)) out += row + "\n";
  return out;
}

std::string messages_csv(const ScenarioResult& result) {
  std::string out =
      "policy,compression,message,first_layer,last_layer,layers,bytes,ready_us,start_us,end_us,"
      "schema_version\n";
  for (const PolicyOutcome& outcome : result.outcomes) {
    int index = 0;
    for (const ScheduledMessage& message : outcome.simulation.last.messages) {
      out += fmt::format(
          "{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{}\n", csv_field(policy_name(outcome.policy)),
          csv_field(compressor_label(outcome.compression), true), index++, message.group.first,
          message.group.last, csv_field(layer_span(result, outcome, message.group), true),
          message.bytes.count(), us(message.ready), us(message.start), us(message.end),
          result_schema_version);
    }
  }
  return out;
}

}  // namespace sgdsim
