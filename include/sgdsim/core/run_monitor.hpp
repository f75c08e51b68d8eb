// Watching and stopping a long computation from outside it: the engine and the convergence
// trainer count their work into the calling thread's RunMonitor and stop with Interrupted when
// asked, checking every few thousand events, so that a progress line can be drawn and Ctrl-C
// honoured within a fraction of a second however deep the run is. The monitor is reached through
// a thread-local pointer set by a MonitorScope: the one state outside the objects passed down,
// as a signal flag must be, and scoped to a thread so that sweeps' threads and several runs in
// one process stay independent.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>

namespace sgdsim {

struct RunMonitor {
  std::atomic<bool> stop{false};                     // set by a watcher; the run throws Interrupted
  std::atomic<std::uint64_t> events{0};              // engine events run so far, in blocks
  std::atomic<std::uint64_t> trained_iterations{0};  // convergence engine iterations so far
  std::atomic<std::uint64_t> simulated_iterations{0};  // training iterations simulated so far
};

// A run stopped through its monitor: neither bad input nor a simulation that cannot finish.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

// Makes `monitor` this thread's monitor until the scope ends (nullptr: none); scopes nest.
class MonitorScope {
 public:
  explicit MonitorScope(RunMonitor* monitor);
  ~MonitorScope();
  MonitorScope(const MonitorScope&) = delete;
  MonitorScope& operator=(const MonitorScope&) = delete;

 private:
  RunMonitor* previous_;
};

// This thread's monitor, or nullptr.
RunMonitor* current_monitor();

// Adds `events` to this thread's monitor and throws Interrupted if it was asked to stop.
void report_events(std::uint64_t events);
// The same for iterations of the convergence engine, and for simulated training iterations.
void report_trained_iteration();
void report_simulated_iterations(std::uint64_t iterations);

}  // namespace sgdsim
