// Placement of averaging rounds.
#include "sgdsim/training/averaging_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

const char* rule_name(GrowthRule rule) {
  switch (rule) {
    case GrowthRule::uniform: return "uniform";
    case GrowthRule::linear: return "linear";
    case GrowthRule::geometric: return "geometric";
  }
  return "?";
}

// Fraction of the span covered after j of n rounds when periods grow by `rule`.
double covered(GrowthRule rule, double growth, int j, int n) {
  switch (rule) {
    case GrowthRule::uniform: return static_cast<double>(j) / n;
    // Periods c, 2c, ..., nc: after j rounds j(j+1)/2 of n(n+1)/2.
    case GrowthRule::linear:
      return static_cast<double>(j) * (j + 1) / (static_cast<double>(n) * (n + 1));
    // Periods c, cg, ..., cg^(n-1): after j rounds (g^j - 1) / (g^n - 1).
    case GrowthRule::geometric:
      return std::expm1(j * std::log(growth)) / std::expm1(n * std::log(growth));
  }
  return 1.0;
}

std::vector<int> from_breakpoints(const std::vector<std::pair<int, int>>& breakpoints, int run) {
  std::vector<int> rounds;
  for (std::size_t b = 0; b < breakpoints.size(); ++b) {
    const auto [from, period] = breakpoints[b];
    const int until = b + 1 < breakpoints.size() ? breakpoints[b + 1].first - 1 : run;
    for (int at = from + period - 1; at <= std::min(until, run); at += period) rounds.push_back(at);
  }
  if (rounds.empty() || rounds.back() != run) rounds.push_back(run);
  return rounds;
}

}  // namespace

std::string averaging_label(const AveragingSpec& spec) {
  switch (spec.kind) {
    case AveragingKind::every_iteration: return "every_iteration";
    case AveragingKind::constant: return fmt::format("constant(period={})", spec.period);
    case AveragingKind::adaptive:
      if (!spec.breakpoints.empty())
        return fmt::format("adaptive(breakpoints={})", spec.breakpoints.size());
      return spec.rule == GrowthRule::geometric
                 ? fmt::format("adaptive(budget={},geometric={:g},warmup={})", spec.budget,
                               spec.growth_factor, spec.warmup_iterations)
                 : fmt::format("adaptive(budget={},{},warmup={})", spec.budget,
                               rule_name(spec.rule), spec.warmup_iterations);
  }
  return "?";
}

std::vector<int> averaging_iterations(const AveragingSpec& spec, int run_iterations) {
  SGDSIM_ASSERT(run_iterations >= 1, "a run of no iterations");
  std::vector<int> rounds;
  switch (spec.kind) {
    case AveragingKind::every_iteration:
      for (int at = 1; at <= run_iterations; ++at) rounds.push_back(at);
      return rounds;
    case AveragingKind::constant:
      SGDSIM_ASSERT(spec.period >= 1, "averaging period below 1");
      for (int at = spec.period; at <= run_iterations; at += spec.period) rounds.push_back(at);
      if (rounds.empty() || rounds.back() != run_iterations) rounds.push_back(run_iterations);
      return rounds;
    case AveragingKind::adaptive: break;
  }
  if (!spec.breakpoints.empty()) return from_breakpoints(spec.breakpoints, run_iterations);
  const int warmup = spec.warmup_iterations;
  SGDSIM_ASSERT(warmup <= spec.budget && spec.budget <= run_iterations && spec.budget >= 1,
                "averaging budget outside [warm-up, run length]");
  for (int at = 1; at <= warmup; ++at) rounds.push_back(at);
  const int remaining = spec.budget - warmup;
  const int span = run_iterations - warmup;
  for (int j = 1; j <= remaining; ++j) {
    const int ideal =
        warmup + static_cast<int>(
                     std::ceil(span * covered(spec.rule, spec.growth_factor, j, remaining) - 1e-9));
    // Strictly after the previous round, and leaving one iteration for each round still to come.
    const int previous = rounds.empty() ? 0 : rounds.back();
    rounds.push_back(std::min(std::max(ideal, previous + 1), run_iterations - (remaining - j)));
  }
  return rounds;
}

}  // namespace sgdsim
