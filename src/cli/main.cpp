// The sgdsim command line: the only place that catches errors and chooses exit codes
// (0 success, 2 bad input, 3 a simulation that cannot finish, 70 an internal error,
// 130 a sweep interrupted by Ctrl-C).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <optional>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>

#include "command_hint.hpp"
#include "distributed.hpp"
#include "output_file.hpp"
#include "sgdsim/convergence/networks.hpp"
#include "sgdsim/core/build_info.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"
#include "sgdsim/core/run_monitor.hpp"
#include "sgdsim/network/link_model.hpp"
#include "sgdsim/scenario/node_presets.hpp"
#include "sgdsim/scenario/node_range.hpp"
#include "sgdsim/scenario/plausibility.hpp"
#include "sgdsim/scenario/registry_listing.hpp"
#include "sgdsim/scenario/report.hpp"
#include "sgdsim/scenario/result_schema.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"
#include "sgdsim/scenario/scenario_schema.hpp"
#include "sgdsim/scenario/timeline.hpp"
#include "sgdsim/trace_io/benchmark_log.hpp"
#include "sgdsim/trace_io/chakra_trace.hpp"
#include "sgdsim/trace_io/importer_registry.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"
#include "sgdsim/trace_io/trace_summary.hpp"
#include "sgdsim/trace_io/trace_writer.hpp"
#include "sweep_command.hpp"
#include "topology_command.hpp"

namespace {

// "results.csv" -> "results_messages.csv"
std::string messages_path(const std::string& csv_path) {
  const std::filesystem::path path(csv_path);
  return (path.parent_path() / (path.stem().string() + "_messages" + path.extension().string()))
      .string();
}

struct RunOptions {
  std::string scenario;
  std::string json_path;
  std::string csv_path;
  std::string timeline_path;
  int timeline_gpus = 4;
  int timeline_iterations = 3;
  bool quiet = false;
};

// A progress line on a terminal for a run that takes more than two seconds: the events the
// engine has run and the iterations the convergence engine has trained, redrawn twice a second
// from a watcher thread and erased when the run ends. Nothing is drawn when standard error is
// not a terminal, so logs and tests see the same text as before.
class ProgressLine {
 public:
  // `iterations`: the training iterations the run will simulate in all.
  ProgressLine(sgdsim::RunMonitor& monitor, std::string what, std::uint64_t iterations)
      : monitor_(monitor), what_(std::move(what)), iterations_(iterations) {
    if (isatty(STDERR_FILENO) == 0) return;
    watcher_ = std::jthread([this](const std::stop_token& stop) { watch(stop); });
  }
  ~ProgressLine() {
    if (!watcher_.joinable()) return;
    watcher_.request_stop();
    watcher_.join();
    if (drawn_) std::fputs("\r\033[K", stderr);
  }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void watch(const std::stop_token& stop) {
    const auto started = std::chrono::steady_clock::now();
    std::mutex mutex;
    std::condition_variable_any wake;
    std::unique_lock lock(mutex);
    // Wakes every half second, and at once when the run ends (the stop token).
    while (!wake.wait_for(lock, stop, std::chrono::milliseconds(500),
                          [&stop] { return stop.stop_requested(); })) {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
      if (elapsed.count() < 2.0) continue;
      const std::uint64_t simulated = monitor_.simulated_iterations.load();
      const std::uint64_t trained = monitor_.trained_iterations.load();
      const std::string line = fmt::format(
          "\rsgdsim: running {}: {} of {} iterations simulated ({:.1f}%), {:.1f} M events{}, "
          "{:.0f} s ",
          what_, simulated, iterations_,
          std::min(100.0,
                   100.0 * static_cast<double>(simulated) / static_cast<double>(iterations_)),
          static_cast<double>(monitor_.events.load()) / 1e6,
          trained == 0 ? "" : fmt::format(", {} iterations trained", trained), elapsed.count());
      std::fputs(line.c_str(), stderr);
      drawn_ = true;
    }
  }

  sgdsim::RunMonitor& monitor_;
  std::string what_;
  std::uint64_t iterations_;
  bool drawn_ = false;  // written by the watcher, read after join()
  std::jthread watcher_;
};

void run_command(const RunOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const sgdsim::ScenarioConfig config = sgdsim::read_scenario(options.scenario);
  // The per-message CSV goes beside a CSV file; with "-" (standard output) or a device or pipe
  // (/dev/stdout, a FIFO) it is not written.
  const std::string messages = options.csv_path.empty() || sgdsim::cli::is_stream(options.csv_path)
                                   ? ""
                                   : messages_path(options.csv_path);
  sgdsim::cli::check_outputs({options.json_path, options.csv_path, messages, options.timeline_path},
                             config.input_files);
  for (const std::string& note : config.notes) {
    std::fputs(fmt::format("note: {}\n", note).c_str(), stderr);
  }
  for (const std::string& warning : sgdsim::plausibility_warnings(config)) {
    std::fputs(fmt::format("warning: {}: {}\n", config.source, warning).c_str(), stderr);
  }
  if (config.has_sweep) {
    std::fputs(
        "note: this scenario has a sweep; `sgdsim run` runs its base point and "
        "`sgdsim sweep` runs the grid\n",
        stderr);
  }
  sgdsim::RunMonitor monitor;
  std::optional<sgdsim::ScenarioResult> run;
  {
    const sgdsim::MonitorScope monitored(&monitor);
    const ProgressLine progress(monitor, options.scenario,
                                std::uint64_t{1} * static_cast<std::uint64_t>(config.iterations) *
                                    config.policies.size() * config.compressions.size());
    run = sgdsim::run_scenario(config);
    run->node_range = sgdsim::unstated_node_range(*run);
    run->transport_range = sgdsim::unstated_transport_range(*run);
    run->host_read_range = sgdsim::unstated_host_read_range(*run);
    run->overlap_range = sgdsim::unstated_overlap_range(*run);
    run->combined_range = sgdsim::unstated_combined_range(*run);
  }
  const sgdsim::ScenarioResult& result = *run;
  // Every output is formatted first, then written all or none; the table, if any, follows.
  std::vector<std::pair<std::string, std::string>> outputs{
      {options.json_path,
       options.json_path.empty() ? "" : sgdsim::result_json(result).dump(1) + "\n"}};
  if (!options.csv_path.empty()) {
    outputs.emplace_back(options.csv_path, sgdsim::result_csv(result));
    if (!messages.empty()) outputs.emplace_back(messages, sgdsim::messages_csv(result));
  }
  if (!options.timeline_path.empty()) {
    const sgdsim::TimelineOptions timeline{options.timeline_gpus, options.timeline_iterations};
    outputs.emplace_back(options.timeline_path,
                         sgdsim::timeline_json(result, timeline).dump() + "\n");
  }
  sgdsim::cli::write_files(outputs);
  // An output sent to standard output ("-") replaces the table there.
  const bool to_stdout =
      options.json_path == "-" || options.csv_path == "-" || options.timeline_path == "-";
  if (!options.quiet && !to_stdout) std::fputs(sgdsim::summary_table(result).c_str(), stdout);
  const std::chrono::duration<double, std::milli> wall = std::chrono::steady_clock::now() - started;
  std::fflush(stdout);  // the report first, then the notes, on a shared terminal
  for (const std::string& note : sgdsim::range_notes(result)) {
    std::fputs(fmt::format("note: {}: {}\n", config.source, note).c_str(), stderr);
  }
  const std::string trained =
      result.convergence.empty()
          ? std::string()
          : fmt::format(" and trained {} configurations", result.convergence.size());
  std::fputs(fmt::format("simulated {} policies{} in {:.1f} ms wall time\n", result.outcomes.size(),
                         trained, wall.count())
                 .c_str(),
             stderr);
}

struct ImportOptions {
  std::string input;
  std::string format;
  std::string output;
  int batch = 0;
  std::string model;
  std::string device = "unknown";
  std::string time_unit;
  int sequence = 0;
  std::optional<double> measured_us;
  std::optional<std::int64_t> parameters;
  std::string precision;
};

void import_command(const ImportOptions& options) {
  const sgdsim::ImporterEntry* importer = sgdsim::importer_registry().find(options.format);
  if (importer == nullptr) {
    const auto closest = sgdsim::importer_registry().closest(options.format);
    throw sgdsim::InputError(fmt::format(
        "--from: expected {}, found \"{}\"{}", sgdsim::importer_registry().choices(),
        options.format, closest ? fmt::format(" (did you mean \"{}\"?)", *closest) : ""));
  }
  if (importer->needs_batch && options.batch == 0) {
    throw sgdsim::InputError(fmt::format(
        "--batch: a {} profile does not record the batch size; give the samples per GPU of the "
        "profiled run with --batch N",
        importer->name));
  }
  if (!options.time_unit.empty() &&
      std::find(importer->time_units.begin(), importer->time_units.end(), options.time_unit) ==
          importer->time_units.end()) {
    throw sgdsim::InputError(
        importer->time_units.empty()
            ? fmt::format("--time-unit: a {} profile states its own time unit", importer->name)
            : fmt::format("--time-unit: a {} profile's durations are read in {}, found \"{}\"",
                          importer->name, fmt::join(importer->time_units, " or "),
                          options.time_unit));
  }
  if (!importer->reads_run_details) {
    for (const auto& [option, given] : {std::pair{"--sequence", options.sequence > 0},
                                        std::pair{"--measured-us", options.measured_us.has_value()},
                                        std::pair{"--parameters", options.parameters.has_value()},
                                        std::pair{"--precision", !options.precision.empty()}}) {
      if (given) {
        throw sgdsim::InputError(fmt::format("{}: only a kineto profile takes it, not a {} profile",
                                             option, importer->name));
      }
    }
  }
  for (const auto& [option, text] :
       {std::pair{"--model", &options.model}, std::pair{"--device", &options.device}}) {
    if (!sgdsim::valid_utf8(*text)) {  // both are written into the JSON trace
      throw sgdsim::InputError(
          fmt::format("{}: expected UTF-8 text, found bytes that are not UTF-8", option));
    }
  }
  sgdsim::cli::check_outputs({options.output}, {options.input});
  const sgdsim::Workload workload = importer->import(
      {options.input, options.batch, options.model, options.device, options.time_unit,
       options.sequence, options.measured_us, options.parameters, options.precision});
  std::ostringstream text;
  sgdsim::write_trace(workload, text);
  // Read back through the validator: an importer never writes a trace sgdsim would refuse.
  sgdsim::read_trace(sgdsim::jsonio::parse_text(text.str(), options.output));
  sgdsim::cli::write_file(options.output, text.str());
  std::fputs(
      fmt::format("imported {} layers, {} gradient elements into {}\n", workload.layers.size(),
                  sgdsim::total_gradient_elements(workload), options.output)
          .c_str(),
      stderr);
}

struct ExportOptions {
  std::string input;
  std::string format;
  std::string output;
};

// Exports go the other way: a trace written in another tool's format (so far Chakra ETs, for
// ASTRA-sim), refused before anything is written if the trace cannot be expressed.
void export_command(const ExportOptions& options) {
  sgdsim::cli::check_outputs({options.output}, {options.input});
  const sgdsim::Workload workload = sgdsim::read_trace(options.input);
  std::ostringstream bytes(std::ios::binary);
  sgdsim::write_chakra_trace(workload, bytes, options.input);
  sgdsim::cli::write_file(options.output, bytes.str());
  std::fputs(fmt::format("exported {} layers as a Chakra ET of one data-parallel rank into {}\n",
                         workload.layers.size(), options.output)
                 .c_str(),
             stderr);
}

std::string importer_names() {
  std::string names;
  for (const sgdsim::ImporterEntry& entry : sgdsim::importer_registry().entries()) {
    names += (names.empty() ? "" : ", ") + entry.name;
  }
  return names;
}

struct CalibrateOptions {
  std::string path;
  std::string intra_path;  // a run inside one node, optional
  double min_bytes = 16384;
  double max_bytes = 1048576;
  int gpus = 0;
  int gpus_per_node = 0;    // 0: the log's rank lines, else one GPU per node
  bool full_range = false;  // every size, relative errors
  bool show_sizes = false;  // print every size's fit check
  std::string node;         // the node the run inside one node ran on, optional
};

// What the node the run inside one node ran on must read host memory at for its rings to give
// the measured hop (NodeTopology's fit_read_efficiency), as a line for the report.
std::string node_fit_line(const std::string& name, int run_gpus, double hop_gbps) {
  const sgdsim::NodeDescription description = sgdsim::resolve_node(name, "", "calibrate --node");
  sgdsim::NodeTopology node = sgdsim::NodeTopology::build(description, name);
  if (node.gpus() < run_gpus) {
    throw sgdsim::InputError(
        fmt::format("--node {}: the node has {} GPUs, and the run inside one node {}: describe "
                    "the node the run used",
                    name, node.gpus(), run_gpus));
  }
  // A run on fewer GPUs than the node has ran on its first ones, as a scenario prices them.
  if (node.gpus() > run_gpus) node = sgdsim::NodeTopology::build(node.first_gpus(run_gpus), name);
  using Outcome = sgdsim::ReadEfficiencyFit::Outcome;
  const sgdsim::ReadEfficiencyFit fit = sgdsim::fit_read_efficiency(node, hop_gbps);
  switch (fit.outcome) {
    case Outcome::fitted:
      return fmt::format(
          "node:      {}'s rings give the measured {:.3f} Gbps with its GPUs reading host memory "
          "at {:.3f} of their writes (default {:.3f}): \"cluster\": {{\"node\": \"{}\", "
          "\"host_read_efficiency\": {:.3f}}}\n",
          name, hop_gbps, fit.efficiency, sgdsim::host_read_efficiency, name, fit.efficiency);
    case Outcome::not_through_host:
      return fmt::format(
          "node:      {}'s rings do not go through host memory: no read fraction to fit (its "
          "rings: {:.3f} Gbps; measured {:.3f})\n",
          name, sgdsim::model_node(node).ring_gbps, hop_gbps);
    case Outcome::above:
      return fmt::format(
          "node:      the measured {:.3f} Gbps is above {}'s rings even with reads as fast as "
          "writes ({:.3f} Gbps): the node described is slower than the one measured\n",
          hop_gbps, name, sgdsim::model_node(node, 1.0).ring_gbps);
    case Outcome::below: break;
  }
  return fmt::format(
      "node:      the measured {:.3f} Gbps is below {}'s rings even with reads at 1% of the "
      "writes: something else limits the node measured\n",
      hop_gbps, name);
}

// How the fit reproduces the measured sizes: the worst relative error inside and outside the
// fitted range, and (show_sizes) every size.
std::string fit_report(const sgdsim::Calibration& result, bool show_sizes) {
  std::string out;
  double worst_in = 0.0;
  double worst_out = 0.0;
  double worst_in_bytes = 0.0;
  double worst_out_bytes = 0.0;
  bool outside = false;
  int within = 0;
  for (const sgdsim::FitCheck& check : result.checks) {
    const double error = std::abs(check.error());
    within += error <= 0.10 ? 1 : 0;
    double& worst = check.fitted ? worst_in : worst_out;
    if (error > worst) {
      worst = error;
      (check.fitted ? worst_in_bytes : worst_out_bytes) = check.bytes;
    }
    outside = outside || !check.fitted;
    if (show_sizes) {
      out += fmt::format("  {:>14.0f} B  measured {:>12.2f} us  fit {:>12.2f} us  {:>+7.1f}%{}\n",
                         check.bytes, check.measured_us, check.fitted_us, 100.0 * check.error(),
                         check.fitted ? "" : "  (outside the fitted range)");
    }
  }
  out += fmt::format(
      "check:     within 10% on {} of {} measured sizes; worst {:.1f}% at {:.0f} "
      "bytes in the fitted range",
      within, result.checks.size(), 100.0 * worst_in, worst_in_bytes);
  if (outside) {
    out += fmt::format(", {:.1f}% at {:.0f} bytes outside it", 100.0 * worst_out, worst_out_bytes);
  }
  return out + "\n";
}

// One benchmark file's fit as a measurement, with its summary lines.
sgdsim::MeasuredAllreduce fit_file(const sgdsim::BenchmarkLog& log, const std::string& path,
                                   const CalibrateOptions& options, std::optional<int> gpus,
                                   int gpus_per_node, std::string& out) {
  const double min_bytes = options.full_range ? 0.0 : options.min_bytes;
  const double max_bytes = options.full_range ? 0x1p50 : options.max_bytes;
  const sgdsim::Calibration result =
      sgdsim::calibrate(log, path, min_bytes, max_bytes, gpus, options.full_range);
  // GPUs per node: as given, else as the log's rank lines say (ranks per host), else one.
  const bool from_log = gpus_per_node == 0 && log.gpus_per_node.has_value();
  const int per_node = gpus_per_node > 0 ? gpus_per_node : log.gpus_per_node.value_or(1);
  if (result.gpus % per_node != 0) {
    throw sgdsim::InputError(fmt::format("{}: --gpus-per-node {} does not divide the run's {} GPUs",
                                         path, per_node, result.gpus));
  }
  out += fmt::format(
      "calibrate: {} ({} output, {} GPUs, {}{}), {} of {} measurements {}\n"
      "fit:       t = {:.3f} us + {:.5f} ns/byte x S   ({}r^2 = {:.4f})\n",
      path, log.format, result.gpus,
      per_node == result.gpus ? std::string("inside one node")
                              : fmt::format("{} per node", per_node),
      from_log ? ", from its rank lines" : "", result.points, log.points.size(),
      options.full_range ? std::string("(the full range)")
                         : fmt::format("between {:.0f} and {:.0f} bytes", min_bytes, max_bytes),
      result.fit.intercept_us, result.fit.slope_us_per_byte * 1e3,
      options.full_range ? "relative errors, weighted " : "", result.fit.r_squared);
  out += fit_report(result, options.show_sizes);
  return {result.gpus, sgdsim::Time::from_us(result.fit.intercept_us),
          result.fit.slope_us_per_byte * 1e6, per_node};
}

std::string measurement_json(const sgdsim::MeasuredAllreduce& m) {
  return fmt::format(
      "{{\"gpus\": {}, {}\"alpha_us\": {:.3f}, \"beta_ns_per_byte\": {:.5f}}}", m.gpus,
      m.gpus_per_node > 1 ? fmt::format("\"gpus_per_node\": {}, ", m.gpus_per_node) : "",
      m.startup.us(), m.ps_per_byte * 1e-3);
}

void calibrate_command(const CalibrateOptions& options) {
  std::string out;
  std::optional<sgdsim::MeasuredAllreduce> intra;
  int per_node = options.gpus_per_node;
  if (!options.intra_path.empty()) {
    const sgdsim::BenchmarkLog inside = sgdsim::read_benchmark_log(options.intra_path);
    // The node's GPUs: as given, else the intra-node run's own (nccl-tests on one host).
    if (per_node < 2 && inside.gpus && inside.gpus_per_node == inside.gpus) {
      per_node = *inside.gpus;
    }
    if (per_node < 2) {
      throw sgdsim::InputError(
          fmt::format("{}: --intra-node needs --gpus-per-node G (the GPUs of the node it ran on, "
                      "at least 2) when its log does not list them on one host",
                      options.intra_path));
    }
    intra = fit_file(inside, options.intra_path, options, per_node, per_node, out);
  }
  // The run across nodes: its own ranks per host when it lists them, else the node's.
  const sgdsim::BenchmarkLog across = sgdsim::read_benchmark_log(options.path);
  const bool lists_own = options.gpus_per_node == 0 && across.gpus_per_node.has_value();
  const sgdsim::MeasuredAllreduce main =
      fit_file(across, options.path, options,
               options.gpus > 0 ? std::optional<int>(options.gpus) : std::nullopt,
               lists_own ? 0 : per_node, out);
  // The hop classes the fits imply (link_model.hpp); without a fit inside a node, its hop
  // is taken at the scenario default of 1 us.
  sgdsim::Time intra_alpha = sgdsim::Time::from_us(1.0);
  if (intra) {
    const sgdsim::LinkModel hop = sgdsim::hop_from_ring_fit(*intra, sgdsim::Time::zero());
    intra_alpha = hop.alpha;
    out += fmt::format("in a node: {:.3f} us per hop, {:.3f} Gbps\n", hop.alpha.us(),
                       hop.bandwidth.gbps());
  }
  const sgdsim::LinkModel hop = sgdsim::hop_from_ring_fit(main, intra_alpha);
  // The run inside one node that --node is compared with: --intra-node's, else the main run.
  const sgdsim::MeasuredAllreduce* inside = intra                    ? &*intra
                                            : main.inside_one_node() ? &main
                                                                     : nullptr;
  if (!options.node.empty() && inside == nullptr) {
    throw sgdsim::InputError(fmt::format(
        "--node {}: a run inside one node to compare its rings with ({} ran across {} nodes): "
        "give that run, or add it with --intra-node",
        options.node, options.path, main.nodes()));
  }
  if (main.inside_one_node()) {
    out += fmt::format("in a node: {:.3f} us per hop, {:.3f} Gbps\n", hop.alpha.us(),
                       hop.bandwidth.gbps());
  } else if (main.gpus_per_node == 1) {
    out += fmt::format("ring link: {:.3f} us per hop, {:.3f} Gbps\n", hop.alpha.us(),
                       hop.bandwidth.gbps());
  } else {
    out += fmt::format(
        "ring link: {:.3f} us per node crossing ({} intra-node steps at {:.3f} us{}), {:.3f} "
        "Gbps\n",
        hop.alpha.us(), 2 * (main.gpus - main.nodes()), intra_alpha.us(),
        intra ? "" : ", the default", hop.bandwidth.gbps());
  }
  if (!options.node.empty()) {
    out += node_fit_line(options.node, inside->gpus,
                         sgdsim::hop_from_ring_fit(*inside, sgdsim::Time::zero()).bandwidth.gbps());
  }
  out += fmt::format("scenario:  \"network\": {{\"measured_allreduce\": [{}{}]}}\n",
                     intra ? measurement_json(*intra) + ", " : "", measurement_json(main));
  std::fputs(out.c_str(), stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const sgdsim::cli::Distributed distributed(&argc, &argv);
  CLI::App app{"sgdsim: trace-driven simulator of communication in distributed synchronous SGD"};
  app.set_version_flag("--version",
                       fmt::format("sgdsim {} (commit {})\nMPI sweeps: {}\nnetworks (libtorch): {}",
                                   sgdsim::sgdsim_version(), sgdsim::sgdsim_commit(),
                                   sgdsim::cli::Distributed::available() ? "yes" : "no",
                                   sgdsim::convergence::networks_available() ? "yes" : "no"));
  app.require_subcommand(1);

  RunOptions run_options;
  CLI::App* run = app.add_subcommand("run", "Run a what-if scenario and print a summary table");
  run->add_option("scenario", run_options.scenario, "Scenario JSON file (see scenarios/README.md)")
      ->required();
  run->add_option("--json", run_options.json_path, "Also write the full result as JSON to FILE");
  run->add_option("--csv", run_options.csv_path,
                  "Also write one CSV row per policy to FILE, and per-message rows to "
                  "FILE_messages.csv");
  run->add_option("--timeline", run_options.timeline_path,
                  "Also write a Chrome-trace/Perfetto timeline to FILE (open in ui.perfetto.dev)");
  run->add_option("--timeline-gpus", run_options.timeline_gpus,
                  "GPUs with their own timeline tracks (default 4)")
      ->check(CLI::Range(1, 256));
  run->add_option("--timeline-iterations", run_options.timeline_iterations,
                  "Iterations drawn in the timeline (default 3)")
      ->check(CLI::Range(1, 1000));
  run->add_flag("-q,--quiet", run_options.quiet, "Do not print the summary table");

  sgdsim::cli::SweepOptions sweep_options;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run a scenario's sweep grid on all cores (and MPI ranks under mpirun)");
  sweep
      ->add_option("scenario", sweep_options.scenario, "Scenario JSON file with a \"sweep\" object")
      ->required();
  sweep->add_option("--csv", sweep_options.csv_path, "Write one row per point and policy to FILE");
  sweep->add_option("--json", sweep_options.json_path, "Write the rows as JSON to FILE");
  sweep->add_option("--plot", sweep_options.plot_path,
                    "Also draw scaling curves to FILE (.png, .svg or .pdf) with plots/scaling.py");
  sweep->add_option("--threads", sweep_options.threads, "Threads (default: all cores)")
      ->check(CLI::Range(1, 1024));

  CalibrateOptions calibrate_options;
  CLI::App* calibrate =
      app.add_subcommand("calibrate", "Fit alpha and beta to OSU or nccl-tests allreduce output");
  calibrate
      ->add_option("file", calibrate_options.path,
                   "Benchmark output (osu_allreduce, all_reduce_perf)")
      ->required();
  calibrate->add_option("--min-bytes", calibrate_options.min_bytes,
                        "Smallest message size used (default 16384)");
  calibrate->add_option("--max-bytes", calibrate_options.max_bytes,
                        "Largest message size used (default 1048576)");
  calibrate
      ->add_option("--gpus", calibrate_options.gpus, "GPUs in the run, when the log does not say")
      ->check(CLI::Range(2, 1 << 20));
  calibrate
      ->add_option("--gpus-per-node", calibrate_options.gpus_per_node,
                   "GPUs per node in the run (default: nccl-tests' rank lines, ranks per host; "
                   "else 1; equal to its GPUs for a run inside one node)")
      ->check(CLI::Range(1, 1 << 20));
  calibrate->add_flag("--full-range", calibrate_options.full_range,
                      "Fit every measured size, large messages included, minimising relative "
                      "errors (instead of least squares over --min-bytes..--max-bytes)");
  calibrate->add_flag("--sizes", calibrate_options.show_sizes,
                      "Print how the fit reproduces every measured size");
  calibrate->add_option("--intra-node", calibrate_options.intra_path,
                        "Also a run inside one node of --gpus-per-node GPUs: the fit of the "
                        "intra-node link, and the node crossings' latency net of it");
  calibrate->add_option("--node", calibrate_options.node,
                        "The node the run inside one node ran on (a preset or a node file, with "
                        "the GPUs the run used): the cluster.host_read_efficiency at which its "
                        "rings give the measured link");

  std::string trace_path;
  CLI::App* trace = app.add_subcommand("trace", "Inspect trace files");
  trace->require_subcommand(1);
  CLI::App* show = trace->add_subcommand("show", "Print a trace's layers and totals");
  show->add_option("file", trace_path, "Trace JSON file (see traces/README.md)")->required();
  ImportOptions import_options;
  CLI::App* import = trace->add_subcommand("import", "Convert another tool's profile to a trace");
  import->add_option("file", import_options.input, "Profile to import")->required();
  import
      ->add_option("--from", import_options.format,
                   "Format of the profile (sgdsim list importers): " + importer_names())
      ->required();
  import->add_option("-o,--output", import_options.output, "Trace file to write")->required();
  import
      ->add_option("--batch", import_options.batch,
                   "Samples per GPU of the profiled run (formats that do not record it)")
      ->check(CLI::Range(1, 1 << 24));

  ExportOptions export_options;
  CLI::App* export_trace = trace->add_subcommand(
      "export", "Write a trace in another tool's format (ASTRA-sim's Chakra ET)");
  export_trace->add_option("file", export_options.input, "Trace JSON file")->required();
  export_trace->add_option("--to", export_options.format, "Format to write: chakra")
      ->required()
      ->check(CLI::IsMember({"chakra"}));
  export_trace->add_option("-o,--output", export_options.output, "File to write (.et)")->required();

  sgdsim::cli::TopologyOptions topology_options;
  const sgdsim::cli::TopologyCommands topology =
      sgdsim::cli::add_topology_commands(app, topology_options);

  std::string list_family;
  bool list_as_json = false;
  bool list_as_markdown = false;
  CLI::App* list = app.add_subcommand(
      "list", "List collectives, policies, compressors, schedules or importers with their keys");
  list->add_option("family", list_family, "One family; default: all")
      ->check(CLI::IsMember(sgdsim::registry_families()));
  list->add_flag("--json", list_as_json, "As JSON (format sgdsim-registries)");
  list->add_flag("--markdown", list_as_markdown,
                 "As the Markdown reference tables of scenarios/README.md");
  bool result_schema = false;
  CLI::App* schema =
      app.add_subcommand("schema", "Print the JSON Schema of scenario files (draft 2020-12)");
  schema->add_flag("--result", result_schema,
                   "The schema of result files (run --json) instead: every field's meaning");
  import->add_option("--model", import_options.model, "Model name for the trace");
  import->add_option("--device", import_options.device, "Device the profile was taken on");
  import->add_option("--time-unit", import_options.time_unit,
                     "Unit of the profile's durations, for formats that do not fix it: chakra "
                     "us (Chakra's duration_micros; default) or ns (ASTRA-sim 2.0's 1 ns cycles)");
  import
      ->add_option("--sequence", import_options.sequence,
                   "kineto: tokens per sample of a sequence model (BERT, GPT-2)")
      ->check(CLI::Range(1, 1 << 24));
  import
      ->add_option("--measured-us", import_options.measured_us,
                   "kineto: a plain iteration's time measured apart from the profile, "
                   "microseconds (written as measured_iteration_us)")
      ->check(CLI::Range(1e-3, 1e12));
  import
      ->add_option("--parameters", import_options.parameters,
                   "kineto: the model's trainable parameters; the gradients found must add up to "
                   "exactly this")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  import->add_option("--precision", import_options.precision, "kineto: fp32, amp or bf16")
      ->check(CLI::IsMember({"fp32", "amp", "bf16"}));

  if (const auto unknown = sgdsim::cli::unknown_command(app, argc, argv)) {
    std::fprintf(stderr, "sgdsim: error: %s\n", unknown->c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }

  int code = 0;
  try {
    if (run->parsed()) {
      run_command(run_options);
    } else if (sweep->parsed()) {
      code = sgdsim::cli::sweep_command(sweep_options, distributed);
    } else if (calibrate->parsed()) {
      calibrate_command(calibrate_options);
    } else if (import->parsed()) {
      import_command(import_options);
    } else if (export_trace->parsed()) {
      export_command(export_options);
    } else if (topology.show->parsed() || topology.list->parsed() || topology.import->parsed()) {
      sgdsim::cli::topology_command(topology, topology_options);
    } else if (list->parsed()) {
      std::fputs((list_as_json       ? sgdsim::list_json(list_family).dump(2) + "\n"
                  : list_as_markdown ? sgdsim::list_markdown()
                                     : sgdsim::list_text(list_family))
                     .c_str(),
                 stdout);
    } else if (schema->parsed()) {
      std::fputs(
          ((result_schema ? sgdsim::result_schema() : sgdsim::scenario_schema()).dump(2) + "\n")
              .c_str(),
          stdout);
    } else if (show->parsed()) {
      std::fputs(sgdsim::trace_summary(sgdsim::read_trace(trace_path)).c_str(), stdout);
    }
    // Whatever went to standard output must have arrived (`> /dev/full`, a full disk).
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int reason = errno;
    if (!flushed || std::ferror(stdout) != 0) {
      throw sgdsim::InputError(
          fmt::format("-: cannot write to standard output{}",
                      reason != 0 ? fmt::format(": {}", std::strerror(reason)) : std::string()));
    }
    return code;
  } catch (const sgdsim::InputError& error) {
    std::fprintf(stderr, "sgdsim: error: %s\n", error.what());
    code = 2;
  } catch (const sgdsim::SimulationError& error) {
    std::fprintf(stderr, "sgdsim: simulation cannot finish: %s\n", error.what());
    code = 3;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "sgdsim: simulation cannot finish: %s\n", sgdsim::out_of_memory_message);
    code = 3;
  } catch (const std::exception& error) {
    std::fprintf(stderr,
                 "sgdsim: %s\nThis is a bug in sgdsim; please report it with the input "
                 "that caused it.\n",
                 error.what());
    code = 70;
  }
  if (distributed.size() > 1) distributed.abort(code);
  return code;
}
