// Sweep expansion, validation and the threaded runner.
#include "sgdsim/scenario/sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <thread>

#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/plausibility.hpp"
#include "sgdsim/scenario/report.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"

namespace sgdsim {

namespace {

constexpr std::size_t max_points = 100'000;  // stated in scenarios/README.md

// {"from": a, "to": b, "times": f} (geometric) or {"from": a, "to": b, "step": s} (arithmetic).
std::vector<nlohmann::json> expand_range(jsonio::ObjectReader reader) {
  const nlohmann::json& from = reader.value("from");
  const nlohmann::json& to = reader.value("to");
  if (!from.is_number()) reader.fail("from", "a number", from);
  if (!to.is_number()) reader.fail("to", "a number", to);
  const bool integers = from.is_number_integer() && to.is_number_integer();
  const double first = from.get<double>();
  const double last = to.get<double>();
  std::vector<nlohmann::json> values;
  auto push = [&](double value) {
    if (integers) {
      values.emplace_back(static_cast<std::int64_t>(std::llround(value)));
    } else {
      values.emplace_back(value);
    }
  };
  if (reader.has("times")) {
    const double factor = reader.positive_number("times");
    if (factor <= 1.0) reader.fail("times", "a factor > 1", factor);
    if (first <= 0.0) reader.fail("from", "a number > 0 for a geometric range", from);
    for (double value = first; value <= last * (1 + 1e-12) && values.size() < max_points;
         value *= factor) {
      push(value);
    }
  } else {
    const double step = reader.positive_number("step");
    for (std::size_t i = 0; first + static_cast<double>(i) * step <= last * (1 + 1e-12) + 1e-12 &&
                            values.size() < max_points;
         ++i) {
      push(first + static_cast<double>(i) * step);
    }
  }
  reader.reject_unknown_keys();
  if (values.empty()) {
    throw InputError(fmt::format("{}: {}: the range from {} to {} yields no values",
                                 reader.source(), reader.path(), from.dump(), to.dump()));
  }
  return values;
}

// Sets `value` at a dotted path, creating objects on the way.
void set_dotted(nlohmann::json& root, const std::string& key, const nlohmann::json& value) {
  nlohmann::json* at = &root;
  std::size_t begin = 0;
  while (true) {
    const std::size_t dot = key.find('.', begin);
    const std::string part = key.substr(begin, dot == std::string::npos ? dot : dot - begin);
    if (dot == std::string::npos) {
      (*at)[part] = value;
      return;
    }
    at = &(*at)[part];
    if (!at->is_object()) *at = nlohmann::json::object();
    begin = dot + 1;
  }
}

std::string cell(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

Sweep Sweep::read(const std::filesystem::path& path, unsigned threads) {
  return read(jsonio::parse_file(path), path.parent_path(), threads);
}

Sweep Sweep::read(const jsonio::Document& document, const std::filesystem::path& base,
                  unsigned threads) {
  Sweep sweep;
  sweep.source_ = document.source;
  sweep.base_ = base;
  jsonio::ObjectReader root(document.root, document.source, "");
  if (!root.has("sweep")) {
    throw InputError(fmt::format(
        "{}: sweep: expected an object mapping scenario keys to values, found nothing (see "
        "scenarios/README.md, \"Sweeps\")",
        document.source));
  }
  jsonio::ObjectReader axes = root.object("sweep");
  sweep.base_json_ = document.root;
  sweep.base_json_.erase("sweep");
  for (const auto& [key, spec] : document.root["sweep"].items()) {
    SweepAxis axis{key, {}};
    if (spec.is_array()) {
      if (spec.empty()) axes.fail(key, "a non-empty list of values or a range object", spec);
      axis.values.assign(spec.begin(), spec.end());
    } else if (spec.is_object()) {
      axis.values = expand_range(axes.object(key));
    } else {
      axes.fail(key, "a list of values or a range {\"from\", \"to\", \"step\" or \"times\"}", spec);
    }
    // The key must name a scenario setting: the base with the first value must still read.
    nlohmann::json probe = sweep.base_json_;
    set_dotted(probe, key, axis.values.front());
    try {
      read_scenario(jsonio::Document{document.source, probe}, base);
    } catch (const InputError& error) {
      throw InputError(
          fmt::format("{}: sweep.{}: this key does not name a valid scenario setting "
                      "for value {}: {}",
                      document.source, key, jsonio::describe(axis.values.front()), error.what()));
    }
    axes.value(key);
    sweep.axes_.push_back(std::move(axis));
  }
  if (sweep.axes_.empty()) {
    throw InputError(fmt::format(
        "{}: sweep: expected at least one swept key, found an empty object", document.source));
  }
  std::size_t total = 1;
  for (const SweepAxis& axis : sweep.axes_) {
    total *= axis.values.size();
    if (total > max_points) {
      throw InputError(fmt::format("{}: sweep: the grid has more than {} points; split it",
                                   document.source, max_points));
    }
  }
  sweep.size_ = total;
  sweep.validate(threads);
  return sweep;
}

ScenarioConfig Sweep::point(std::size_t index) const {
  SGDSIM_ASSERT(index < size_, "a sweep point past the grid");
  nlohmann::json point = base_json_;
  std::vector<std::string> settings;
  const std::vector<nlohmann::json> values = point_settings(index);
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    set_dotted(point, axes_[a].key, values[a]);
    settings.push_back(fmt::format("{}={}", axes_[a].key, cell(values[a])));
  }
  // Named after the scenario file, not after the point's description below.
  if (!point.contains("name")) point["name"] = std::filesystem::path(source_).stem();
  const std::string name = fmt::format("{} (sweep point {})", source_, fmt::join(settings, ", "));
  ScenarioConfig config = read_scenario(jsonio::Document{name, point}, base_);
  // The point's name describes it; the file it came from is the sweep's.
  config.input_files.front() = source_;
  return config;
}

// Every point read once, on `threads` threads taking points in order; the input files and
// traces they name are collected, and the error of the first bad point (in point order) thrown.
void Sweep::validate(unsigned threads) {
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> first_bad{size_};
  std::mutex mutex;
  std::exception_ptr error;
  std::set<std::filesystem::path> inputs;
  std::set<std::filesystem::path> traces;
  auto worker = [&] {
    std::set<std::filesystem::path> my_inputs;
    std::set<std::filesystem::path> my_traces;
    for (std::size_t index = next.fetch_add(1); index < first_bad.load();
         index = next.fetch_add(1)) {
      try {
        const ScenarioConfig config = point(index);
        my_inputs.insert(config.input_files.begin(), config.input_files.end());
        my_traces.insert(config.trace_path);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (index < first_bad.load()) {
          first_bad.store(index);
          error = std::current_exception();
        }
      }
    }
    const std::lock_guard<std::mutex> lock(mutex);
    inputs.merge(my_inputs);
    traces.merge(my_traces);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1U, threads); ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  if (error) std::rethrow_exception(error);
  input_files_.assign(inputs.begin(), inputs.end());
  trace_paths_.assign(traces.begin(), traces.end());
}

std::vector<nlohmann::json> Sweep::point_settings(std::size_t index) const {
  std::vector<nlohmann::json> settings(axes_.size());
  for (std::size_t a = axes_.size(); a-- > 0;) {
    settings[a] = axes_[a].values[index % axes_[a].values.size()];
    index /= axes_[a].values.size();
  }
  return settings;
}

std::vector<std::string> Sweep::warnings() const {
  nlohmann::json document = base_json_;
  for (const SweepAxis& axis : axes_) document["sweep"][axis.key] = axis.values;
  return plausibility_warnings(document);
}

std::vector<std::string> Sweep::point_values(std::size_t index) const {
  std::vector<std::string> values;
  for (const nlohmann::json& setting : point_settings(index)) {
    values.push_back(csv_field(cell(setting)));
  }
  return values;
}

namespace {

SweepFailure failure_of(std::size_t index, const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const InputError& failure) {
    return {index, SweepFailure::Kind::input, failure.what()};
  } catch (const SimulationError& failure) {
    return {index, SweepFailure::Kind::simulation, failure.what()};
  } catch (const std::bad_alloc&) {
    return {index, SweepFailure::Kind::simulation, out_of_memory_message};
  } catch (const std::exception& failure) {
    return {index, SweepFailure::Kind::internal, failure.what()};
  } catch (...) {
    return {index, SweepFailure::Kind::internal, "an unknown error"};
  }
}

// A point's rows as JSON: its swept settings, then each outcome's summary.
nlohmann::ordered_json json_rows(const Sweep& sweep, std::size_t index,
                                 const ScenarioConfig& config, const ScenarioResult& result) {
  // nlohmann converts between its json and ordered_json only through text: once a point.
  std::vector<nlohmann::ordered_json> settings;
  for (const nlohmann::json& setting : sweep.point_settings(index)) {
    settings.push_back(nlohmann::ordered_json::parse(setting.dump()));
  }
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const PolicyOutcome& outcome : result.outcomes) {
    nlohmann::ordered_json entry;
    for (std::size_t a = 0; a < settings.size(); ++a) entry[sweep.axes()[a].key] = settings[a];
    entry["gpus"] = config.gpus;
    entry["bandwidth_gbps"] =  // as set, as `run` writes it; null: one node, no network
        config.network.stated ? nlohmann::ordered_json(config.network.line_rate.gbps())
                              : nlohmann::ordered_json();
    entry["model"] = result.workload.model;
    const nlohmann::ordered_json summary = policy_summary(result, outcome);
    for (const auto& [field, value] : summary.items()) entry[field] = value;
    rows.push_back(std::move(entry));
  }
  return rows;
}

}  // namespace

std::vector<SweepPointRows> run_sweep(const Sweep& sweep, const SweepRunOptions& options) {
  std::vector<std::size_t> points = options.points;
  if (points.empty()) {
    for (std::size_t i = 0; i < sweep.size(); ++i) points.push_back(i);
  }
  // Each trace is read once and shared read-only by all threads.
  std::map<std::filesystem::path, Workload> traces;
  for (const std::filesystem::path& path : sweep.trace_paths()) {
    traces.emplace(path, read_trace(path));
  }
  const bool keep_rows = !options.on_finished;
  std::vector<std::optional<SweepPointRows>> finished(keep_rows ? points.size() : 0);
  std::atomic<std::size_t> next{0};
  std::mutex report_mutex;  // callbacks, failures and the first error
  std::exception_ptr first_error;
  // The caller's monitor, unless the options name one: every worker reports to it.
  RunMonitor* const monitor = options.monitor != nullptr ? options.monitor : current_monitor();
  auto worker = [&] {
    const MonitorScope monitored(monitor);
    while (options.stop == nullptr || !options.stop->load()) {
      const std::size_t slot = next.fetch_add(1);
      if (slot >= points.size()) return;
      try {
        const std::size_t index = points[slot];
        const ScenarioConfig config = sweep.point(index);
        const ScenarioResult result = run_scenario(config, traces.at(config.trace_path));
        SweepPointRows rows{index, {}, nlohmann::ordered_json::array()};
        const std::vector<std::string> values = sweep.point_values(index);
        const std::string prefix = fmt::format("{}", fmt::join(values, ","));
        for (const std::string& row : csv_rows(result)) rows.csv.push_back(prefix + "," + row);
        if (options.json) rows.json = json_rows(sweep, index, config, result);
        if (keep_rows) {
          finished[slot] = std::move(rows);
        } else {
          const std::lock_guard<std::mutex> lock(report_mutex);
          options.on_finished(std::move(rows));
        }
        if (options.done != nullptr) options.done->fetch_add(1);
      } catch (const Interrupted&) {
        return;  // asked to stop: the point is neither finished nor failed
      } catch (...) {
        const std::lock_guard<std::mutex> lock(report_mutex);
        if (options.failures == nullptr) {
          if (!first_error) first_error = std::current_exception();
          return;
        }
        options.failures->push_back(failure_of(points[slot], std::current_exception()));
        if (options.on_failed) options.on_failed(options.failures->back());
        if (options.done != nullptr) options.done->fetch_add(1);
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::max(1U, options.threads); ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();
  if (first_error) std::rethrow_exception(first_error);
  if (options.failures != nullptr) {
    std::sort(options.failures->begin(), options.failures->end(),
              [](const SweepFailure& a, const SweepFailure& b) { return a.index < b.index; });
  }
  std::vector<SweepPointRows> rows;
  for (auto& point : finished) {
    if (point) rows.push_back(std::move(*point));
  }
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.index < b.index; });
  return rows;
}

std::string sweep_csv_tail(const Sweep& sweep, std::size_t finished,
                           const std::vector<SweepFailure>& failures) {
  std::string out;
  for (const SweepFailure& failure : failures) {
    std::string message = failure.message;
    std::replace(message.begin(), message.end(), '\n', ' ');
    out += fmt::format("# failed: point {} ({}): {}\n", failure.index,
                       fmt::join(sweep.point_values(failure.index), ","), message);
  }
  if (finished + failures.size() < sweep.size()) {
    out += fmt::format("# interrupted: {} of {} points finished\n", finished, sweep.size());
  }
  return out;
}

std::string sweep_csv_header(const Sweep& sweep) {
  std::vector<std::string> keys;
  for (const SweepAxis& axis : sweep.axes()) keys.push_back(axis.key);
  return fmt::format("{},{}\n", fmt::join(keys, ","), csv_header());
}

std::string sweep_csv(const Sweep& sweep, const std::vector<SweepPointRows>& rows,
                      const std::vector<SweepFailure>& failures) {
  std::string out = sweep_csv_header(sweep);
  for (const SweepPointRows& point : rows) {
    for (const std::string& row : point.csv) out += row + "\n";
  }
  return out + sweep_csv_tail(sweep, rows.size(), failures);
}

namespace {

// `text` (a value dumped with indent 1) as it reads nested `depth` levels deep in a document
// dumped with indent 1: every line after the first moved right by `depth` spaces.
std::string nested(const std::string& text, int depth) {
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == '\n') out.append(static_cast<std::size_t>(depth), ' ');
  }
  return out;
}

}  // namespace

std::string sweep_json_head(const Sweep& sweep) {
  nlohmann::ordered_json keys = nlohmann::ordered_json::array();
  for (const SweepAxis& axis : sweep.axes()) keys.push_back(axis.key);
  const nlohmann::ordered_json head{{"format", "sgdsim-sweep"},
                                    {"schema_version", sweep_schema_version},
                                    {"scenario_file", sweep.source()},
                                    {"swept", std::move(keys)},
                                    {"points", sweep.size()}};
  std::string text = head.dump(1);
  text.resize(text.size() - 2);  // the closing "\n}": the rows follow
  return text + ",\n \"rows\": [";
}

std::string sweep_json_rows(const SweepPointRows& rows, bool first) {
  std::string out;
  for (const auto& row : rows.json) {
    out += first ? "\n  " : ",\n  ";
    out += nested(row.dump(1), 2);
    first = false;
  }
  return out;
}

std::string sweep_json_tail(std::size_t finished, const std::vector<SweepFailure>& failures,
                            bool any_rows) {
  nlohmann::ordered_json failed = nlohmann::ordered_json::array();
  for (const SweepFailure& failure : failures) {
    failed.push_back({{"point", failure.index}, {"error", failure.message}});
  }
  return fmt::format("{}],\n \"finished_points\": {},\n \"failed_points\": {}\n}}\n",
                     any_rows ? "\n " : "", finished, nested(failed.dump(1), 1));
}

std::string sweep_json(const Sweep& sweep, const std::vector<SweepPointRows>& rows,
                       const std::vector<SweepFailure>& failures) {
  std::string out = sweep_json_head(sweep);
  bool any_rows = false;
  for (const SweepPointRows& point : rows) {
    out += sweep_json_rows(point, !any_rows);
    any_rows = any_rows || !point.json.empty();
  }
  return out + sweep_json_tail(rows.size(), failures, any_rows);
}

}  // namespace sgdsim
