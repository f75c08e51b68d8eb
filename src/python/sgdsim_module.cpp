// The Python module `sgdsim` (pybind11): run a scenario given as a dict and get back the same
// content the command line writes (`sgdsim run --json`, one dict per `sgdsim sweep --csv` row).
// Like the CLI's main this is an outer boundary, so it is the other place that catches sgdsim's
// errors: bad input becomes sgdsim.InputError (a ValueError) with the CLI's message.
#include <pybind11/pybind11.h>
#include <pybind11/stl/filesystem.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sgdsim/core/build_info.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/core/run_monitor.hpp"
#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/scenario/plausibility.hpp"
#include "sgdsim/scenario/report.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"
#include "sgdsim/scenario/sweep.hpp"

namespace py = pybind11;

namespace sgdsim::python {

namespace {

constexpr const char* default_source = "<dict>";
constexpr unsigned max_threads = 1024;  // the CLI's --threads range

std::string key_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : fmt::format("{}.{}", path, key);
}

std::string python_repr(py::handle value) {
  std::string text = py::repr(value).cast<std::string>();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// A Python value as JSON, checked as strictly as a JSON file: only what JSON can hold, nested
// no deeper than a file may be (which also stops a dict that contains itself). numpy scalars
// are accepted through __index__ and __float__, so loops over np.arange work.
nlohmann::json to_json(py::handle value, const std::string& source, const std::string& path,
                       int depth = 0) {
  const std::string where = path.empty() ? "(top level)" : path;
  if (depth > jsonio::max_json_depth) {
    throw InputError(
        fmt::format("{}: nested deeper than {} levels at {} (does a dict or list "
                    "contain itself?)",
                    source, jsonio::max_json_depth, where));
  }
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (PyIndex_Check(value.ptr()) != 0) {
    const py::int_ integer = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
    if (!integer) throw py::error_already_set();
    int overflow = 0;
    const long long number = PyLong_AsLongLongAndOverflow(integer.ptr(), &overflow);
    if (overflow == 0) return static_cast<std::int64_t>(number);
    if (overflow > 0) {
      const unsigned long long big = PyLong_AsUnsignedLongLong(integer.ptr());
      if (!PyErr_Occurred()) return static_cast<std::uint64_t>(big);
      PyErr_Clear();
    }
    throw value_error(source, where, "an integer that fits in 64 bits", python_repr(value));
  }
  if (py::isinstance<py::float_>(value) || py::hasattr(value, "__float__")) {
    const double number = py::float_(py::reinterpret_borrow<py::object>(value));
    if (!std::isfinite(number)) {
      throw value_error(source, where, "a finite number", python_repr(value));
    }
    return number;
  }
  if (py::isinstance<py::dict>(value)) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [key, item] : py::reinterpret_borrow<py::dict>(value)) {
      if (!py::isinstance<py::str>(key)) {
        throw value_error(source, where, "an object with text keys",
                          fmt::format("the key {}", python_repr(key)));
      }
      const std::string name = key.cast<std::string>();
      object[name] = to_json(item, source, key_path(path, name), depth + 1);
    }
    return object;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    nlohmann::json array = nlohmann::json::array();
    std::size_t index = 0;
    for (const py::handle item : value) {
      array.push_back(to_json(item, source, jsonio::element_path(path, index++), depth + 1));
    }
    return array;
  }
  throw value_error(
      source, where, "a JSON value (dict, list, str, int, float, bool or None)",
      fmt::format("a Python {}", py::str(value.get_type().attr("__name__")).cast<std::string>()));
}

// JSON as Python objects; a non-finite number becomes None, as it does in the CLI's JSON text.
py::object to_python(const nlohmann::ordered_json& value) {
  using Type = nlohmann::ordered_json::value_t;
  switch (value.type()) {
    case Type::object: {
      py::dict object;
      for (const auto& [key, item] : value.items()) object[py::str(key)] = to_python(item);
      return object;
    }
    case Type::array: {
      py::list array;
      for (const auto& item : value) array.append(to_python(item));
      return array;
    }
    case Type::string: return py::str(value.get_ref<const std::string&>());
    case Type::boolean: return py::bool_(value.get<bool>());
    case Type::number_integer: return py::int_(value.get<std::int64_t>());
    case Type::number_unsigned: return py::int_(value.get<std::uint64_t>());
    case Type::number_float: {
      const double number = value.get<double>();
      return std::isfinite(number) ? py::object(py::float_(number)) : py::object(py::none());
    }
    case Type::null: return py::none();
    default: break;
  }
  SGDSIM_ASSERT(false, "result JSON holds only plain JSON values");
  return py::none();
}

// sgdsim's own CSV rows, split as RFC 4180 reads them (report.hpp).
std::vector<CsvField> split_own_csv_line(std::string_view line) {
  std::optional<std::vector<CsvField>> fields = split_csv_line(line);
  SGDSIM_ASSERT(fields.has_value(), "sgdsim writes no CSV line with a quote left open");
  return std::move(*fields);
}

// A CSV cell as pandas.read_csv would type it: quoted text stays text, whole integers and
// numbers (including nan and inf) become numbers, an empty cell is NaN (a value that does not
// apply), anything else is text.
py::object csv_cell(const CsvField& field) {
  if (!field.quoted && field.text.empty()) return py::float_(std::nan(""));
  const char* begin = field.text.data();
  const char* end = begin + field.text.size();
  if (!field.quoted && !field.text.empty()) {
    std::int64_t integer = 0;
    if (const auto [at, error] = std::from_chars(begin, end, integer);
        error == std::errc() && at == end) {
      return py::int_(integer);
    }
    double number = 0.0;
    if (const auto [at, error] = std::from_chars(begin, end, number);
        error == std::errc() && at == end) {
      return py::float_(number);
    }
  }
  return py::str(field.text);
}

// The sweep CSV's rows as dicts: the swept keys (with their values as given in the scenario),
// then csv_header()'s columns with the cells the CLI writes.
py::list sweep_rows(const Sweep& sweep, const std::vector<SweepPointRows>& points) {
  std::vector<std::string> columns;
  for (const CsvField& column : split_own_csv_line(csv_header())) columns.push_back(column.text);
  py::list rows;
  for (const SweepPointRows& point : points) {
    // run_sweep writes each row as the point's values joined by commas, a comma, then the row.
    const std::string prefix = fmt::format("{},", fmt::join(sweep.point_values(point.index), ","));
    const std::vector<nlohmann::json> settings = sweep.point_settings(point.index);
    for (const std::string& line : point.csv) {
      SGDSIM_ASSERT(line.starts_with(prefix), "a sweep row starts with its point's values");
      const std::vector<CsvField> cells =
          split_own_csv_line(std::string_view(line).substr(prefix.size()));
      if (cells.size() != columns.size()) {
        throw InputError(fmt::format(
            "{}: sweep point {}: its CSV row splits into {} cells, not {}; rename the scenario "
            "or the trace's model without commas or quotes: {}",
            sweep.source(), point.index, cells.size(), columns.size(), line));
      }
      py::dict row;
      for (std::size_t a = 0; a < settings.size(); ++a) {
        row[py::str(sweep.axes()[a].key)] =
            to_python(nlohmann::ordered_json::parse(settings[a].dump()));
      }
      for (std::size_t c = 0; c < columns.size(); ++c)
        row[py::str(columns[c])] = csv_cell(cells[c]);
      rows.append(std::move(row));
    }
  }
  return rows;
}

jsonio::Document document_of(const py::handle scenario, const std::string& source) {
  return jsonio::Document{source, to_json(scenario, source, "")};
}

// How often a waiting call lets Python handle signals (Ctrl-C raises KeyboardInterrupt).
constexpr std::chrono::milliseconds signal_poll{100};

// Runs `work` on a helper thread while this one, without the GIL, wakes every signal_poll to let
// Python handle signals: on Ctrl-C the run is stopped through `monitor` (its engine checks every
// few hundred events) and KeyboardInterrupt raised, within a second.
template <typename Work>
auto run_interruptible(const Work& work, RunMonitor& monitor) {
  bool interrupted = false;
  std::future<decltype(work())> running;
  {
    const py::gil_scoped_release unlocked;
    running = std::async(std::launch::async, [&] {
      const MonitorScope monitored(&monitor);
      return work();
    });
    while (running.wait_for(signal_poll) != std::future_status::ready) {
      const py::gil_scoped_acquire locked;
      if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        monitor.stop.store(true);
        break;
      }
    }
    running.wait();
  }
  if (interrupted) {
    try {
      running.get();  // Interrupted, or a result that came just before the stop: dropped
    } catch (...) {
    }
    throw py::error_already_set();
  }
  return running.get();
}

template <typename Work>
auto run_interruptible(const Work& work) {
  RunMonitor monitor;
  return run_interruptible(work, monitor);
}

// Reads (without the GIL), warns like the CLI's note when the scenario also has a sweep, runs.
template <typename Read>
py::dict run_read(const Read& read) {
  std::optional<ScenarioConfig> config;
  {
    const py::gil_scoped_release unlocked;
    config = read();
  }
  if (config->has_sweep &&
      PyErr_WarnEx(PyExc_UserWarning,
                   "this scenario has a sweep; sgdsim.run runs its base point and sgdsim.sweep "
                   "runs the grid",
                   1) != 0) {
    throw py::error_already_set();
  }
  for (const std::string& warning : plausibility_warnings(*config)) {
    if (PyErr_WarnEx(PyExc_UserWarning, (config->source + ": " + warning).c_str(), 1) != 0) {
      throw py::error_already_set();
    }
  }
  const nlohmann::ordered_json result =
      run_interruptible([&] { return result_json(run_scenario(*config)); });
  return to_python(result).cast<py::dict>();
}

py::dict run(const py::object& scenario, const std::filesystem::path& base_dir,
             const std::string& source) {
  const jsonio::Document document = document_of(scenario, source);
  return run_read([&] { return read_scenario(document, base_dir); });
}

py::dict run_file(const std::filesystem::path& path) {
  return run_read([&] { return read_scenario(path); });
}

unsigned thread_count(int threads) {
  if (threads < 0 || threads > static_cast<int>(max_threads)) {
    throw InputError(fmt::format(
        "threads: expected 0 (all cores) or a count from 1 to {}, found {}", max_threads, threads));
  }
  return threads == 0 ? std::max(1U, std::thread::hardware_concurrency())
                      : static_cast<unsigned>(threads);
}

// Warns of implausible values like the CLI, then runs the grid on helper threads
// (run_interruptible): Ctrl-C stops it, the points in flight included, and raises
// KeyboardInterrupt.
py::list run_sweep_interruptible(const Sweep& sweep, unsigned threads) {
  for (const std::string& warning : sweep.warnings()) {
    if (PyErr_WarnEx(PyExc_UserWarning, (sweep.source() + ": " + warning).c_str(), 1) != 0) {
      throw py::error_already_set();
    }
  }
  RunMonitor monitor;
  SweepRunOptions options;
  options.threads = threads;
  options.stop = &monitor.stop;
  options.monitor = &monitor;
  const std::vector<SweepPointRows> points =
      run_interruptible([&] { return run_sweep(sweep, options); }, monitor);
  return sweep_rows(sweep, points);
}

py::list sweep(const py::object& scenario, const std::filesystem::path& base_dir, int threads,
               const std::string& source) {
  const unsigned count = thread_count(threads);
  const jsonio::Document document = document_of(scenario, source);
  std::optional<Sweep> grid;
  {
    const py::gil_scoped_release unlocked;
    grid = Sweep::read(document, base_dir, count);
  }
  return run_sweep_interruptible(*grid, count);
}

py::list sweep_file(const std::filesystem::path& path, int threads) {
  const unsigned count = thread_count(threads);
  std::optional<Sweep> grid;
  {
    const py::gil_scoped_release unlocked;
    grid = Sweep::read(path, count);
  }
  return run_sweep_interruptible(*grid, count);
}

}  // namespace

}  // namespace sgdsim::python

PYBIND11_MODULE(sgdsim, module) {
  namespace api = sgdsim::python;
  using namespace pybind11::literals;
  module.doc() =
      "sgdsim: trace-driven simulator of communication in distributed synchronous SGD.\n\n"
      "run(scenario) returns what `sgdsim run --json` writes; sweep(scenario) returns one dict "
      "per row of `sgdsim sweep --csv`. Scenarios are dicts shaped like scenario files (see "
      "scenarios/README.md); relative trace paths are resolved from base_dir.";
  module.attr("__version__") = std::string(sgdsim::sgdsim_version());
  module.attr("__commit__") = std::string(sgdsim::sgdsim_commit());
  module.attr("result_schema_version") = sgdsim::result_schema_version;
  module.attr("sweep_schema_version") = sgdsim::sweep_schema_version;
  py::register_exception<sgdsim::InputError>(module, "InputError", PyExc_ValueError);
  py::register_exception<sgdsim::SimulationError>(module, "SimulationError", PyExc_RuntimeError);

  module.def("run", &api::run, "scenario"_a, "base_dir"_a = std::filesystem::path("."),
             "source"_a = api::default_source,
             "Run a scenario dict once per merge policy (and compressor).\n\nReturns the result "
             "as `sgdsim run --json` writes it. A scenario with a \"sweep\" runs its base point.\n"
             "base_dir: folder that relative trace paths are resolved from (a scenario file's "
             "folder).\nsource: the name error messages and the result's scenario_file use.\n"
             "Raises InputError (a ValueError) on bad input, SimulationError (a RuntimeError) "
             "when the simulation cannot finish.");
  module.def("run_file", &api::run_file, "path"_a,
             "Run a scenario file; the same as `sgdsim run PATH --json`.");
  module.def(
      "sweep", &api::sweep, "scenario"_a, "base_dir"_a = std::filesystem::path("."),
      "threads"_a = 1, "source"_a = api::default_source,
      "Run a scenario dict's \"sweep\" grid on `threads` threads (0: all cores).\n\n"
      "Returns one dict per row of `sgdsim sweep --csv`, in the same order and with the same "
      "columns, so pandas.DataFrame(rows) is that CSV. Ctrl-C stops it "
      "(KeyboardInterrupt).");
  module.def("sweep_file", &api::sweep_file, "path"_a, "threads"_a = 1,
             "Run a scenario file's sweep grid; the rows of `sgdsim sweep PATH --csv`.");
}
