// Measured convergence curves: the CSV a user's training run logged (measured_curve.hpp).
#include "sgdsim/scenario/measured_curve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"
#include "sgdsim/scenario/report.hpp"

namespace sgdsim {

namespace {

// A line's cells as text (report.hpp's RFC 4180 reader), or nullopt for a quote left open.
std::optional<std::vector<std::string>> csv_cells(std::string_view line) {
  std::optional<std::vector<CsvField>> fields = split_csv_line(line);
  if (!fields) return std::nullopt;
  std::vector<std::string> cells;
  for (CsvField& field : *fields) cells.push_back(std::move(field.text));
  return cells;
}

// A decimal number as a CSV of measurements writes one: from_chars accepts neither hex ("0x14",
// which stod reads as 20) nor a leading "+".
std::optional<double> decimal(std::string_view text) {
  // Spaces around a number ("10, 0.5", as hand-written files have them) are not part of it.
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double value = 0.0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// The latest iteration a curve may reach.
constexpr double max_curve_iteration = 1e9;

std::string shown(const std::string& text) {
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

// The header: its cells, and where the columns sgdsim reads are.
struct Columns {
  std::vector<std::string> names;
  std::size_t iteration = 0;
  std::size_t metric = 0;
  std::optional<std::size_t> train_loss;
};

Columns read_header(std::string line, const std::string& file, const std::string& metric) {
  if (line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // Excel's "CSV UTF-8"
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::optional<std::vector<std::string>> cells = csv_cells(line);
  const auto column = [&](const std::string& name) -> std::optional<std::size_t> {
    if (!cells) return std::nullopt;
    const auto at = std::find(cells->begin(), cells->end(), name);
    if (at == cells->end()) return std::nullopt;
    return static_cast<std::size_t>(at - cells->begin());
  };
  const auto iteration = column("iteration");
  const auto value = column(metric);
  if (!iteration || !value) {
    throw InputError(fmt::format(
        "{}:1: expected a header with the columns iteration and {} (the target's), found \"{}\"",
        file, metric, shown(line)));
  }
  return Columns{*cells, *iteration, *value, column("train_loss")};
}

// One row's cells: as many as the header has.
std::vector<std::string> read_row(const std::string& line, const Columns& columns,
                                  const std::string& file, int number) {
  std::optional<std::vector<std::string>> cells = csv_cells(line);
  if (!cells || cells->size() != columns.names.size()) {
    throw InputError(fmt::format(
        "{}:{}: expected {} cells, as the header has, found {}", file, number, columns.names.size(),
        cells ? fmt::to_string(cells->size()) : std::string("a quote left open")));
  }
  return std::move(*cells);
}

}  // namespace

ConvergenceOutcome parse_measured_curve(std::string_view text, const std::string& file,
                                        const std::string& label, const ConvergenceSpec& spec,
                                        std::optional<int> last_iteration) {
  std::istringstream in{std::string(text)};
  std::string line;
  std::getline(in, line);
  const std::string metric = spec.target_accuracy ? "accuracy" : "loss";
  const Columns columns = read_header(line, file, metric);
  ConvergenceOutcome outcome;
  outcome.label = label;
  int previous = 0;
  for (int number = 2; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> cells = read_row(line, columns, file, number);
    const auto cell = [&](std::optional<std::size_t> at) -> std::optional<double> {
      if (!at || cells[*at].empty()) return std::nullopt;
      if (const auto value = decimal(cells[*at])) return value;
      throw InputError(fmt::format("{}:{}: column {}: expected a decimal number, found \"{}\"",
                                   file, number, columns.names[*at], shown(cells[*at])));
    };
    // The first row may be iteration 0: the evaluation before any training.
    const bool first = outcome.curve.empty();
    const std::optional<double> iteration = cell(columns.iteration);
    if (!iteration || *iteration != std::floor(*iteration) ||
        (first ? *iteration < 0.0 : *iteration <= previous) || *iteration > max_curve_iteration) {
      throw InputError(fmt::format(
          "{}:{}: expected an iteration {}, found \"{}\"", file, number,
          first ? std::string("of 0 or more") : fmt::format("greater than {}", previous),
          shown(cells[columns.iteration])));
    }
    previous = static_cast<int>(*iteration);
    if (last_iteration && previous > *last_iteration) {
      throw InputError(fmt::format(
          "{}:{}: iteration {} is past the {} iterations of communication.averaging."
          "run_iterations, over which the schedule's averaging rounds are placed; lengthen the "
          "run or end the curve there",
          file, number, previous, *last_iteration));
    }
    const std::optional<double> value = cell(columns.metric);
    if (value && (*value < 0.0 || (spec.target_accuracy && *value > 1.0))) {
      throw InputError(fmt::format("{}:{}: {} of {}, expected {}", file, number, metric, *value,
                                   spec.target_accuracy ? "0 to 1" : "0 or more"));
    }
    ConvergencePoint& point = outcome.curve.emplace_back();
    point.iteration = previous;
    point.loss = cell(columns.train_loss);
    (spec.target_accuracy ? point.test_accuracy : point.test_loss) = value;
    if (!value) continue;
    const bool reached =
        spec.target_accuracy ? *value >= *spec.target_accuracy : *value <= *spec.target_loss;
    if (reached && !outcome.iterations_to_target) outcome.iterations_to_target = previous;
    (spec.target_accuracy ? outcome.final_accuracy : outcome.final_loss) = *value;
  }
  if (outcome.curve.empty()) {
    throw InputError(fmt::format("{}: no rows after the header", file));
  }
  return outcome;
}

ConvergenceOutcome read_measured_curve(const std::string& label, const std::filesystem::path& path,
                                       const ConvergenceSpec& spec,
                                       std::optional<int> last_iteration) {
  return parse_measured_curve(read_input_file(path, "measured curve", max_curve_bytes),
                              path.string(), label, spec, last_iteration);
}

}  // namespace sgdsim
