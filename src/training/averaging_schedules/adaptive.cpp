// ADPSGD-style adaptive averaging (Jiang & Agrawal 2020): a budget of R rounds over a run of T
// iterations, dense early and sparse late. The paper's exact rule was not available to us;
// sgdsim offers a family instead: an optional warm-up averaging every iteration, then the
// remaining rounds placed so that the periods between them grow uniformly (equal periods),
// linearly (p_j ~ j) or geometrically (p_j ~ g^j), the last round always on iteration T; or
// explicit breakpoints [[from_iteration, period], ...].
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/averaging_schedule.hpp"

namespace sgdsim {

namespace {

constexpr std::int64_t longest_run = 10'000'000;

// Fraction of the span covered after j of n rounds when periods grow by `rule`.
double covered(const std::string& rule, double growth, int j, int n) {
  // Periods c, 2c, ..., nc: after j rounds j(j+1)/2 of n(n+1)/2.
  if (rule == "linear")
    return static_cast<double>(j) * (j + 1) / (static_cast<double>(n) * (n + 1));
  // Periods c, cg, ..., cg^(n-1): after j rounds (g^j - 1) / (g^n - 1).
  if (rule == "geometric")
    return std::expm1(j * std::log(growth)) / std::expm1(n * std::log(growth));
  return static_cast<double>(j) / n;  // uniform
}

std::vector<int> from_breakpoints(const std::vector<std::pair<std::int64_t, std::int64_t>>& list,
                                  int run) {
  std::vector<int> rounds;
  for (std::size_t b = 0; b < list.size(); ++b) {
    const auto from = static_cast<int>(list[b].first);
    const auto period = static_cast<int>(list[b].second);
    const int until = b + 1 < list.size() ? static_cast<int>(list[b + 1].first) - 1 : run;
    for (int at = from + period - 1; at <= std::min(until, run); at += period) rounds.push_back(at);
  }
  if (rounds.empty() || rounds.back() != run) rounds.push_back(run);
  return rounds;
}

std::vector<int> from_budget(const Settings& settings, int run) {
  const auto budget = static_cast<int>(settings.integer("budget"));
  const auto warmup = static_cast<int>(settings.integer("warmup_iterations"));
  SGDSIM_ASSERT(warmup <= budget && budget <= run && budget >= 1,
                "averaging budget outside [warm-up, run length]");
  std::vector<int> rounds;
  for (int at = 1; at <= warmup; ++at) rounds.push_back(at);
  const int remaining = budget - warmup;
  const int span = run - warmup;
  const std::string& rule = settings.text("rule");
  const double growth = settings.number("growth_factor");
  for (int j = 1; j <= remaining; ++j) {
    const int ideal =
        warmup + static_cast<int>(std::ceil(span * covered(rule, growth, j, remaining) - 1e-9));
    // Strictly after the previous round, and leaving one iteration for each round still to come.
    const int previous = rounds.empty() ? 0 : rounds.back();
    rounds.push_back(std::min(std::max(ideal, previous + 1), run - (remaining - j)));
  }
  return rounds;
}

std::optional<KeyProblem> check_breakpoints(const Settings& settings, int run) {
  for (const char* other : {"budget", "warmup_iterations", "rule", "growth_factor"}) {
    if (settings.given(other)) {
      return KeyProblem{other, "nothing (breakpoints place the rounds themselves)", "a value"};
    }
  }
  const auto& list = settings.pairs("breakpoints");
  for (std::size_t index = 0; index < list.size(); ++index) {
    const auto [from, period] = list[index];
    const std::string at = fmt::format("breakpoints[{}]", index);
    if (index == 0 && from != 1) {
      return KeyProblem{at + "[0]", "1 (the first breakpoint starts the run)",
                        std::to_string(from)};
    }
    const std::int64_t first = index == 0 ? 1 : list[index - 1].first + 1;
    if (index > 0 && (from < first || from > run)) {
      return KeyProblem{at + "[0]",
                        fmt::format("an iteration from {} to {} (run_iterations)", first, run),
                        std::to_string(from)};
    }
    if (period < 1 || period > longest_run) {
      return KeyProblem{at + "[1]", fmt::format("a period from 1 to {}", longest_run),
                        std::to_string(period)};
    }
  }
  return std::nullopt;
}

std::optional<KeyProblem> check(const Settings& settings, int run) {
  if (settings.has("breakpoints")) return check_breakpoints(settings, run);
  const std::string budget_range = fmt::format("an integer from 1 to {}", run);
  if (!settings.has("budget")) {
    return KeyProblem{"budget", budget_range, "nothing (give a budget or breakpoints)"};
  }
  const std::int64_t budget = settings.integer("budget");
  if (budget > run) return KeyProblem{"budget", budget_range, std::to_string(budget)};
  const std::int64_t warmup = settings.integer("warmup_iterations");
  if (warmup > budget) {
    return KeyProblem{"warmup_iterations", fmt::format("an integer from 0 to {}", budget),
                      std::to_string(warmup)};
  }
  const double growth = settings.number("growth_factor");
  if (settings.given("growth_factor") && settings.text("rule") != "geometric") {
    return KeyProblem{"growth_factor", "no growth_factor unless rule is \"geometric\"",
                      fmt::format("{:g}", growth)};
  }
  // Only the geometric rule uses the factor, so only it checks it (1.05^b overflows a double
  // from b = 14,548: other rules with such budgets would be refused for a key they ignore).
  // Beyond about 2^(31/R) the geometric placement cannot be represented in iterations.
  if (settings.text("rule") != "geometric") return std::nullopt;
  if (growth <= 1.0 || !std::isfinite(std::expm1(static_cast<double>(budget) * std::log(growth)))) {
    return KeyProblem{"growth_factor", "a number > 1 whose budget-th power is finite",
                      fmt::format("{:g}", growth)};
  }
  return std::nullopt;
}

}  // namespace

AveragingEntry adaptive_schedule() {
  AveragingEntry entry;
  entry.name = "adaptive";
  entry.description = "ADPSGD-style: a budget of rounds, dense early and sparse late";
  entry.keys = {
      KeySpec::integer("budget", "averaging rounds in the run, warm-up included", 1, longest_run)
          .optional(),
      KeySpec::integer("warmup_iterations", "first iterations averaged every iteration", 0,
                       longest_run, 0),
      KeySpec::choice("rule", "how the periods between rounds grow",
                      {"uniform", "linear", "geometric"}, "linear"),
      KeySpec::positive("growth_factor", "geometric rule: each period over the previous one", 1.05),
      KeySpec::integer_pairs("breakpoints", "[from_iteration, period] pairs"),
  };
  entry.check = check;
  entry.rounds = [](const Settings& settings, int run) {
    return settings.has("breakpoints") ? from_breakpoints(settings.pairs("breakpoints"), run)
                                       : from_budget(settings, run);
  };
  entry.label = [](const Settings& settings) {
    if (settings.has("breakpoints")) {
      return fmt::format("adaptive(breakpoints={})", settings.pairs("breakpoints").size());
    }
    const std::string& rule = settings.text("rule");
    return rule == "geometric"
               ? fmt::format("adaptive(budget={},geometric={:g},warmup={})",
                             settings.integer("budget"), settings.number("growth_factor"),
                             settings.integer("warmup_iterations"))
               : fmt::format("adaptive(budget={},{},warmup={})", settings.integer("budget"), rule,
                             settings.integer("warmup_iterations"));
  };
  return entry;
}

}  // namespace sgdsim
