// Tests for training/averaging_schedule.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/training/averaging_schedule.hpp"

#include <string>

using namespace sgdsim;

namespace {

AveragingSpec adaptive(int budget, const std::string& rule, int warmup = 0,
                       double growth_factor = 1.05) {
  Settings settings;
  settings.set("budget", std::int64_t{budget});
  settings.set("rule", rule);
  settings.set("warmup_iterations", std::int64_t{warmup});
  if (rule == "geometric") settings.set("growth_factor", growth_factor);
  return make_schedule("adaptive", settings);
}

}  // namespace

TEST_CASE("every_iteration averages after every iteration") {
  CHECK(averaging_iterations(AveragingSpec{}, 4) == std::vector<int>{1, 2, 3, 4});
}

TEST_CASE("a constant period averages every p-th iteration and the last one") {
  Settings settings;
  settings.set("period", std::int64_t{4});
  const AveragingSpec spec = make_schedule("constant", settings);
  CHECK(averaging_iterations(spec, 12) == std::vector<int>{4, 8, 12});
  CHECK(averaging_iterations(spec, 10) == std::vector<int>{4, 8, 10});
}

TEST_CASE("adaptive schedules spend exactly their budget, ending on the last iteration") {
  for (const std::string rule : {"uniform", "linear", "geometric"}) {
    for (int budget : {1, 7, 100, 1000}) {
      const std::vector<int> rounds =
          averaging_iterations(adaptive(budget, rule, budget / 10), 1000);
      CHECK(rounds.size() == static_cast<std::size_t>(budget));
      CHECK(rounds.back() == 1000);
      for (std::size_t i = 1; i < rounds.size(); ++i) REQUIRE(rounds[i] > rounds[i - 1]);
    }
  }
}

TEST_CASE("linear growth: periods c, 2c, 3c, 4c") {
  // 4 rounds over 100 iterations: covered fractions j(j+1)/20 = 0.1, 0.3, 0.6, 1.0.
  CHECK(averaging_iterations(adaptive(4, "linear"), 100) == std::vector<int>{10, 30, 60, 100});
}

TEST_CASE("geometric growth: periods c, cg, cg^2") {
  const AveragingSpec spec = adaptive(3, "geometric", 0, 2.0);
  // Fractions (2^j - 1) / 7 = 1/7, 3/7, 1 of 70 iterations: 10, 30, 70.
  CHECK(averaging_iterations(spec, 70) == std::vector<int>{10, 30, 70});
}

TEST_CASE("a warm-up averages every iteration before the rule takes over") {
  // Warm-up 3, then 2 uniform rounds over the remaining 7 iterations: 3 + ceil(3.5) = 7, 10.
  CHECK(averaging_iterations(adaptive(5, "uniform", 3), 10) == std::vector<int>{1, 2, 3, 7, 10});
}

TEST_CASE("a budget as large as the run averages every iteration") {
  CHECK(averaging_iterations(adaptive(5, "geometric"), 5) == std::vector<int>{1, 2, 3, 4, 5});
}

TEST_CASE("a long budget is accepted under every rule but an unrepresentable geometric one") {
  // 20,000 rounds over 100,000 iterations. The geometric default g = 1.05 has
  // 1.05^20000 = e^(20000 ln 1.05) = e^975.8, beyond a double's e^709.8: only the geometric rule,
  // which uses g, may refuse it; uniform and linear ignore it.
  const AveragingEntry& entry = averaging_registry().at("adaptive");
  for (const std::string rule : {"uniform", "linear"}) {
    CAPTURE(rule);
    CHECK_FALSE(entry.check(adaptive(20000, rule).settings, 100000).has_value());
  }
  const std::optional<KeyProblem> problem =
      entry.check(adaptive(20000, "geometric").settings, 100000);
  REQUIRE(problem.has_value());
  CHECK(problem->key == "growth_factor");
}

TEST_CASE("breakpoints switch the period at the given iterations") {
  Settings settings;
  settings.set("breakpoints",
               std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {4, 2}, {8, 5}});
  const AveragingSpec spec = make_schedule("adaptive", settings);
  // 1,2,3 with period 1; from 4 period 2: 5, 7; from 8 period 5: 12, then the last (15).
  CHECK(averaging_iterations(spec, 15) == std::vector<int>{1, 2, 3, 5, 7, 12, 15});
}
