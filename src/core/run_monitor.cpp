// The thread's monitor (run_monitor.hpp).
#include "sgdsim/core/run_monitor.hpp"

namespace sgdsim {

namespace {
thread_local RunMonitor* this_thread_monitor = nullptr;
}  // namespace

MonitorScope::MonitorScope(RunMonitor* monitor) : previous_(this_thread_monitor) {
  this_thread_monitor = monitor;
}

MonitorScope::~MonitorScope() {
  this_thread_monitor = previous_;
}

RunMonitor* current_monitor() {
  return this_thread_monitor;
}

namespace {

// Adds `amount` to one of this thread's monitor counters; throws Interrupted if asked to stop.
void report(std::atomic<std::uint64_t> RunMonitor::*counter, std::uint64_t amount) {
  RunMonitor* monitor = this_thread_monitor;
  if (monitor == nullptr) return;
  (monitor->*counter).fetch_add(amount, std::memory_order_relaxed);
  if (monitor->stop.load(std::memory_order_relaxed)) throw Interrupted();
}

}  // namespace

void report_events(std::uint64_t events) {
  report(&RunMonitor::events, events);
}

void report_simulated_iterations(std::uint64_t iterations) {
  report(&RunMonitor::simulated_iterations, iterations);
}

void report_trained_iteration() {
  report(&RunMonitor::trained_iterations, 1);
}

}  // namespace sgdsim
