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
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "output_file.hpp"
#include "plot_scripts.hpp"
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

// A sweep's CSV written in point order while points finish in any order: a point's rows wait
// here until every earlier point has finished or failed (points are handed out in order, so
// with points of similar cost that is a few per thread; a slow early point holds back those
// after it). The JSON document, when asked for, is streamed alike. Its caller serialises the
// calls. It never throws while the sweep runs: the first write error is kept (error()) and
// the rest of the writing skipped, so that the command can stop the sweep, remove the partial
// files and report it.
class OrderedRows {
 public:
  struct Output {
    std::string path;
    bool only_if_complete = false;  // kept only when every point finished (the plot's CSV)
  };

  OrderedRows(const Sweep& sweep, const std::vector<Output>& outputs, const std::string& json)
      : sweep_(sweep) {
    for (const Output& output : outputs) {
      outputs_.push_back({std::make_unique<StreamedOutput>(output.path), output.only_if_complete});
      outputs_.back().file->write(sweep_csv_header(sweep));
    }
    if (!json.empty()) {
      json_ = std::make_unique<StreamedOutput>(json);
      json_->write(sweep_json_head(sweep));
    }
  }

  void finished(SweepPointRows rows) {
    ++finished_;
    waiting_.emplace(rows.index, std::move(rows));
    release();
  }
  void failed(std::size_t index) {
    waiting_.emplace(index, std::nullopt);
    release();
  }
  void flush() {
    guarded([&] {
      for (auto& output : outputs_) output.file->flush();
      if (json_) json_->flush();
    });
  }
  // Writes the rows still waiting (after a point that never finished: still in point order),
  // then the failed points and any interruption, and renames the files into place; an output
  // kept only for a complete sweep is removed when it is not. Later calls change nothing.
  void close(const std::vector<SweepFailure>& failures, bool complete) {
    for (auto& [index, rows] : waiting_) {
      if (rows) write(std::move(*rows));
    }
    waiting_.clear();
    const std::string tail = sweep_csv_tail(sweep_, finished_, failures);
    guarded([&] {
      for (auto& output : outputs_) {
        if (output.only_if_complete && !complete) {
          output.file->discard();
          continue;
        }
        output.file->write(tail);
        output.file->commit();
      }
      if (json_) {
        json_->write(sweep_json_tail(finished_, failures, json_rows_written_));
        json_->commit();
      }
    });
    closed_ = true;
  }
  // Removes the partial files (what went to standard output or a device stays, marked).
  void discard() {
    for (auto& output : outputs_) output.file->discard("# aborted: see the error on stderr\n");
    if (json_) json_->discard();
    closed_ = true;
  }
  const std::exception_ptr& error() const { return error_; }
  std::size_t finished_points() const { return finished_; }

 private:
  struct Stream {
    std::unique_ptr<StreamedOutput> file;
    bool only_if_complete = false;
  };

  // Writes every waiting point that is next in order.
  void release() {
    while (!waiting_.empty() && waiting_.begin()->first == next_) {
      if (waiting_.begin()->second) write(std::move(*waiting_.begin()->second));
      waiting_.erase(waiting_.begin());
      ++next_;
    }
  }
  void write(SweepPointRows rows) {
    std::string text;
    for (const std::string& row : rows.csv) text += row + '\n';
    guarded([&] {
      for (auto& output : outputs_) output.file->write(text);
      if (json_ && !rows.json.empty()) {
        json_->write(sweep_json_rows(rows, !json_rows_written_));
        json_rows_written_ = true;
      }
    });
  }
  template <typename Action>
  void guarded(Action action) {
    if (error_ || closed_) return;
    try {
      action();
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  const Sweep& sweep_;
  std::vector<Stream> outputs_;
  std::unique_ptr<StreamedOutput> json_;  // none without --json
  bool json_rows_written_ = false;
  std::map<std::size_t, std::optional<SweepPointRows>> waiting_;  // by point index
  std::size_t next_ = 0;  // the first point not yet written or failed
  std::size_t finished_ = 0;
  std::exception_ptr error_;
  bool closed_ = false;
};

}  // namespace

int sweep_command(const SweepOptions& options, const Distributed& distributed) {
  SweepRunOptions run;
  run.threads =
      options.threads != 0 ? options.threads : std::max(1U, std::thread::hardware_concurrency());
  const Sweep sweep = Sweep::read(options.scenario, run.threads);
  if (distributed.rank() == 0) {
    for (const std::string& warning : sweep.warnings()) {
      std::fputs(fmt::format("warning: {}: {}\n", sweep.source(), warning).c_str(), stderr);
    }
  }
  std::vector<std::filesystem::path> inputs{options.scenario};
  for (const std::filesystem::path& input : sweep.input_files()) {
    if (std::find(inputs.begin(), inputs.end(), input) == inputs.end()) inputs.push_back(input);
  }
  const std::string plot_csv =
      options.plot_path.empty() || !options.csv_path.empty() ? "" : options.plot_path + ".csv";
  check_outputs({options.csv_path, options.json_path, options.plot_path, plot_csv}, inputs);
  // Found before the sweep runs, so that a missing script costs no simulation.
  const std::string scaling_script = options.plot_path.empty() ? "" : plot_script("scaling.py");
  const bool root = distributed.rank() == 0;
  for (std::size_t i = static_cast<std::size_t>(distributed.rank()); i < sweep.size();
       i += static_cast<std::size_t>(distributed.size())) {
    run.points.push_back(i);
  }
  std::atomic<std::size_t> done{0};
  run.done = &done;
  run.json = !options.json_path.empty();
  run.stop = &interrupted;
  const bool alone = distributed.size() == 1;
  std::vector<SweepFailure> failures;
  run.failures = alone ? &failures : nullptr;  // across MPI ranks the first failure ends it
  // Alone, the CSV (and the JSON) is streamed in point order as points finish (CSV.partial,
  // renamed at the end; standard output when no file is named), so a sweep's memory does not
  // grow with its grid and even a sweep killed outright leaves its finished rows on disk. Across
  // MPI ranks the rows are gathered on rank 0 and written at the end.
  std::vector<OrderedRows::Output> csv_outputs;
  if (!options.csv_path.empty()) csv_outputs.push_back({options.csv_path});
  if (options.csv_path.empty() && options.json_path.empty()) csv_outputs.push_back({"-"});
  if (!plot_csv.empty()) csv_outputs.push_back({plot_csv, true});  // for the plot only
  std::mutex streaming;  // the writer, and the streams' flushes
  std::optional<OrderedRows> writer;
  if (alone) {
    writer.emplace(sweep, csv_outputs, options.json_path);
    run.on_finished = [&](SweepPointRows rows) {
      const std::lock_guard<std::mutex> lock(streaming);
      writer->finished(std::move(rows));
    };
    run.on_failed = [&](const SweepFailure& failure) {
      const std::lock_guard<std::mutex> lock(streaming);
      writer->failed(failure.index);
    };
  }
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESTART;  // a signal must not fail a write in progress
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);

  const bool show_progress = root && isatty(STDERR_FILENO) != 0;
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  auto report = [&](std::size_t finished) {
    std::fprintf(stderr, "sweep: %zu of %zu points in %.2f s on %u threads x %d ranks\n", finished,
                 sweep.size(), elapsed(), run.threads, distributed.size());
  };
  // Alone: the streamed CSV and JSON are closed with the failed points and any interruption.
  auto finish_streams = [&](const std::vector<SweepFailure>& failed, bool complete) {
    writer->close(failed, complete);
    if (writer->error()) std::rethrow_exception(writer->error());
    report(writer->finished_points());
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
  bool write_failed = false;  // no new point starts; the error is reported after the join
  while (!runner_done.load()) {
    if (show_progress) draw_progress(done.load(), run.points.size(), elapsed());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (writer) {
      // Finished rows reach the disk within 50 ms (a flush per point would serialise threads).
      const std::lock_guard<std::mutex> lock(streaming);
      writer->flush();
      if (writer->error() && !write_failed) {
        write_failed = true;
        interrupted.store(true);
      }
    }
    if (!alone || !interrupted.load() || write_failed) continue;
    const auto now = std::chrono::steady_clock::now();
    if (stop_seen == std::chrono::steady_clock::time_point{}) stop_seen = now;
    if (stop_signals.load() < 2 && now - stop_seen < abandon_after) continue;
    // Abandon the points still running: write what is finished and leave without them.
    if (show_progress) std::fputc('\n', stderr);
    // The lock is held to the exit: no point finishing now can write after the end mark. The
    // runner is still going, so nothing may throw from here: a write error is reported as one.
    const std::lock_guard<std::mutex> lock(streaming);
    try {
      finish_streams({}, false);
    } catch (const std::exception& failure) {
      writer->discard();
      std::fprintf(stderr, "sgdsim: error: %s\n", failure.what());
      std::fflush(nullptr);
      std::_Exit(2);
    }
    const std::size_t kept = writer->finished_points();
    std::fprintf(stderr,
                 "sweep: stopped by a signal; the rows of the %zu finished points were kept, "
                 "the points still running were abandoned\n",
                 kept);
    std::fflush(nullptr);
    std::_Exit(130);
  }
  runner.join();
  if (show_progress) {
    draw_progress(done.load(), run.points.size(), elapsed());
    std::fputc('\n', stderr);
  }
  if (writer && writer->error()) error = writer->error();
  if (error) {
    if (writer) writer->discard();
    std::rethrow_exception(error);
  }
  if (alone) {
    finish_streams(failures, !interrupted.load() && failures.empty());
  } else {
    rows = deserialize(distributed.gather(serialize(rows)));
    if (!root) return 0;
    const std::string csv = sweep_csv(sweep, rows, failures);
    for (const OrderedRows::Output& output : csv_outputs) write_file(output.path, csv);
    if (!options.json_path.empty())
      write_file(options.json_path, sweep_json(sweep, rows, failures));
    report(rows.size());
  }
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
    const std::string csv_for_plot = options.csv_path.empty() ? plot_csv : options.csv_path;
    const int status =
        run_program({plot_python(), scaling_script, csv_for_plot, "-o", options.plot_path});
    if (status != 0) {
      throw InputError(fmt::format("{}: the plot script failed (exit {}); the CSV is at {}",
                                   options.plot_path, status, csv_for_plot));
    }
  }
  return 0;
}

}  // namespace sgdsim::cli
