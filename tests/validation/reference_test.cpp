// Validation against public measurements in ../shared/reference (not part of the repository).
// Without the folder the whole test reports itself skipped (exit 77, which Meson counts as a
// skip, not a pass); with it, a test whose own file is missing says so and checks nothing.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../unit/approx.hpp"
#include "sgdsim/collectives/flow_collective.hpp"
#include "sgdsim/collectives/ring_allreduce.hpp"
#include "sgdsim/network/linear_fit.hpp"
#include "sgdsim/trace_io/bcaffe_log.hpp"
#include "sgdsim/trace_io/benchmark_log.hpp"
#include "sgdsim/trace_io/pipedream_profile.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"
#include "sgdsim/training/iteration_simulation.hpp"
#include "sgdsim/training/merge_policy.hpp"

using namespace sgdsim;
namespace fs = std::filesystem;

namespace {

fs::path reference_dir() {
  if (const char* override_dir = std::getenv("SGDSIM_REFERENCE")) return override_dir;
  return SGDSIM_REFERENCE_DIR;
}

bool have_reference(const fs::path& file) {
  if (fs::exists(file)) return true;
  MESSAGE("SKIPPED: reference data not found at " << file.string()
                                                  << " (set SGDSIM_REFERENCE to its folder)");
  return false;
}

// OSU allreduce log lines "nodes,bytes   latency_us" within [low, high] bytes.
std::vector<SizeTimePoint> osu_points(const fs::path& path, double low, double high) {
  std::ifstream file(path);
  std::vector<SizeTimePoint> points;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream fields(line);
    double nodes = 0, bytes = 0, latency = 0;
    if (fields >> nodes >> bytes >> latency && bytes >= low && bytes <= high) {
      points.push_back({bytes, latency});
    }
  }
  return points;
}

Time iteration_of(MergePolicy policy, const BackwardProfile& profile, const Collective& ring) {
  const MergePlan plan = plan_messages(policy, profile, ring, merge_defaults());
  return simulate_iterations(profile, plan, ring, 1).mean_iteration();
}

}  // namespace

TEST_CASE("B-Caffe's 8-node allreduce fits a + b*bytes as the reference README states") {
  const fs::path log = reference_dir() / "bcaffe_googlenet_logs" / "allreduce8.log";
  if (!have_reference(log)) return;
  const LinearFit fit = fit_linear(osu_points(log, 16384, 1048576));
  MESSAGE(
      fmt::format("allreduce8 fit over 16 KiB..1 MiB: a = {:.1f} us, b = {:.3e} us/B, r^2 = {:.4f}",
                  fit.intercept_us, fit.slope_us_per_byte, fit.r_squared));
  // README: about a = 832 us and b = 3.34e-3 us per byte.
  CHECK(fit.intercept_us == test::relative(832.0, 0.01));
  CHECK(fit.slope_us_per_byte == test::relative(3.34e-3, 0.01));
}

TEST_CASE("MG-WFBP on B-Caffe GoogLeNet: a growing gain over WFBP, then SyncEASGD at scale") {
  const fs::path dir = reference_dir() / "bcaffe_googlenet_logs";
  if (!have_reference(dir / "tmp8ocomm.log")) return;
  // GoogLeNet (13,379,136 parameters, 128 blobs), K80, batch 64 per GPU (reference README).
  const BcaffeLog log = import_bcaffe_log(dir / "tmp8ocomm.log", 64, "NVIDIA K80");
  CHECK(total_gradient_elements(log.workload) == 13'379'136);
  CHECK(log.rows.size() == 128);
  const BackwardProfile profile = backward_profile(log.workload);
  const LinearFit fit = fit_linear(osu_points(dir / "allreduce8.log", 16384, 1048576));
  const LinkModel link =
      link_from_ring_fit({8, Time::from_us(fit.intercept_us), fit.slope_us_per_byte * 1e6});

  // Forward time is not in the log (zero), so "iteration" here is backward + exposed
  // communication + optimizer (zero): the part the merge policies change.
  std::string table = "gpus      WFBP ms   MG-WFBP ms  SyncEASGD ms  MG-WFBP gain over WFBP\n";
  double previous_gain = 0.0;
  for (int gpus = 4; gpus <= 2048; gpus *= 2) {
    const RingAllreduce ring(gpus, link);
    const Time wfbp = iteration_of(MergePolicy::named("none"), profile, ring);
    const Time mgwfbp = iteration_of(MergePolicy::named("mgwfbp"), profile, ring);
    const Time sync = iteration_of(MergePolicy::named("all"), profile, ring);
    const double gain = wfbp.seconds() / mgwfbp.seconds();
    table += fmt::format("{:>4} {:>12.1f} {:>12.1f} {:>13.1f} {:>12.3f}x\n", gpus, wfbp.ms(),
                         mgwfbp.ms(), sync.ms(), gain);
    CHECK(mgwfbp <= wfbp);
    CHECK(mgwfbp <= sync);
    // Ring startup grows as 2(N-1)alpha while bytes per GPU stay ~2S, so merging saves more
    // with every doubling (Shi et al.: the gain grows with the number of GPUs).
    CHECK(gain >= previous_gain);
    previous_gain = gain;
    if (gpus == 2048) {
      // 2(2047) startups of ~59 us are 0.24 s per message, far above any layer's backward
      // time: merging everything (SyncEASGD) is what MG-WFBP converges to.
      CHECK(mgwfbp.seconds() == test::relative(sync.seconds(), 0.01));
    }
  }
  MESSAGE("B-Caffe GoogLeNet, ring over the 10GbE link fitted from allreduce8.log:\n" << table);
}

namespace {

using Tensors = std::vector<std::pair<std::string, std::int64_t>>;

Tensors trace_tensors(const std::string& trace_file) {
  const Workload workload = read_trace(fs::path(SGDSIM_SOURCE_ROOT) / "traces" / trace_file);
  Tensors tensors;
  for (const Layer& layer : workload.layers) {
    for (const GradientTensor& tensor : layer.gradients)
      tensors.emplace_back(tensor.name, tensor.elements);
  }
  return tensors;
}

// A public layer table: header index,name,shape,numel,bytes_fp32, one row per tensor.
Tensors table_tensors(const fs::path& table) {
  Tensors tensors;
  std::ifstream file(table);
  std::string line;
  std::getline(file, line);
  while (std::getline(file, line)) {
    std::istringstream fields(line);
    std::string column, name, shape, numel;
    std::getline(fields, column, ',');
    std::getline(fields, name, ',');
    std::getline(fields, shape, ',');
    std::getline(fields, numel, ',');
    tensors.emplace_back(name, std::stoll(numel));
  }
  return tensors;
}

}  // namespace

TEST_CASE("the estimated ResNet-50 and VGG-16 traces have torchvision's exact tensors") {
  for (const char* model : {"resnet50", "vgg16"}) {
    const fs::path table = reference_dir() / "layer_tables" / fmt::format("{}_params.csv", model);
    if (!have_reference(table)) return;
    // Same tensors in the same (forward) order.
    CHECK(trace_tensors(fmt::format("{}_b32_v100_estimated.json", model)) == table_tensors(table));
  }
}

TEST_CASE("the ResNet-50 and VGG-16 traces captured on an H100 hold the same tensors") {
  for (const char* model : {"resnet50", "vgg16"}) {
    const fs::path table = reference_dir() / "layer_tables" / fmt::format("{}_params.csv", model);
    if (!have_reference(table)) return;
    Tensors expected = table_tensors(table);
    std::sort(expected.begin(), expected.end());
    for (const char* precision : {"fp32", "amp"}) {
      // A capture lists a layer's tensors in the order their gradients became ready, so only
      // the set is compared.
      Tensors captured = trace_tensors(fmt::format("{}_b32_h100_{}.json", model, precision));
      std::sort(captured.begin(), captured.end());
      CHECK(captured == expected);
    }
  }
}

TEST_CASE("sgdsim calibrate's fits of B-Caffe's 2, 4 and 8-node allreduce logs") {
  const fs::path dir = reference_dir() / "bcaffe_googlenet_logs";
  if (!have_reference(dir / "allreduce4.log")) return;
  // Reference README: fits over 16 KiB..1 MiB give about a = 114 / 259 / 832 us.
  const std::vector<std::pair<int, double>> expected{{2, 114.0}, {4, 259.0}, {8, 832.0}};
  for (const auto& [nodes, alpha_us] : expected) {
    const fs::path log = dir / fmt::format("allreduce{}.log", nodes);
    // allreduce4.log has no "nodes," prefix, so the GPU count is given as --gpus would.
    const Calibration fit = calibrate(read_benchmark_log(log), log.string(), 16384, 1048576, nodes);
    MESSAGE(fmt::format("{} nodes: a = {:.1f} us, b = {:.3f} ns/byte, r^2 = {:.4f}, {} points",
                        nodes, fit.fit.intercept_us, fit.fit.slope_us_per_byte * 1e3,
                        fit.fit.r_squared, fit.points));
    CHECK(fit.fit.intercept_us == test::relative(alpha_us, 0.01));
  }
}

TEST_CASE("flow fidelity reproduces how a 100 MiB allreduce slows with 1..8 concurrent jobs") {
  const fs::path csv = reference_dir() / "network_contention" / "shyhuai_dl_scheduling_results.csv";
  if (!have_reference(csv)) return;
  struct Row {
    int nodes, jobs;
    double bytes, measured_us;
  };
  std::vector<Row> rows;
  std::ifstream file(csv);
  std::string line;
  std::getline(file, line);  // node_num,job_num,msg_size,avg_latency
  while (std::getline(file, line)) {
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream fields(line);
    Row row{};
    if (fields >> row.nodes >> row.jobs >> row.bytes >> row.measured_us) rows.push_back(row);
  }
  REQUIRE(rows.size() == 56);
  // The model: one process per node on a 10 Gbps NIC (nominal, as the source states), ring
  // allreduce whose reduce-scatter steps also add S/N bytes locally at gamma per byte, a cost
  // that concurrent jobs do not share (it runs on each job's own CPU cores). Gamma is fitted to
  // the single-job rows only, minimising squared error of t1(n) = 2(n-1)/n S/B +
  // (n-1)/n S gamma; the 48 multi-job rows are then predictions.
  const double bits_per_second = 10e9;
  double numerator = 0.0;
  double denominator = 0.0;
  for (const Row& row : rows) {
    if (row.jobs != 1) continue;
    const double n = row.nodes;
    const double link_us = 2.0 * (n - 1.0) / n * row.bytes * 8.0 / bits_per_second * 1e6;
    const double x = (n - 1.0) / n * row.bytes;
    numerator += x * (row.measured_us - link_us);
    denominator += x * x;
  }
  const double gamma_ps_per_byte = numerator / denominator * 1e6;
  MESSAGE(fmt::format("fitted reduction cost: {:.3f} ns/byte", gamma_ps_per_byte * 1e-3));
  std::string table = "nodes jobs measured_ms simulated_ms error\n";
  double total_error = 0.0;
  int within = 0;
  for (const Row& row : rows) {
    ClusterShape shape;
    shape.gpus = row.nodes;
    shape.network = {Bandwidth::from_bits_per_second(bits_per_second), Time::zero()};
    shape.intra_node = {Bandwidth::from_gbps(1000.0), Time::zero()};
    const CollectiveContext context{std::make_shared<const Topology>(Topology::build(shape)),
                                    gamma_ps_per_byte, std::nullopt};
    const FlowCollective jobs(std::make_unique<RingAllreduce>(RingAllreduce::on(context)),
                              context.topology, row.jobs);
    const double simulated_us = jobs.time(Bytes(static_cast<std::int64_t>(row.bytes))).us();
    const double error = (simulated_us - row.measured_us) / row.measured_us;
    total_error += std::fabs(error);
    within += std::fabs(error) <= 0.20 ? 1 : 0;
    table += fmt::format("{:>5} {:>4} {:>11.1f} {:>12.1f} {:>+5.0f}%\n", row.nodes, row.jobs,
                         row.measured_us / 1e3, simulated_us / 1e3, error * 100.0);
  }
  const double mean_error = total_error / static_cast<double>(rows.size());
  MESSAGE(table << fmt::format("mean |error| {:.1f}%, {} of {} points within 20%",
                               mean_error * 100.0, within, rows.size()));
  // A fair-shared link plus unshared reduction explains the growth: sub-linear while the link is
  // not the bottleneck, linear after. The worst points (2 nodes, 7-8 jobs) run 25% slow in the
  // measurements, beyond what link sharing explains (8 processes on each node's CPU).
  CHECK(mean_error < 0.10);
  CHECK(within >= 50);
}

TEST_CASE("PipeDream profiles import with torchvision's exact parameter totals") {
  // Reference README: VGG-16 138,357,544 and ResNet-50 25,557,032 parameters.
  for (const auto& [model, parameters] :
       {std::pair{"resnet50", 25'557'032LL}, std::pair{"vgg16", 138'357'544LL}}) {
    const fs::path graph = reference_dir() / "pipedream_profiles" / model / "graph.txt";
    if (!have_reference(graph)) return;
    const Workload workload = import_pipedream_profile(graph, 128, model, "V100");
    MESSAGE(fmt::format("{}: {} layers, forward {:.1f} ms, backward {:.1f} ms", model,
                        workload.layers.size(), total_forward(workload).ms(),
                        total_backward(workload).ms()));
    CHECK(total_gradient_elements(workload) == parameters);
  }
}

TEST_CASE("the roofline estimates against PipeDream's V100 profiles at batch 128") {
  // PipeDream's profiles (V100, batch 128) give ResNet-50 forward + backward = 462.4 ms and
  // VGG-16 690.5 ms. Our estimates are per 32 samples, and every time scales with the batch in
  // the roofline, so 4x the committed batch-32 traces (117.6 ms and 382.7 ms with the optimizer)
  // compare with them.
  const fs::path root = reference_dir() / "pipedream_profiles";
  if (!have_reference(root / "resnet50" / "graph.txt")) return;
  for (const auto& [model, tolerance] : {std::pair{"resnet50", 0.10}, std::pair{"vgg16", 1.5}}) {
    const Workload profiled =
        import_pipedream_profile(root / model / "graph.txt", 128, model, "V100");
    const Workload estimated = read_trace(fs::path(SGDSIM_SOURCE_ROOT) / "traces" /
                                          fmt::format("{}_b32_v100_estimated.json", model));
    const double profiled_ms = (total_forward(profiled) + total_backward(profiled)).ms();
    const double estimated_ms = 4.0 * (total_forward(estimated) + total_backward(estimated)).ms();
    MESSAGE(fmt::format("{}: PipeDream {:.1f} ms, roofline estimate {:.1f} ms ({:+.0f}%)", model,
                        profiled_ms, estimated_ms, 100.0 * (estimated_ms / profiled_ms - 1.0)));
    // ResNet-50 is within 10%; VGG-16's large 3x3 convolutions run far above the estimate's 50%
    // compute efficiency on a V100 (the estimate is 2.2x slow), which the bound records.
    CHECK(std::fabs(estimated_ms / profiled_ms - 1.0) < tolerance);
  }
}

int main(int argc, char** argv) {
  if (!fs::is_directory(reference_dir())) {
    std::printf("SKIPPED: no reference data at %s (set SGDSIM_REFERENCE to its folder)\n",
                reference_dir().string().c_str());
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
