// Measured convergence curves: the CSV a user's training run logged (measured_curve.hpp).
#include "sgdsim/scenario/measured_curve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"

namespace sgdsim {

namespace {

// The cells of one CSV line (RFC 4180: quoted cells may hold commas, "" is a quote), or nullopt
// when a quote is left open.
std::optional<std::vector<std::string>> csv_cells(std::string_view line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return cells;
}

// A decimal number as a CSV of measurements writes one: from_chars accepts neither hex ("0x14",
// which stod reads as 20) nor a leading "+" or spaces.
std::optional<double> decimal(std::string_view text) {
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

}  // namespace

ConvergenceOutcome parse_measured_curve(std::string_view text, const std::string& file,
                                        const std::string& label, const ConvergenceSpec& spec,
                                        std::optional<int> last_iteration) {
  std::istringstream in{std::string(text)};
  std::string line;
  std::getline(in, line);
  if (line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::string metric = spec.target_accuracy ? "accuracy" : "loss";
  const auto shown = [](const std::string& text) {
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
  };
  const std::optional<std::vector<std::string>> header = csv_cells(line);
  const auto column = [&](const std::string& name) -> std::optional<std::size_t> {
    if (!header) return std::nullopt;
    const auto at = std::find(header->begin(), header->end(), name);
    return at == header->end()
               ? std::nullopt
               : std::optional<std::size_t>(static_cast<std::size_t>(at - header->begin()));
  };
  const auto iteration_column = column("iteration");
  const auto metric_column = column(metric);
  if (!iteration_column || !metric_column) {
    throw InputError(fmt::format(
        "{}:1: expected a header with the columns iteration and {} (the target's), found \"{}\"",
        file, metric, shown(line)));
  }
  const auto train_column = column("train_loss");
  ConvergenceOutcome outcome;
  outcome.label = label;
  int previous = 0;
  for (int number = 2; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::optional<std::vector<std::string>> cells = csv_cells(line);
    if (!cells || cells->size() != header->size()) {
      throw InputError(fmt::format(
          "{}:{}: expected {} cells, as the header has, found {}", file, number, header->size(),
          cells ? fmt::to_string(cells->size()) : std::string("a quote left open")));
    }
    const auto cell = [&](std::optional<std::size_t> at) -> std::optional<double> {
      if (!at || (*cells)[*at].empty()) return std::nullopt;
      if (const auto value = decimal((*cells)[*at])) return value;
      throw InputError(fmt::format("{}:{}: column {}: expected a decimal number, found \"{}\"",
                                   file, number, (*header)[*at], shown((*cells)[*at])));
    };
    const std::optional<double> iteration = cell(iteration_column);
    if (!iteration || *iteration != std::floor(*iteration) || *iteration <= previous ||
        *iteration > max_curve_iteration) {
      throw InputError(fmt::format("{}:{}: expected an iteration greater than {}, found \"{}\"",
                                   file, number, previous, shown((*cells)[*iteration_column])));
    }
    previous = static_cast<int>(*iteration);
    if (last_iteration && previous > *last_iteration) {
      throw InputError(fmt::format(
          "{}:{}: iteration {} is past the {} iterations of communication.averaging."
          "run_iterations, over which the schedule's averaging rounds are placed; lengthen the "
          "run or end the curve there",
          file, number, previous, *last_iteration));
    }
    const std::optional<double> value = cell(metric_column);
    if (value && (*value < 0.0 || (spec.target_accuracy && *value > 1.0))) {
      throw InputError(fmt::format("{}:{}: {} of {}, expected {}", file, number, metric, *value,
                                   spec.target_accuracy ? "0 to 1" : "0 or more"));
    }
    ConvergencePoint point;
    point.iteration = previous;
    point.loss = cell(train_column);
    if (spec.target_accuracy) {
      point.test_accuracy = value;
    } else {
      point.test_loss = value;
    }
    outcome.curve.push_back(point);
    if (value && !outcome.iterations_to_target &&
        (spec.target_accuracy ? *value >= *spec.target_accuracy : *value <= *spec.target_loss)) {
      outcome.iterations_to_target = previous;
    }
    if (value) (spec.target_accuracy ? outcome.final_accuracy : outcome.final_loss) = *value;
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
