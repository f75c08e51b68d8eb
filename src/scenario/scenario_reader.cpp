// Scenario schema v1 reader. Defaults live here and in scenarios/README.md, nowhere else.
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/jobs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "sgdsim/collectives/byteps.hpp"
#include "sgdsim/collectives/chunked_collective.hpp"
#include "sgdsim/convergence/networks.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/jsonio/declared_keys.hpp"
#include "sgdsim/scenario/communication_reader.hpp"
#include "sgdsim/scenario/node_presets.hpp"
#include "sgdsim/scenario/registry_reader.hpp"
#include "sgdsim/training/iteration_simulation.hpp"

namespace sgdsim {

namespace {

Transport make_transport(std::string name, double goodput, double overhead_us = 0.0,
                         double cap_gbps = 0.0, double cap_low_gbps = 0.0,
                         double cap_high_gbps = 0.0) {
  Transport t;
  t.name = std::move(name);
  t.goodput_fraction = goodput;
  t.message_overhead = Time::from_us(overhead_us);
  t.flow_cap = Bandwidth::from_gbps(cap_gbps);
  t.flow_cap_low = Bandwidth::from_gbps(cap_low_gbps);
  t.flow_cap_high = Bandwidth::from_gbps(cap_high_gbps);
  return t;
}

// A transport through the kernel's sockets (Transport::host_memory_only).
Transport through_sockets(Transport t) {
  t.host_memory_only = true;
  return t;
}

// What one kernel TCP connection reaches, and its plausible range (scenarios/README.md,
// "Transports"): one NCCL socket ring reached 2.06 GB/s (16.48 Gbit/s) on a 32 Gb/s network
// (NVIDIA/nccl issue #209, NCCL 2.3.7, one ring), where BytePS's docs (docs/best-practice.md)
// need two TCP connections per server for 25 Gb/s and three for 40-50 Gb/s (12.5-16.7 Gbit/s
// each). The range: the same table's two rings reached 2.77 GB/s, 11.08 Gbit/s per connection
// (connections do not add up fully); ESnet ("Performance Expectations for a 100G Host",
// fasterdata.es.net) sees one stream reach up to 35 Gbit/s on a well-tuned host.
constexpr double tcp_connection_gbps = 2.06 * 8.0;
constexpr double tcp_connection_low_gbps = 2.77 * 8.0 / 2.0;
constexpr double tcp_connection_high_gbps = 35.0;
// IPoIB: one stream reached 7.19 Gbit/s on ConnectX-2 QDR (iperf3, gist suma/738de00f); no
// public figure for FDR or EDR, so the range runs from that to ESnet's tuned TCP stream.
constexpr double ipoib_connection_low_gbps = 7.19;
// Software cost per message over kernel TCP: OSU MPI_Allreduce fits on the MG-WFBP authors'
// 10 GbE cluster (shyhuai/B-Caffe logdata, a = 114 / 259 / 832 us on 2 / 4 / 8 nodes, ring
// steps 2(N - 1)) give 57, 43 and 59 us per step; their median less the 5 us default link
// latency.
constexpr double tcp_message_overhead_us = 57.0 - 5.0;

}  // namespace

const std::vector<Transport>& transports() {
  static const std::vector<Transport> all{
      // NCCL's maintainers: about 12 GB/s of bus bandwidth per 100 Gb/s NIC (nccl-tests issue
      // #119), 46-48 GB/s per 400 Gb/s NIC (#290): 12 x 8 / 100 = 0.96.
      make_transport("rdma", 0.96),
      // RoCE: ib_write_bw reaches 23 of 25 Gbit/s (linux-rdma/perftest #219) and 392 of 400
      // with one QP (NVIDIA/nccl #2409); NCCL's maintainers found 8 x 100 Gb/s of RoCE
      // "roughly matching our expectation" for IB (NVIDIA/nccl #495): InfiniBand's 0.96.
      make_transport("roce", 0.96),
      // TCP payload per Ethernet frame at MTU 1500: 1,448 bytes (1,500 less IP 20, TCP 20 and
      // timestamps 12) of 1,538 on the wire (header and FCS 18, preamble and gap 20).
      through_sockets(make_transport("tcp", 1448.0 / 1538.0, tcp_message_overhead_us,
                                     tcp_connection_gbps, tcp_connection_low_gbps,
                                     tcp_connection_high_gbps)),
      // TCP payload per IPoIB datagram (MTU 2,044: the 2,048-byte IB MTU less the 4-byte IPoIB
      // header): 1,992 bytes of 2,082 on the wire (LRH 8, BTH 12, DETH 8, ICRC 4, VCRC 2). One
      // connection is the kernel's TCP stream, as over Ethernet.
      through_sockets(make_transport("ipoib", 1992.0 / 2082.0, tcp_message_overhead_us,
                                     tcp_connection_gbps, ipoib_connection_low_gbps,
                                     tcp_connection_high_gbps)),
      // IPoIB in connected mode (reliable connections, IP MTU 65,520, the Linux kernel's
      // Documentation/infiniband/ipoib): a TCP segment carries 65,468 bytes (less IP 20, TCP 20
      // and timestamps 12); with the 4-byte IPoIB header it is cut into 16 packets of the
      // 4,096-byte IB MTU, each with LRH 8, BTH 12, ICRC 4 and VCRC 2 bytes: 65,940 on the wire.
      through_sockets(make_transport("ipoib_connected", 65468.0 / 65940.0, tcp_message_overhead_us,
                                     tcp_connection_gbps, ipoib_connection_low_gbps,
                                     tcp_connection_high_gbps)),
  };
  return all;
}

namespace {

// The processes whose transfers share one NIC: a node's GPUs, unless each has its own.
int processes_per_nic(const ScenarioConfig& config) {
  return config.nic_per_gpu ? 1 : config.gpus_per_node;
}

}  // namespace

int default_connections(const ScenarioConfig& config) {
  const std::string& name = config.collective->name;
  // Every GPU pushes to every server at once, one connection each (ps-lite: one per pair of
  // processes); BytePS pushes once per machine, after its local reduce.
  if (name == "parameter_server") {
    return processes_per_nic(config) *
           static_cast<int>(config.collective_settings.integer("servers"));
  }
  if (name == "byteps") return static_cast<int>(config.collective_settings.integer("servers"));
  // NCCL builds two channels per NIC (src/graph/connect.cc doubles them; "2 currently, to
  // ensure proper overlap", NVIDIA/nccl #438), each with one data socket on bare metal
  // (src/transport/net_socket.cc: no helper threads, one socket, since 2.5.6).
  if (name == "ring_allreduce" || name == "double_binary_tree" || name == "hierarchical") return 2;
  return processes_per_nic(config);  // MPI's halving-doubling: one connection per rank
}

Bandwidth transport_rate(const Transport& transport, Bandwidth line, Bandwidth flow_cap,
                         int connections) {
  double bits = line.bits_per_second() * transport.goodput_fraction;
  if (flow_cap.bits_per_second() > 0.0) {
    bits = std::min(bits, flow_cap.bits_per_second() * std::max(connections, 1));
  }
  return Bandwidth::from_bits_per_second(bits);
}

void cap_connections(ScenarioConfig& config, Bandwidth per_connection) {
  NetworkConfig& network = config.network;
  const Transport& transport = *network.transport;
  network.link.bandwidth = std::min(
      network.worker_path,
      transport_rate(transport, network.line_rate, per_connection, transport.connections_used));
  // A dedicated server holds one connection from every worker process that pushes to it.
  const std::string& name = config.collective->name;
  if (name == "parameter_server" || name == "byteps") {
    const int pushing = name == "byteps" ? config.gpus / config.gpus_per_node : config.gpus;
    network.server_default = std::min(
        network.fabric, transport_rate(transport, network.line_rate, per_connection, pushing));
  }
}

const std::vector<std::string>& convergence_tasks() {
  static const std::vector<std::string> tasks{"fashion_mnist_softmax", "fashion_mnist_mlp",
                                              "fashion_mnist_lenet",   "fashion_mnist_resnet",
                                              "synthetic_logistic",    "measured"};
  return tasks;
}

const std::vector<std::string>& error_feedback_modes() {
  static const std::vector<std::string> modes{"biased", "always", "never", "both"};
  return modes;
}

const std::vector<std::string>& convergence_stops() {
  static const std::vector<std::string> stops{"target", "max_iterations"};
  return stops;
}

std::vector<std::string> transport_names() {
  std::vector<std::string> names;
  for (const Transport& transport : transports()) names.push_back(transport.name);
  return names;
}

namespace {

// Stated in docs/guide.md ("Limits"), each where a run still finishes in about a minute on one core
// (measured there). A transfer program holds O(GPUs) transfers per distinct step (a ring's
// repeated steps are stored once): at 65,536 GPUs a ring prices ASTRA-sim's ResNet-50 workload
// in about a second and 65 MB. A parameter server's push and pull send one transfer per worker
// and server, routed in closed form: time and memory grow as workers x servers (2^20, 65,536 x
// 16 or 4,096 x 256: 3.6 s and 0.55 GB; 2^21 about twice that).
// Concurrent jobs are identical: one program whose flows count once per job costs as much as
// one job (2 jobs of 2,048 GPUs on a 4:1 fat-tree, ring: 48 s before, 0.70 s now).
// (max_flow_gpus is in scenario_reader.hpp: the jobs section reads it too.)
constexpr double max_flow_ps_cost = 0x1p21;  // workers x servers
// per_rank simulates every GPU in every iteration, about 3e7 GPU-iterations a second per policy
// (64 GPUs x 100,000 iterations x 6 policies: 1.25 s); beyond 2^32 (about 2.5 minutes) the run
// says up front what it will cost.
constexpr double per_rank_note_cost = 0x1p32;
constexpr double per_rank_gpu_iterations_per_second = 3e7;

// convergence.curves: {label: CSV file} for the measured task, each label one of the scenario's
// compressors or averaging schedules.
void read_curves(jsonio::ObjectReader& reader, ScenarioConfig& config, ConvergenceSpec& spec,
                 const std::filesystem::path& base) {
  std::vector<std::string> labels;
  for (const auto& [compression, unused] : config.compressions) {
    labels.push_back(compressor_label(compression));
  }
  for (const AveragingSpec& schedule : config.schedules) {
    labels.push_back(averaging_label(schedule));
  }
  if (spec.task != "measured") {
    if (reader.has("curves")) {
      reader.fail("curves", "no curves unless task is \"measured\" (the engine trains the others)",
                  reader.value("curves"));
    }
    return;
  }
  const nlohmann::json& curves = reader.value("curves");
  if (!curves.is_object() || curves.empty()) {
    reader.fail("curves", "an object {configuration label: CSV file} with at least one entry",
                curves);
  }
  for (const auto& [label, file] : curves.items()) {
    const std::string path = reader.path_of("curves") + "." + label;
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) {
      std::string known;
      for (const std::string& l : labels) known += (known.empty() ? "" : ", ") + l;
      throw value_error(reader.source(), path,
                        fmt::format("a compressor or schedule of this scenario ({})", known),
                        fmt::format("\"{}\"", label));
    }
    if (!file.is_string()) {
      throw value_error(reader.source(), path, "a CSV file name", jsonio::describe(file));
    }
    spec.curves.emplace_back(label, base / file.get<std::string>());
    config.input_files.push_back(spec.curves.back().second);  // never an output's name
  }
}

// convergence.learning_rate_schedule: a decay and its parameters, checked against the run.
convergence::LearningRateSchedule read_learning_rate_schedule(jsonio::ObjectReader reader,
                                                              int iterations) {
  using Decay = convergence::LearningRateSchedule::Decay;
  convergence::LearningRateSchedule schedule;
  const std::vector<std::string>& decays = convergence::learning_rate_decays();
  const std::string decay = reader.choice_or("decay", decays, "constant");
  schedule.decay =
      static_cast<Decay>(std::find(decays.begin(), decays.end(), decay) - decays.begin());
  schedule.warmup = static_cast<int>(reader.integer_in_or("warmup", 0, 1 << 30, 0));
  if (schedule.warmup >= iterations) {
    reader.fail("warmup",
                fmt::format("fewer iterations than the run's {} (max_iterations): a warm-up "
                            "that never ends never reaches the base rate",
                            iterations),
                schedule.warmup);
  }
  for (const char* key : {"milestones", "gamma"}) {
    if (reader.has(key) && schedule.decay != Decay::step) {
      reader.fail(key, "nothing unless decay is \"step\"", reader.value(key));
    }
  }
  if (schedule.decay == Decay::step) {
    const std::string expected = fmt::format(
        "a non-empty array of increasing iterations in 1..{} (each a step the run takes after "
        "it)",
        iterations - 1);
    if (!reader.has("milestones")) reader.fail("milestones", expected, nullptr);
    const nlohmann::json& milestones = reader.value("milestones");
    if (!milestones.is_array() || milestones.empty())
      reader.fail("milestones", expected, milestones);
    for (const nlohmann::json& m : milestones) {
      if (!m.is_number_integer() || m.get<std::int64_t>() < 1 ||
          m.get<std::int64_t>() >= iterations ||
          (!schedule.milestones.empty() && m.get<std::int64_t>() <= schedule.milestones.back())) {
        reader.fail("milestones", expected, milestones);
      }
      schedule.milestones.push_back(m.get<int>());
    }
    schedule.gamma = reader.positive_number_or("gamma", 0.1);
    if (schedule.gamma >= 1.0) {
      reader.fail("gamma", "a factor in (0, 1): each milestone decays the rate", schedule.gamma);
    }
  }
  reader.reject_unknown_keys();
  return schedule;
}

void read_convergence(jsonio::ObjectReader reader, ScenarioConfig& config,
                      const std::filesystem::path& base) {
  ConvergenceSpec spec;
  spec.path = reader.path();
  spec.task = reader.choice_or("task", convergence_tasks(), "");
  if (spec.task.empty()) reader.fail("task", "one of the convergence tasks", nullptr);
  if (convergence::task_network(spec.task) && !convergence::networks_available()) {
    reader.fail("task",
                "a task this build can train: its networks train with libtorch, and this build "
                "has no libsgdsim_networks.so (install Debian's libtorch-dev and reconfigure: "
                "meson setup --reconfigure BUILD; tools/run.sh does both)",
                spec.task);
  }
  jsonio::ObjectReader target = reader.object("target");
  if (target.has("accuracy")) spec.target_accuracy = target.fraction("accuracy");
  if (target.has("loss")) spec.target_loss = target.positive_number("loss");
  if (spec.target_accuracy.has_value() == spec.target_loss.has_value()) {
    reader.fail("target",
                "exactly one of {\"accuracy\": a number in (0, 1]} or {\"loss\": a "
                "number > 0}",
                reader.value("target"));
  }
  target.reject_unknown_keys();
  // Training examples per task: Fashion-MNIST's 60,000; the synthetic problem's 1,000.
  const int examples = spec.task == "synthetic_logistic" ? 1000 : 60000;
  spec.workers = static_cast<int>(reader.integer_in_or("workers", 1, 1 << 20, 16));
  if (spec.workers > examples) {
    reader.fail("workers",
                fmt::format("at most the task's {} training examples (one per worker)", examples),
                spec.workers);
  }
  spec.batch = static_cast<int>(reader.integer_in_or("batch", 1, 1 << 16, 32));
  spec.learning_rate = reader.positive_number_or("learning_rate", 0.1);
  spec.momentum = reader.non_negative_number_or("momentum", 0.0);
  if (spec.momentum >= 1.0) {
    reader.fail("momentum", "a number in [0, 1): the fraction of the last step kept",
                spec.momentum);
  }
  spec.weight_decay = reader.non_negative_number_or("weight_decay", 0.0);
  spec.seeds = static_cast<int>(reader.integer_in_or("seeds", 1, 1000, 5));
  if (reader.has("test_examples")) {
    spec.test_examples = static_cast<int>(
        reader.integer_in("test_examples", 1, spec.task == "synthetic_logistic" ? 1000 : 10000));
  }
  const int run = config.run_iterations > 0 ? config.run_iterations : 1000;
  spec.max_iterations =
      static_cast<int>(reader.integer_in_or("max_iterations", 1, 10'000'000, run));
  if (!config.schedules.empty() && spec.max_iterations != config.run_iterations) {
    reader.fail("max_iterations",
                fmt::format("the averaging run's length, communication.averaging.run_iterations "
                            "({}), which places the schedules' rounds",
                            config.run_iterations),
                spec.max_iterations);
  }
  if (reader.has("learning_rate_schedule")) {
    spec.schedule =
        read_learning_rate_schedule(reader.object("learning_rate_schedule"), spec.max_iterations);
  }
  // By default every 2% of the run, so that a target's crossing is placed to 2% of it.
  spec.evaluate_every = static_cast<int>(
      reader.integer_in_or("evaluate_every", 1, 1 << 30, std::max(1, spec.max_iterations / 50)));
  spec.hidden = static_cast<int>(reader.integer_in_or("hidden", 1, 1 << 16, 64));
  spec.threads = static_cast<int>(reader.integer_in_or("threads", 1, 1024, 1));
  spec.error_feedback = reader.choice_or("error_feedback", error_feedback_modes(), "biased");
  spec.stop_at_target = reader.choice_or("stop", convergence_stops(), "target") == "target";
  read_curves(reader, config, spec, base);
  for (const char* key : {"error_feedback", "stop", "momentum", "weight_decay",
                          "learning_rate_schedule", "seeds", "test_examples"}) {
    if (reader.has(key) && spec.task == "measured") {
      reader.fail(key, "nothing: measured curves are not trained by the engine", reader.value(key));
    }
  }
  if (reader.has("variance_budget") && spec.task == "measured") {
    reader.fail("variance_budget", "no variance rule with measured curves (it needs the engine)",
                reader.value("variance_budget"));
  }
  if (reader.has("variance_budget")) {
    spec.variance_budget =
        static_cast<int>(reader.integer_in("variance_budget", 1, spec.max_iterations));
    const bool local = std::any_of(config.schedules.begin(), config.schedules.end(),
                                   [](const AveragingSpec& s) { return !s.every_iteration(); });
    if (!local) {
      reader.fail("variance_budget",
                  "a local averaging schedule in communication.averaging too (its local and "
                  "averaging iterations time the rule's)",
                  reader.value("variance_budget"));
    }
  }
  reader.reject_unknown_keys();
  config.convergence = spec;
}

// A node's GPUs by name, for a note: "gpu0, gpu1", or the first and last of many.
std::string gpu_names(const NodeDescription& description) {
  const std::vector<NodeGpu>& gpus = description.gpus;
  if (gpus.size() > 4) return fmt::format("{} to {}", gpus.front().name, gpus.back().name);
  std::string names;
  for (const NodeGpu& gpu : gpus) names += (names.empty() ? "" : ", ") + gpu.name;
  return names;
}

void read_cluster(jsonio::ObjectReader reader, ScenarioConfig& config,
                  const std::filesystem::path& base) {
  config.gpus = static_cast<int>(reader.integer_in("gpus", 1, max_cluster_gpus));
  // A node (preset or file) supplies the defaults of the keys below; keys given explicitly win.
  std::optional<NodeChoice> node;
  const std::string where = fmt::format("{}: {}", reader.source(), reader.path_of("node"));
  if (reader.has("node")) {
    const nlohmann::json& value = reader.value("node");
    if (!value.is_string()) {
      reader.fail("node",
                  "a node preset's name or a node file (description, NCCL XML dump, "
                  "nvidia-smi topo -m output)",
                  value);
    }
    node = NodeChoice{.name = value.get<std::string>(),
                      .description = resolve_node(value.get<std::string>(), base, where)};
    if (const auto file = node_file(node->name, base)) {
      config.input_files.push_back(*file);  // never an output's name
    }
    for (const std::string& warning : node->description.warnings) {
      config.notes.push_back(fmt::format("{}: {}", where, warning));
    }
    if (reader.has("host_read_efficiency")) {
      node->read_efficiency = reader.fraction("host_read_efficiency");
      node->read_efficiency_given = true;
    }
  } else if (reader.has("host_read_efficiency")) {
    reader.fail("host_read_efficiency",
                "no host_read_efficiency without cluster.node (it prices the node's copies "
                "through host memory)",
                reader.value("host_read_efficiency"));
  }
  const int node_gpus = node ? static_cast<int>(node->description.gpus.size()) : 1;
  config.gpus_per_node = static_cast<int>(
      reader.integer_in_or("gpus_per_node", 1, 1024, std::min(node_gpus, config.gpus)));
  if (config.gpus % config.gpus_per_node != 0) {
    reader.fail("gpus_per_node", fmt::format("a divisor of cluster.gpus ({})", config.gpus),
                config.gpus_per_node);
  }
  double intra_gbps = default_intra_node_gbps;
  bool nic_per_gpu = false;
  if (node) {
    if (config.gpus_per_node > node_gpus) {
      reader.fail("gpus_per_node", fmt::format("at most the {} GPUs of cluster.node", node_gpus),
                  config.gpus_per_node);
    }
    NodeTopology topology = NodeTopology::build(node->description, where);
    if (config.gpus_per_node < node_gpus) {
      // Fewer ranks a node than it has GPUs: they run on its first GPUs, with the rings and
      // NICs NCCL builds for them, not the whole node's.
      node->description = topology.first_gpus(config.gpus_per_node);
      topology = NodeTopology::build(node->description, where);
      config.notes.push_back(fmt::format(
          "{}: cluster.gpus_per_node {} is below the node's {} GPUs: priced on its {} (their "
          "rings, NVLinks and NICs)",
          where, config.gpus_per_node, node_gpus, gpu_names(node->description)));
    }
    node->model = model_node(topology, node->read_efficiency);
    node->topology = std::make_shared<const NodeTopology>(std::move(topology));
    if (node->model.gpus > 1) intra_gbps = node->model.ring_gbps;
    nic_per_gpu = node->model.nic_per_gpu;
    config.node = std::move(node);
  }
  config.intra_node_given =
      reader.has("intra_node_bandwidth_gbps") || reader.has("intra_node_latency_us");
  if (config.node) {
    config.node->sets_intra_node =
        config.node->model.gpus > 1 && !reader.has("intra_node_bandwidth_gbps");
  }
  config.intra_node.bandwidth =
      Bandwidth::from_gbps(reader.positive_number_or("intra_node_bandwidth_gbps", intra_gbps));
  config.intra_node.latency = reader.duration_us(
      "intra_node_latency_us", reader.non_negative_number_or("intra_node_latency_us", 1.0));
  config.nic_per_gpu = reader.choice_or("nic", {"per_node", "per_gpu"},
                                        nic_per_gpu ? "per_gpu" : "per_node") == "per_gpu";
  reader.reject_unknown_keys();
}

void read_fat_tree(jsonio::ObjectReader reader, ScenarioConfig& config) {
  config.leaf_nodes = static_cast<int>(reader.integer_in("leaf_nodes", 1, max_cluster_gpus));
  config.oversubscription = reader.positive_number_or("oversubscription", 1.0);
  if (config.oversubscription < 1.0) {
    reader.fail("oversubscription", "a number >= 1 (leaf downlink over uplink capacity)",
                config.oversubscription);
  }
  reader.reject_unknown_keys();
}

MeasuredAllreduce read_measurement(jsonio::ObjectReader reader) {
  MeasuredAllreduce measurement;
  measurement.gpus = static_cast<int>(reader.integer_in("gpus", 2, max_cluster_gpus));
  measurement.startup = reader.duration_us("alpha_us", reader.positive_number("alpha_us"));
  // Up to 10^12 ns per byte (a byte per 1,000 s): far slower than any network, and its
  // picoseconds stay finite through the link conversion (1e308 overflowed to infinity).
  const double beta = reader.positive_number("beta_ns_per_byte");
  if (beta > 1e12) reader.fail("beta_ns_per_byte", "at most 1e12 (a byte per 1,000 s)", beta);
  measurement.ps_per_byte = beta * 1e3;
  measurement.gpus_per_node =
      static_cast<int>(reader.integer_in_or("gpus_per_node", 1, measurement.gpus, 1));
  if (measurement.gpus % measurement.gpus_per_node != 0) {
    reader.fail("gpus_per_node", fmt::format("a divisor of gpus ({})", measurement.gpus),
                measurement.gpus_per_node);
  }
  reader.reject_unknown_keys();
  return measurement;
}

// Measured fits as the cluster's two hop classes: the fit inside one node nearest the scenario's
// node size gives the intra-node link; the fit across nodes nearest its GPU count gives the
// network, its startup less the intra-node steps its ring took (link_model.hpp).
void apply_measurements(jsonio::ObjectReader& reader, ScenarioConfig& config) {
  std::vector<MeasuredAllreduce> inside;
  std::vector<MeasuredAllreduce> across;
  for (const MeasuredAllreduce& m : config.network.measured_allreduce) {
    (m.inside_one_node() ? inside : across).push_back(m);
  }
  const nlohmann::json& given = reader.value("measured_allreduce");
  if (!inside.empty()) {
    if (config.intra_node_given) {
      reader.fail("measured_allreduce",
                  "either a fit inside one node (gpus_per_node = gpus) or "
                  "cluster.intra_node_bandwidth_gbps/intra_node_latency_us, not both",
                  given);
    }
    const LinkModel hop =
        hop_from_ring_fit(select_measurement(inside, config.gpus_per_node), Time::zero());
    config.intra_node = LinkSpec{hop.bandwidth, hop.alpha};
    if (config.node) config.node->sets_intra_node = false;
  }
  if (across.empty()) return;  // the network is a link (read_link)
  if (reader.has("bandwidth_gbps") || reader.has("latency_us")) {
    reader.fail("measured_allreduce",
                "either a fit across nodes or bandwidth_gbps/latency_us, not both", given);
  }
  const MeasuredAllreduce& fit = select_measurement(across, config.gpus);
  const LinkModel hop = hop_from_ring_fit(fit, config.intra_node.latency);
  // Between nodes a route crosses two NIC links (the network latency) and, with one NIC per
  // node, two GPU links to the node switch (the intra-node latency).
  const Time network = hop.alpha - (config.nic_per_gpu ? Time::zero() : config.intra_node.latency);
  if (network < Time::zero()) {
    reader.fail(
        "measured_allreduce",
        fmt::format("a fit whose startup covers its ring's intra-node steps: the fit on "
                    "{} GPUs ({} per node) leaves {:.3f} us per node crossing, less than "
                    "the {:.3f} us a message takes inside a node",
                    fit.gpus, fit.gpus_per_node, hop.alpha.us(), config.intra_node.latency.us()),
        given);
  }
  config.network.link = LinkSpec{hop.bandwidth, network};
}

// network.transport and its overrides, and the per-message overhead added to the link's latency
// (its goodput applies in apply_node_cap, its cap per connection once the collective is known,
// in apply_transport_cap).
void read_transport(jsonio::ObjectReader& reader, NetworkConfig& network) {
  const char* given = nullptr;  // the first transport key present
  for (const char* key :
       {"transport", "goodput_fraction", "message_overhead_us", "flow_cap_gbps", "connections"}) {
    if (given == nullptr && reader.has(key)) given = key;
  }
  if (given == nullptr) return;
  if (network.measures_network()) {
    reader.fail(given,
                "no transport keys with a measured_allreduce fit across nodes (it already "
                "includes what the transport costs)",
                reader.value(given));
  }
  const std::string name = reader.choice_or("transport", transport_names(), "rdma");
  Transport transport = *std::find_if(transports().begin(), transports().end(),
                                      [&](const Transport& t) { return t.name == name; });
  if (reader.has("goodput_fraction"))
    transport.goodput_fraction = reader.fraction("goodput_fraction");
  transport.message_overhead = Time::from_us(
      reader.non_negative_number_or("message_overhead_us", transport.message_overhead.us()));
  if (reader.has("flow_cap_gbps")) {
    transport.flow_cap = Bandwidth::from_gbps(reader.positive_number("flow_cap_gbps"));
    transport.flow_cap_given = true;
  }
  transport.connections = static_cast<int>(reader.integer_in_or("connections", 1, 4096, 0));
  if (transport.connections > 0 && transport.flow_cap.bits_per_second() <= 0.0) {
    reader.fail("connections",
                fmt::format("no connections without a cap per connection to multiply (the {} "
                            "transport has none: give flow_cap_gbps)",
                            transport.name),
                reader.value("connections"));
  }
  network.link.latency += transport.message_overhead;
  network.transport = std::move(transport);
}

}  // namespace

// The transport's cap per connection, once the collective is known: the connections a transfer
// spreads over (given, or the collective's), and the rate before the cap (line x goodput, the
// node's GPU-NIC paths applied) kept as the fabric's.
void apply_transport_cap(ScenarioConfig& config) {
  if (!config.network.transport) return;
  Transport& transport = *config.network.transport;
  transport.connections_used =
      transport.connections > 0 ? transport.connections : default_connections(config);
  // The workers' links after the node's GPU-NIC paths (apply_node_cap, which sets the fabric).
  config.network.worker_path = config.network.link.bandwidth;
  cap_connections(config, transport.flow_cap);
}

std::optional<int> byteps_group_of(const ScenarioConfig& config) {
  if (config.collective->name != "byteps") return std::nullopt;
  return byteps_group(config.collective_settings, config.gpus_per_node);
}

void apply_node_cap(ScenarioConfig& config) {
  NetworkConfig& network = config.network;
  if (network.measures_network() || !network.stated) return;
  network.link.bandwidth = network.transport
                               ? transport_rate(*network.transport, network.line_rate, {}, 1)
                               : network.line_rate;
  // The switches and a dedicated server's NIC see that, whatever the workers' GPU-NIC paths.
  network.fabric = network.link.bandwidth;
  if (!config.node) return;
  // The node's GPU-NIC paths cap what its NICs carry, whatever the NICs' rate; through sockets
  // the paths through host memory.
  const NodeModel& model = config.node->model;
  const bool sockets = network.transport && network.transport->host_memory_only;
  double cap = sockets ? model.nic_staged_gbps : model.nic_path_gbps;
  // BytePS's NICs take their pushes from host memory and put the pulls there themselves
  // (ps-lite, over TCP or RDMA alike): no GPU reads or writes them on the way, as NCCL's GPUs
  // do. Its GPUs copy each partition there and back, all the machine's GPUs their shares at
  // once; as one group that copy is the stage the network waits on where it is slower
  // (host_copy_gbps: the node's links to the sockets shared), and in groups per PCIe switch
  // the copies are stages of their own (BytePs), which leave the network its line.
  if (const auto group = byteps_group_of(config)) {
    cap = *group < config.gpus_per_node
              ? 0.0
              : host_copy_gbps(*config.node->topology, config.gpus_per_node);
  }
  if (cap > 0.0) {
    network.link.bandwidth = std::min(network.link.bandwidth, Bandwidth::from_gbps(cap));
  }
}

namespace {

// A scenario without `network`, or whose `network` gives no rate (only a fit inside a node,
// say): allowed for a job inside one node, whose collectives never leave it. The link stands in for
// one nothing prices: the intra-node link.
void leave_out_network(ScenarioConfig& config) {
  config.network.stated = false;
  config.network.link = config.intra_node;
  config.network.line_rate = config.intra_node.bandwidth;
}

void read_network(jsonio::ObjectReader reader, ScenarioConfig& config) {
  const double preset_nic = config.node ? config.node->model.nic_line_gbps : 0.0;
  const auto read_link = [&] {
    // A job inside one node needs no rate (check_no_network refuses one that crosses a network).
    if (preset_nic <= 0.0 && !reader.has("bandwidth_gbps") && config.gpus <= config.gpus_per_node) {
      leave_out_network(config);
      reader.non_negative_number_or("latency_us", 5.0);  // read, as every key, but unused
      return;
    }
    config.network.link.bandwidth = Bandwidth::from_gbps(
        preset_nic > 0.0 ? reader.positive_number_or("bandwidth_gbps", preset_nic)
                         : reader.positive_number("bandwidth_gbps"));
    config.network.link.latency =
        reader.duration_us("latency_us", reader.non_negative_number_or("latency_us", 5.0));
  };
  if (reader.has("measured_allreduce")) {
    const nlohmann::json& list = reader.value("measured_allreduce");
    if (!list.is_array() || list.empty()) {
      reader.fail("measured_allreduce", "a non-empty array of {gpus, alpha_us, beta_ns_per_byte}",
                  list);
    }
    for (std::size_t index = 0; index < list.size(); ++index) {
      config.network.measured_allreduce.push_back(read_measurement(
          jsonio::ObjectReader(list[index], reader.source(),
                               jsonio::element_path(reader.path_of("measured_allreduce"), index))));
    }
    if (!config.network.measures_network()) read_link();
    apply_measurements(reader, config);
  } else {
    read_link();
  }
  config.network.line_rate = config.network.link.bandwidth;
  read_transport(reader, config.network);  // its goodput and the node's cap: apply_node_cap
  if (reader.has("fat_tree")) read_fat_tree(reader.object("fat_tree"), config);
  config.reduction_ps_per_byte = reader.non_negative_number_or("reduction_ns_per_byte", 0.0) * 1e3;
  reader.reject_unknown_keys();
}

// What would cross a network without one refuses the scenario, naming what does.
void check_no_network(jsonio::ObjectReader& reader, const ScenarioConfig& config) {
  const ClusterShape shape = cluster_shape(config);
  const int nodes = config.gpus / config.gpus_per_node;
  std::string crossing;
  if (nodes > 1) {
    crossing = fmt::format("{} GPUs on {} nodes of {}", config.gpus, nodes, config.gpus_per_node);
  } else if (shape.servers > 0 && shape.server_placement == ServerPlacement::dedicated) {
    crossing = fmt::format("{} dedicated server{} (machines of their own)", shape.servers,
                           shape.servers == 1 ? "" : "s");
  } else if (reader.has("jobs")) {
    crossing = "jobs sharing a fabric";
  }
  if (crossing.empty()) return;
  throw InputError(fmt::format(
      "{}: {}: missing ({} cross a network; only a job inside one node, without dedicated "
      "servers, may leave it out)",
      reader.source(), reader.has("network") ? "network.bandwidth_gbps" : "network", crossing));
}

void read_collective(jsonio::ObjectReader reader, ScenarioConfig& config) {
  if (reader.has("algorithm")) {
    config.collective = &read_member(reader, "algorithm", collective_registry());
  }
  const CollectiveEntry& entry = *config.collective;
  config.collective_chunks =
      static_cast<int>(reader.integer_in_or("chunks", 1, max_collective_chunks, 1));
  config.collective_settings = jsonio::read_settings(reader, entry.keys);
  if (entry.check) {
    if (const auto problem = entry.check(config.collective_settings, cluster_shape(config))) {
      throw value_error(reader.source(), reader.path_of(problem->key), problem->expected,
                        problem->found);
    }
  }
  if (config.collective_settings.has("nccl_protocol")) {
    const std::string& protocol = config.collective_settings.text("nccl_protocol");
    if (protocol == "auto") {
      config.nccl_protocols = {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple};
    } else {
      config.nccl_protocols = {*parse_nccl_protocol(protocol)};
    }
  }
  reader.reject_unknown_keys();
}

void read_compute(jsonio::ObjectReader reader, ScenarioConfig& config) {
  ComputeHeterogeneity& compute = config.compute;
  config.accumulation_steps =
      static_cast<int>(reader.integer_in_or("accumulation_steps", 1, 1'000'000, 1));
  compute.jitter_cv = reader.non_negative_number_or("jitter_cv", 0.0);
  if (reader.has("framework_overhead_us")) {
    config.iteration_overhead = reader.duration_us(
        "framework_overhead_us", reader.non_negative_number("framework_overhead_us"));
  }
  config.layer_times =
      reader.choice_or("layer_times", {"as_traced", "scaled_to_measured", "wall"}, "as_traced");
  if (reader.has("overlap_slowdown")) {
    config.overlap_slowdown = reader.positive_number("overlap_slowdown");
    config.overlap_slowdown_given = true;
    if (config.overlap_slowdown < 1.0 || config.overlap_slowdown > 1000.0) {
      reader.fail("overlap_slowdown",
                  "a number from 1 to 1000 (1: the GPU computes at full speed beside its "
                  "collectives' kernels)",
                  reader.value("overlap_slowdown"));
    }
  }
  if (reader.has("single_gpu_samples_per_s")) {
    // One GPU's measured throughput sets the iteration the layers are scaled to.
    config.single_gpu_samples_per_s = reader.positive_number("single_gpu_samples_per_s");
    if (reader.has("layer_times") && config.layer_times != "scaled_to_measured") {
      reader.fail("layer_times",
                  "\"scaled_to_measured\" or no layer_times with single_gpu_samples_per_s (it "
                  "scales the layers to one GPU's measured iteration)",
                  reader.value("layer_times"));
    }
    config.layer_times = "scaled_to_measured";
  }
  auto read_list = [&](const char* key, auto&& read_one) {
    if (!reader.has(key)) return;
    const nlohmann::json& list = reader.value(key);
    if (!list.is_array()) reader.fail(key, "an array", list);
    for (std::size_t index = 0; index < list.size(); ++index) {
      read_one(jsonio::ObjectReader(list[index], reader.source(),
                                    jsonio::element_path(reader.path_of(key), index)));
    }
  };
  read_list("stragglers", [&](jsonio::ObjectReader item) {
    const auto rank = static_cast<int>(item.integer_in("rank", 0, config.gpus - 1));
    if (compute.stragglers.count(rank) > 0) {
      item.fail("rank", "a rank not listed before in compute.stragglers", rank);
    }
    const double slowdown = item.positive_number("slowdown");
    if (slowdown < 1.0) {
      item.fail("slowdown",
                "a number >= 1 (a straggler is slower; GPUs faster than the trace's go in "
                "compute.groups, with a scale below 1)",
                slowdown);
    }
    compute.stragglers[rank] = slowdown;
    item.reject_unknown_keys();
  });
  read_list("groups", [&](jsonio::ObjectReader item) {
    const auto first = static_cast<int>(item.integer_in("first_rank", 0, config.gpus - 1));
    const auto last = static_cast<int>(item.integer_in("last_rank", first, config.gpus - 1));
    const double scale = item.positive_number("scale");
    compute.scale.resize(static_cast<std::size_t>(config.gpus), 1.0);
    for (int rank = first; rank <= last; ++rank)
      compute.scale[static_cast<std::size_t>(rank)] = scale;
    item.reject_unknown_keys();
  });
  reader.reject_unknown_keys();
}

// BytePS's groups take their rings from the node whatever intra-node link the scenario states
// (collectives/byteps.hpp): where it states one, the run says which the groups use.
void note_byteps_groups(ScenarioConfig& config) {
  const auto group = byteps_group_of(config);
  if (!config.node || config.node->sets_intra_node || !group || *group == config.gpus_per_node) {
    return;
  }
  config.notes.push_back(fmt::format(
      "communication.collective.pcie_switch_size: BytePS's groups of {} GPU{} ring and copy as "
      "cluster.node {} prices them; the intra-node link stated for the whole machine ({:.1f} "
      "Gbit/s) is not theirs",
      *group, *group == 1 ? "" : "s", config.node->name, config.intra_node.bandwidth.gbps()));
}

// A per_rank run long enough to wait for says so before it starts.
void note_per_rank_cost(ScenarioConfig& config) {
  if (config.fidelity != "per_rank") return;
  const double runs = static_cast<double>(config.policies.size() * config.compressions.size());
  const double cost = double{1} * config.gpus * config.iterations * runs;
  if (cost <= per_rank_note_cost) return;
  config.notes.push_back(fmt::format(
      "per_rank fidelity will simulate {:.2g} GPU-iterations ({} GPUs x {} iterations x {} "
      "policy runs): about {:.0f} minutes at the {:.0e} a second measured on one core "
      "(docs/guide.md, \"Limits\"); progress shows on a terminal",
      cost, config.gpus, config.iterations, runs, cost / per_rank_gpu_iterations_per_second / 60,
      per_rank_gpu_iterations_per_second));
}

// compute.overlap_slowdown slows compute beside the collectives' kernels in every simulation
// (analytic, per_rank, flow, ByteScheduler, sharding, jobs, each job with its own), each policy's
// run weighing it by the share of its communication that kernels run (scenario_run.cpp: all of
// it for NCCL's collectives, none for parameter servers). Unstated, it is Lee et al.'s average
// beside NCCL's kernels.
void resolve_overlap_slowdown(ScenarioConfig& config) {
  if (config.overlap_slowdown_given) return;
  config.overlap_slowdown = default_overlap_slowdown;  // one GPU's run sends nothing beside it
}

// Each fidelity level expresses only some scenarios; anything it would silently ignore is an
// error that names the level that can.
void check_fidelity(jsonio::ObjectReader& reader, const ScenarioConfig& config) {
  const std::string& fidelity = config.fidelity;
  auto refuse = [&](const std::string& expected) { reader.fail("fidelity", expected, fidelity); };
  if (fidelity == "flow" && config.gpus > max_flow_gpus) {
    refuse(fmt::format(
        "\"analytic\" or \"per_rank\" above {} GPUs (flow fidelity simulates every transfer "
        "and is limited to {} GPUs)",
        max_flow_gpus, max_flow_gpus));
  }
  const std::int64_t servers = cluster_shape(config).servers;
  const double workers = config.gpus;
  // (BytePS sends one transfer per machine and partition, to the partition's server, and limits
  // GPUs x partitions per message itself: BytePs::staged_time.)
  if (fidelity == "flow" && servers > 0 && config.collective->name == "parameter_server" &&
      workers * static_cast<double>(servers) > max_flow_ps_cost) {
    refuse(fmt::format(
        "\"analytic\" or \"per_rank\" for {} workers x {} parameter servers (flow fidelity "
        "sends one transfer per worker and server, at a time and memory that grow as workers x "
        "servers, limited to 2^21, about 7 s and 1.1 GB)",
        config.gpus, servers));
  }
  if (fidelity != "flow" && config.oversubscription > 1.0) {
    refuse(
        "\"flow\" (analytic and per_rank fidelity have no link sharing, so they cannot "
        "express an oversubscribed fat-tree)");
  }
  if (fidelity == "flow" && !config.nccl_protocols.empty()) {
    refuse(
        "\"analytic\" or \"per_rank\" (the NCCL latency table prices closed forms; flow "
        "fidelity times the transfers themselves)");
  }
  if (fidelity != "flow" && config.concurrent_jobs > 1) {
    refuse("\"flow\" (only flow fidelity shares links between concurrent jobs)");
  }
  for (const MergePolicy& policy : config.policies) {
    if (fidelity == "per_rank" && policy.entry().priority) {
      refuse(
          fmt::format("\"analytic\" or \"flow\" (the {} policy lets the next forward pass "
                      "overlap communication, which per_rank's iteration barrier does not "
                      "model)",
                      policy.name()));
    }
  }
  const bool heterogeneous = config.compute.jitter_cv > 0.0 || !config.compute.stragglers.empty() ||
                             !config.compute.scale.empty();
  if (fidelity != "per_rank" && heterogeneous) {
    refuse(
        "\"per_rank\" (only per_rank fidelity gives each GPU its own compute timeline for "
        "compute.jitter_cv, stragglers and groups)");
  }
}

std::vector<MergePolicy> read_policies(jsonio::ObjectReader& reader) {
  const nlohmann::json& value = reader.value("policy");
  if (!value.is_array())
    return {MergePolicy(read_member(reader, "policy", merge_policy_registry()))};
  if (value.empty()) reader.fail("policy", "a policy name or a non-empty list of them", value);
  std::vector<MergePolicy> policies;
  for (std::size_t index = 0; index < value.size(); ++index) {
    policies.emplace_back(read_member(value[index], reader.source(),
                                      jsonio::element_path(reader.path_of("policy"), index),
                                      merge_policy_registry()));
  }
  return policies;
}

void read_merge(jsonio::ObjectReader reader, ScenarioConfig& config) {
  if (reader.has("policy")) config.policies = read_policies(reader);
  config.merge = jsonio::read_settings(reader, merge_keys());
  if (config.merge.text("granularity") == "tensor") {
    for (const MergePolicy& policy : config.policies) {
      if (policy.entry().priority) {
        throw InputError(fmt::format(
            "{}: communication.merge.granularity: \"tensor\" with the {} policy, which "
            "schedules partitions of layers by their forward order; give \"layer\" or \"auto\"",
            config.source, policy.name()));
      }
    }
  }
  reader.reject_unknown_keys();
}

void read_communication(jsonio::ObjectReader reader, ScenarioConfig& config,
                        const std::filesystem::path& base) {
  if (reader.has("collective")) read_collective(reader.object("collective"), config);
  if (reader.has("merge")) read_merge(reader.object("merge"), config);
  config.concurrent_jobs = static_cast<int>(reader.integer_in_or("concurrent_jobs", 1, 64, 1));
  if (reader.has("allgather_gradients")) {
    const nlohmann::json& list = reader.value("allgather_gradients");
    if (!list.is_array() || list.empty()) {
      reader.fail("allgather_gradients",
                  "a non-empty array of {tensor, rows_per_sample, row_elements}", list);
    }
    for (std::size_t index = 0; index < list.size(); ++index) {
      const std::string path = jsonio::element_path(reader.path_of("allgather_gradients"), index);
      jsonio::ObjectReader item(list[index], reader.source(), path);
      GatheredTensor tensor;
      tensor.rows.tensor = item.text("tensor");
      tensor.rows.rows_per_sample = item.integer_in("rows_per_sample", 1, 1 << 24);
      tensor.rows.row_elements = item.integer_in("row_elements", 1, std::int64_t{1} << 40);
      tensor.path = path;
      item.reject_unknown_keys();
      config.gathered_tensors.push_back(std::move(tensor));
    }
  }
  if (reader.has("framework_overhead_us")) {
    config.call_overhead = reader.duration_us("framework_overhead_us",
                                              reader.non_negative_number("framework_overhead_us"));
  }
  if (reader.has("wire_dtype")) {
    config.wire_bytes_per_element =
        dtype_bytes(reader.choice_or("wire_dtype", gradient_dtypes(), ""));
  }
  if (reader.has("compression")) {
    config.compressions = read_compressions(reader.value("compression"), reader.source(),
                                            reader.path_of("compression"));
  }
  if (reader.has("compression_profile")) {
    config.compression_profile_source = reader.text("compression_profile");
    const std::filesystem::path path = base / config.compression_profile_source;
    std::error_code error;  // a name too long is as unreadable as a missing file
    if (!std::filesystem::is_regular_file(path, error)) {
      throw InputError(fmt::format(
          "{}: {}: cannot open compression profile \"{}\" (looked for {}); relative paths are "
          "resolved from the scenario file's folder",
          reader.source(), reader.path_of("compression_profile"), config.compression_profile_source,
          path.lexically_normal().string()));
    }
    config.compression_profile = read_compression_profile(jsonio::parse_file(path));
    config.input_files.push_back(path);
  }
  if (reader.has("averaging")) read_averaging(reader.object("averaging"), config);
  if (reader.has("sharding")) read_sharding(reader.object("sharding"), config);
  reader.reject_unknown_keys();
}

}  // namespace

ScenarioConfig read_scenario(const std::filesystem::path& path) {
  ScenarioConfig config = read_scenario(jsonio::parse_file(path), path.parent_path());
  config.source_is_file = true;
  return config;
}

ScenarioConfig read_scenario(const jsonio::Document& document, const std::filesystem::path& base) {
  jsonio::ObjectReader reader(document.root, document.source, "");
  ScenarioConfig config;
  config.source = document.source;
  config.document = std::make_shared<const nlohmann::json>(document.root);
  const std::int64_t version = reader.integer_in_or("schema_version", 1, 1000, 1);
  if (version != scenario_schema_version) {
    reader.fail("schema_version",
                fmt::format("{} (this sgdsim reads scenario schema version {})",
                            scenario_schema_version, scenario_schema_version),
                version);
  }
  reader.text_or("$schema", "");  // for editors; the schema is scenarios/scenario.schema.json
  config.name = reader.text_or("name", std::filesystem::path(document.source).stem().string());
  config.description = reader.text_or("description", "");
  config.trace_reference = reader.text("trace");
  config.input_files.emplace_back(document.source);
  config.trace_path = base / config.trace_reference;
  config.input_files.push_back(config.trace_path);
  std::error_code error;  // a name too long is as unreadable as a missing file
  if (!std::filesystem::is_regular_file(config.trace_path, error)) {
    throw InputError(fmt::format(
        "{}: trace: cannot open trace file \"{}\" (looked for {}); relative paths are resolved "
        "from the scenario file's folder",
        config.source, config.trace_reference, config.trace_path.lexically_normal().string()));
  }
  read_cluster(reader.object("cluster"), config, base);
  if (reader.has("network")) {
    read_network(reader.object("network"), config);
  } else {
    leave_out_network(config);
  }
  config.policies = all_merge_policies();
  if (reader.has("communication")) {
    read_communication(reader.object("communication"), config, base);
  }
  if (!config.network.stated) check_no_network(reader, config);
  apply_node_cap(config);  // once the collective is known (BytePS's NICs take host memory)
  apply_transport_cap(config);
  if (reader.has("compute")) read_compute(reader.object("compute"), config);
  if (reader.has("convergence")) read_convergence(reader.object("convergence"), config, base);
  config.fidelity =
      reader.choice_or("fidelity", {"analytic", "per_rank", "flow", "packet"}, "analytic");
  if (config.fidelity == "packet") {  // the level's first name: it was never packet-level
    config.fidelity = "flow";
    config.notes.emplace_back(
        "fidelity \"packet\" is the old name of \"flow\" (flows with max-min fair sharing, "
        "not packets); it is read as \"flow\"");
  }
  check_fidelity(reader, config);
  config.has_sweep = reader.has("sweep");  // read by Sweep; `sgdsim run` runs the base point
  config.iterations = static_cast<int>(reader.integer_in_or("iterations", 1, 100000, 10));
  config.seed = static_cast<std::uint64_t>(
      reader.integer_in_or("seed", 0, std::numeric_limits<std::int64_t>::max(), 1));
  resolve_overlap_slowdown(config);  // before the jobs, whose documents may take it
  if (reader.has("jobs")) read_jobs(reader.object("jobs"), config, base);
  reader.reject_unknown_keys();
  note_byteps_groups(config);
  note_per_rank_cost(config);
  return config;
}

}  // namespace sgdsim
