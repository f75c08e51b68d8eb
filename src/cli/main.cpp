// The sgdsim command line: the only place that catches errors and chooses exit codes
// (0 success, 2 bad input, 3 a simulation that cannot finish, 70 an internal error).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/report.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"
#include "sgdsim/trace_io/trace_summary.hpp"

namespace {

// Writes through a temporary file and renames it, so a failed run never leaves a partial file
// that looks complete.
void write_file(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary);
    if (!out) throw sgdsim::InputError(fmt::format("{}: cannot write output file", path));
    out << text;
    if (!out.flush()) throw sgdsim::InputError(fmt::format("{}: cannot write output file", path));
  }
  std::filesystem::rename(temporary, path);
}

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
  bool quiet = false;
};

void run_command(const RunOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const sgdsim::ScenarioConfig config = sgdsim::read_scenario(options.scenario);
  const sgdsim::ScenarioResult result = sgdsim::run_scenario(config);
  if (!options.quiet) std::fputs(sgdsim::summary_table(result).c_str(), stdout);
  if (!options.json_path.empty()) {
    write_file(options.json_path, sgdsim::result_json(result).dump(1) + "\n");
  }
  if (!options.csv_path.empty()) {
    write_file(options.csv_path, sgdsim::result_csv(result));
    write_file(messages_path(options.csv_path), sgdsim::messages_csv(result));
  }
  const std::chrono::duration<double, std::milli> wall = std::chrono::steady_clock::now() - started;
  std::fputs(fmt::format("simulated {} policies in {:.1f} ms wall time\n", result.outcomes.size(),
                         wall.count())
                 .c_str(),
             stderr);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sgdsim: trace-driven simulator of communication in distributed synchronous SGD"};
  app.set_version_flag("--version", std::string("sgdsim ") + SGDSIM_VERSION);
  app.require_subcommand(1);

  RunOptions run_options;
  CLI::App* run = app.add_subcommand("run", "Run a what-if scenario and print a summary table");
  run->add_option("scenario", run_options.scenario, "Scenario JSON file (see scenarios/README.md)")
      ->required();
  run->add_option("--json", run_options.json_path, "Also write the full result as JSON to FILE");
  run->add_option("--csv", run_options.csv_path,
                  "Also write one CSV row per policy to FILE, and per-message rows to "
                  "FILE_messages.csv");
  run->add_flag("-q,--quiet", run_options.quiet, "Do not print the summary table");

  std::string trace_path;
  CLI::App* trace = app.add_subcommand("trace", "Inspect trace files");
  trace->require_subcommand(1);
  CLI::App* show = trace->add_subcommand("show", "Print a trace's layers and totals");
  show->add_option("file", trace_path, "Trace JSON file (see traces/README.md)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }

  try {
    if (run->parsed()) {
      run_command(run_options);
    } else if (show->parsed()) {
      std::fputs(sgdsim::trace_summary(sgdsim::read_trace(trace_path)).c_str(), stdout);
    }
    return 0;
  } catch (const sgdsim::InputError& error) {
    std::fprintf(stderr, "sgdsim: error: %s\n", error.what());
    return 2;
  } catch (const sgdsim::SimulationError& error) {
    std::fprintf(stderr, "sgdsim: simulation cannot finish: %s\n", error.what());
    return 3;
  } catch (const std::exception& error) {
    std::fprintf(stderr,
                 "sgdsim: %s\nThis is a bug in sgdsim; please report it with the input "
                 "that caused it.\n",
                 error.what());
    return 70;
  }
}
