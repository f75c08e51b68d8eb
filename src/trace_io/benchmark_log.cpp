// OSU and nccl-tests output parsing.
#include "sgdsim/trace_io/benchmark_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"
#include "sgdsim/core/units.hpp"
#include "sgdsim/topology/topology.hpp"

namespace sgdsim {

namespace {

std::vector<std::string> tokens(std::string line) {
  for (char& c : line) {
    if (c == ',') c = ' ';
  }
  std::istringstream stream(line);
  std::vector<std::string> out;
  for (std::string token; stream >> token;) out.push_back(token);
  return out;
}

bool number(const std::string& text, double& value) {
  try {
    std::size_t used = 0;
    value = std::stod(text, &used);
    return used == text.size() && std::isfinite(value);  // "nan" and "inf" are not measurements
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

BenchmarkLog read_benchmark_log(const std::filesystem::path& path) {
  std::istringstream file(read_input_file(path, "file"));
  BenchmarkLog log;
  int ranks = 0;
  std::map<std::string, int> ranks_on;  // host -> its ranks
  std::string line;
  int line_number = 0;
  int previous_line = 0;
  while (std::getline(file, line)) {
    ++line_number;
    if (line.find("nccl-tests") != std::string::npos || line.find("#  Rank") != std::string::npos) {
      log.format = "nccl-tests";
    }
    if (line.find("Rank") != std::string::npos && line.find("device") != std::string::npos) {
      ++ranks;
      const std::vector<std::string> words = tokens(line);
      const auto on = std::find(words.begin(), words.end(), "on");
      if (on != words.end() && on + 1 != words.end()) ++ranks_on[*(on + 1)];
    }
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = tokens(line);
    double size = 0;
    double time = 0;
    double first = 0;
    if (fields.size() >= 6 && number(fields[0], size) && !fields[2].empty() &&
        std::isalpha(static_cast<unsigned char>(fields[2][0])) != 0 && number(fields[5], time)) {
      log.format = "nccl-tests";  // size count type redop root time ...
    } else if (fields.size() == 3 && number(fields[0], first) && number(fields[1], size) &&
               number(fields[2], time)) {
      if (log.format.empty()) log.format = "osu";  // nodes,size latency (B-Caffe)
      // Cast only a count in range (a fuzzed 6.5e52 was undefined behaviour).
      if (!whole_in(first, 1.0, static_cast<double>(max_cluster_gpus))) {
        throw InputError(
            fmt::format("{}:{}: expected a GPU count from 1 to {} in the first column, found {}",
                        path.string(), line_number, max_cluster_gpus, fields[0]));
      }
      log.gpus = static_cast<int>(first);
    } else if (fields.size() == 2 && number(fields[0], size) && number(fields[1], time)) {
      if (log.format.empty()) log.format = "osu";
    } else {
      continue;  // a line of some other kind
    }
    // A benchmark's sizes and times are far inside these (2^50 bytes, 10^12 us = 11.6 days);
    // beyond them the fit's sums of squares overflow into NaN.
    if (!(size >= 0.0 && size <= 0x1p50 && time > 0.0 && time <= 1e12)) {
      throw InputError(fmt::format(
          "{}:{}: expected a message size from 0 to 2^50 bytes and a time above 0 and up to "
          "10^12 us, found {} bytes and {} us",
          path.string(), line_number, size, time));
    }
    if (!log.points.empty() && size <= log.points.back().bytes) {
      throw InputError(fmt::format(
          "{}:{}: expected message sizes that increase, found {:.0f} bytes after {:.0f} (line {}); "
          "give one benchmark run per file",
          path.string(), line_number, size, log.points.back().bytes, previous_line));
    }
    log.points.push_back({size, time});
    previous_line = line_number;
  }
  if (log.points.empty()) {
    throw InputError(fmt::format(
        "{}: no measurements found (expected OSU osu_allreduce or nccl-tests all_reduce_perf "
        "output)",
        path.string()));
  }
  if (log.format == "nccl-tests" && ranks > 0) {
    log.gpus = ranks;
    const bool even =
        !ranks_on.empty() && std::all_of(ranks_on.begin(), ranks_on.end(), [&](const auto& host) {
          return host.second == ranks_on.begin()->second;
        });
    int listed = 0;
    for (const auto& [host, count] : ranks_on) listed += count;
    if (even && listed == ranks) log.gpus_per_node = ranks_on.begin()->second;
  }
  return log;
}

Calibration calibrate(const BenchmarkLog& log, const std::string& source, double min_bytes,
                      double max_bytes, std::optional<int> gpus, bool relative) {
  Calibration result;
  if (gpus && log.gpus && *gpus != *log.gpus) {
    throw InputError(fmt::format(
        "{}: --gpus {} disagrees with the {} GPUs the log lists; leave --gpus out for a log that "
        "says how many took part",
        source, *gpus, *log.gpus));
  }
  const std::optional<int> count = gpus ? gpus : log.gpus;
  if (!count || *count < 2) {
    throw InputError(fmt::format(
        "{}: the log does not say how many GPUs took part; give it with --gpus N (N >= 2)",
        source));
  }
  result.gpus = *count;
  std::vector<SizeTimePoint> used;
  for (const SizeTimePoint& point : log.points) {
    if (point.bytes >= min_bytes && point.bytes <= max_bytes) used.push_back(point);
  }
  if (used.size() < 3) {
    throw InputError(fmt::format(
        "{}: expected at least 3 measurements between {:.0f} and {:.0f} bytes, found {}; widen "
        "the range with --min-bytes/--max-bytes",
        source, min_bytes, max_bytes, used.size()));
  }
  result.points = used.size();
  result.fit = relative ? fit_linear_relative(used) : fit_linear(used);
  if (!std::isfinite(result.fit.r_squared) || result.fit.intercept_us <= 0.0 ||
      result.fit.slope_us_per_byte <= 0.0) {
    throw InputError(fmt::format(
        "{}: the fit over {:.0f}..{:.0f} bytes gives a = {:.3f} us, b = {:.3e} us/byte; a network "
        "needs both positive: choose a size range where time grows with size",
        source, min_bytes, max_bytes, result.fit.intercept_us, result.fit.slope_us_per_byte));
  }
  for (const SizeTimePoint& point : log.points) {
    result.checks.push_back({point.bytes, point.microseconds,
                             result.fit.intercept_us + result.fit.slope_us_per_byte * point.bytes,
                             point.bytes >= min_bytes && point.bytes <= max_bytes});
  }
  return result;
}

}  // namespace sgdsim
