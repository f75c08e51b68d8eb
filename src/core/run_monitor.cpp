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

void report_events(std::uint64_t events) {
  RunMonitor* monitor = this_thread_monitor;
  if (monitor == nullptr) return;
  monitor->events.fetch_add(events, std::memory_order_relaxed);
  if (monitor->stop.load(std::memory_order_relaxed)) throw Interrupted();
}

void report_simulated_iterations(std::uint64_t iterations) {
  RunMonitor* monitor = this_thread_monitor;
  if (monitor == nullptr) return;
  monitor->simulated_iterations.fetch_add(iterations, std::memory_order_relaxed);
  if (monitor->stop.load(std::memory_order_relaxed)) throw Interrupted();
}

void report_trained_iteration() {
  RunMonitor* monitor = this_thread_monitor;
  if (monitor == nullptr) return;
  monitor->trained_iterations.fetch_add(1, std::memory_order_relaxed);
  if (monitor->stop.load(std::memory_order_relaxed)) throw Interrupted();
}

}  // namespace sgdsim
