// Sweep command: threads, MPI split, progress bar, Ctrl-C, outputs and plot.
#include "sweep_command.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "output_file.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/sweep.hpp"

namespace sgdsim::cli {

namespace {

// Counts stop signals (SIGINT, SIGTERM, SIGHUP). A signal handler can only reach a global;
// this is the CLI's one. The first signal asks the sweep to stop: no new points start, the
// finished rows are written and marked, and the points still running are abandoned after at
// most a second. A second signal stops at once, still writing what is finished.
std::atomic<int> stop_signals{0};
std::atomic<bool> interrupted{false};

extern "C" void on_stop_signal(int /*signal*/) {
  stop_signals.fetch_add(1);
  interrupted.store(true);
}

// How long running points may take to finish after a stop signal before they are abandoned.
constexpr auto abandon_after = std::chrono::milliseconds(1000);

int exit_code(SweepFailure::Kind kind) {
  switch (kind) {
    case SweepFailure::Kind::input: return 2;
    case SweepFailure::Kind::simulation: return 3;
    case SweepFailure::Kind::internal: break;
  }
  return 70;
}

void draw_progress(std::size_t done, std::size_t total, double seconds) {
  constexpr int width = 30;
  const double fraction = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * width);
  const double rate = seconds > 0.0 ? static_cast<double>(done) / seconds : 0.0;
  const double eta = rate > 0.0 ? static_cast<double>(total - done) / rate : 0.0;
  std::fprintf(stderr, "\r[%s%s] %zu/%zu points, %.0f/s, ETA %.1f s ",
               std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(width - filled), '.').c_str(), done, total,
               rate, eta);
  std::fflush(stderr);
}

std::string serialize(const std::vector<SweepPointRows>& rows) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const SweepPointRows& point : rows) {
    all.push_back({{"index", point.index}, {"csv", point.csv}, {"json", point.json}});
  }
  return all.dump();
}

std::vector<SweepPointRows> deserialize(const std::vector<std::string>& parts) {
  std::vector<SweepPointRows> rows;
  for (const std::string& part : parts) {
    for (const auto& point : nlohmann::ordered_json::parse(part)) {
      rows.push_back({point["index"].get<std::size_t>(),
                      point["csv"].get<std::vector<std::string>>(), point["json"]});
    }
  }
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.index < b.index; });
  return rows;
}

}  // namespace

std::string plot_python() {
  if (const char* chosen = std::getenv("SGDSIM_PYTHON")) return chosen;
  // Debian's interpreter, which has python3-matplotlib; another python3 on PATH may not.
  return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

std::string plot_script(const std::string& name) {
  const char* override_dir = std::getenv("SGDSIM_PLOTS");
  return (std::filesystem::path(override_dir != nullptr ? override_dir : SGDSIM_PLOTS_DIR) / name)
      .string();
}

int sweep_command(const SweepOptions& options, const Distributed& distributed) {
  const Sweep sweep = Sweep::read(options.scenario);
  std::vector<std::filesystem::path> inputs{options.scenario};
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    for (const std::filesystem::path& input : sweep.point(i).input_files) {
      if (std::find(inputs.begin(), inputs.end(), input) == inputs.end()) inputs.push_back(input);
    }
  }
  const std::string plot_csv =
      options.plot_path.empty() || !options.csv_path.empty() ? "" : options.plot_path + ".csv";
  check_outputs({options.csv_path, options.json_path, options.plot_path, plot_csv}, inputs);
  const bool root = distributed.rank() == 0;
  SweepRunOptions run;
  run.threads =
      options.threads != 0 ? options.threads : std::max(1U, std::thread::hardware_concurrency());
  for (std::size_t i = static_cast<std::size_t>(distributed.rank()); i < sweep.size();
       i += static_cast<std::size_t>(distributed.size())) {
    run.points.push_back(i);
  }
  std::atomic<std::size_t> done{0};
  run.done = &done;
  run.json = !options.json_path.empty();
  run.stop = &interrupted;
  // Rows are also collected here as each point finishes, so that a sweep stopped by a signal
  // can write them without waiting for the points still running.
  std::mutex finished_mutex;
  std::vector<SweepPointRows> finished;
  std::vector<SweepFailure> failures;
  const bool alone = distributed.size() == 1;
  run.failures = alone ? &failures : nullptr;  // across MPI ranks the first failure ends it
  // And streamed to CSV.partial as they finish (in finishing order, flushed every 50 ms), so
  // that even a sweep killed outright leaves its finished rows on disk; the sorted CSV replaces
  // it at the end.
  std::ofstream stream;
  const std::filesystem::path streamed = alone ? partial_file(options.csv_path) : "";
  if (!streamed.empty()) {
    stream.open(streamed, std::ios::binary | std::ios::trunc);
    if (!stream || !(stream << sweep_csv_header(sweep)) || !stream.flush()) {
      throw InputError(
          fmt::format("{}: cannot write output file: {}", streamed.string(), std::strerror(errno)));
    }
  }
  if (alone) {
    run.on_finished = [&](const SweepPointRows& rows) {
      const std::lock_guard<std::mutex> lock(finished_mutex);
      finished.push_back(rows);
      if (!stream.is_open()) return;
      for (const std::string& row : rows.csv) stream << row << '\n';
    };
  }
  auto stop_streaming = [&] {
    const std::lock_guard<std::mutex> lock(finished_mutex);
    if (stream.is_open()) stream.close();
  };
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);

  const bool show_progress = root && isatty(STDERR_FILENO) != 0;
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  auto write_outputs = [&](const std::vector<SweepPointRows>& rows,
                           const std::vector<SweepFailure>& failed) {
    const std::string csv = sweep_csv(sweep, rows, failed);
    if (options.csv_path.empty() && options.json_path.empty()) {
      std::fputs(csv.c_str(), stdout);
      std::fflush(stdout);
    }
    if (!options.csv_path.empty()) write_file(options.csv_path, csv);
    if (!options.json_path.empty())
      write_file(options.json_path, sweep_json(sweep, rows, failed).dump(1) + "\n");
    std::fprintf(stderr, "sweep: %zu of %zu points in %.2f s on %u threads x %d ranks\n",
                 rows.size(), sweep.size(), elapsed(), run.threads, distributed.size());
    return csv;
  };

  std::vector<SweepPointRows> rows;
  std::exception_ptr error;
  std::atomic<bool> runner_done{false};
  std::thread runner([&] {
    try {
      rows = run_sweep(sweep, run);
    } catch (...) {
      error = std::current_exception();
    }
    runner_done.store(true);
  });
  std::chrono::steady_clock::time_point stop_seen{};
  while (!runner_done.load()) {
    if (show_progress) draw_progress(done.load(), run.points.size(), elapsed());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    {
      // Finished rows reach the disk within 50 ms (a flush per point would serialise threads).
      const std::lock_guard<std::mutex> lock(finished_mutex);
      if (stream.is_open()) stream.flush();
    }
    if (!alone || !interrupted.load()) continue;
    const auto now = std::chrono::steady_clock::now();
    if (stop_seen == std::chrono::steady_clock::time_point{}) stop_seen = now;
    if (stop_signals.load() < 2 && now - stop_seen < abandon_after) continue;
    // Abandon the points still running: write what is finished and leave without them.
    if (show_progress) std::fputc('\n', stderr);
    std::vector<SweepPointRows> kept;
    std::vector<SweepFailure> failed;
    stop_streaming();
    {
      const std::lock_guard<std::mutex> lock(finished_mutex);
      kept = finished;
    }
    std::sort(kept.begin(), kept.end(), [](auto& a, auto& b) { return a.index < b.index; });
    write_outputs(kept, failed);
    std::fprintf(stderr,
                 "sweep: stopped by a signal; the rows of the %zu finished points were kept, "
                 "the points still running were abandoned\n",
                 kept.size());
    std::fflush(nullptr);
    std::_Exit(130);
  }
  runner.join();
  stop_streaming();
  if (show_progress) {
    draw_progress(done.load(), run.points.size(), elapsed());
    std::fputc('\n', stderr);
  }
  if (error) {
    std::error_code ignored;
    if (!streamed.empty()) std::filesystem::remove(streamed, ignored);
    std::rethrow_exception(error);
  }
  rows = deserialize(distributed.gather(serialize(rows)));
  if (!root) return 0;

  const std::string csv = write_outputs(rows, failures);
  if (interrupted.load()) {
    std::fprintf(stderr, "sweep: interrupted; the rows of the finished points were kept\n");
    return 130;
  }
  if (!failures.empty()) {
    std::fprintf(stderr,
                 "sweep: %zu of %zu points failed and are listed in the output; the first, "
                 "point %zu: %s\n",
                 failures.size(), sweep.size(), failures.front().index,
                 failures.front().message.c_str());
    return exit_code(failures.front().kind);
  }
  if (!options.plot_path.empty()) {
    std::string csv_for_plot = options.csv_path;
    if (csv_for_plot.empty()) {
      csv_for_plot = plot_csv;
      write_file(csv_for_plot, csv);
    }
    const int status = run_program(
        {plot_python(), plot_script("scaling.py"), csv_for_plot, "-o", options.plot_path});
    if (status != 0) {
      throw InputError(fmt::format("{}: the plot script failed (exit {}); the CSV is at {}",
                                   options.plot_path, status, csv_for_plot));
    }
  }
  return 0;
}

}  // namespace sgdsim::cli
