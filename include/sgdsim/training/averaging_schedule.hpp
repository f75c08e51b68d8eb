// When workers average their models. every_iteration is ordinary synchronous SGD (gradients are
// allreduced every iteration, overlapped with backward by the merge policy). The others are
// periodic model averaging (local SGD): workers step alone and average all parameters after the
// update of selected iterations, not overlapped with compute.
//   constant  CPSGD: every p-th iteration (and the last one).
//   adaptive  ADPSGD-style (Jiang & Agrawal 2020): a budget of R rounds over a run of T
//             iterations, dense early and sparse late. The paper's exact rule was not available
//             to us; sgdsim offers a family instead: an optional warm-up averaging every
//             iteration, then the remaining rounds placed so that the periods between them grow
//             uniformly (equal periods), linearly (p_j ~ j) or geometrically (p_j ~ g^j), the last
//             round always on iteration T; or explicit breakpoints [[from_iteration, period], ...].
// Iterations are numbered 1..T; a round "at i" follows the update of iteration i.
// Each schedule is one file in src/training/averaging_schedules/ declaring its keys;
// averaging_registry() lists them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sgdsim/core/registry.hpp"

namespace sgdsim {

struct AveragingEntry : Declaration {
  // Checks between keys and against the run length, after each key's own range was checked.
  std::function<std::optional<KeyProblem>(const Settings&, int run_iterations)> check;
  // The iterations (1-based, increasing, ending with run_iterations) followed by a round.
  std::function<std::vector<int>(const Settings&, int run_iterations)> rounds;
  // "constant(period=4)": the name with the settings that tell two schedules apart.
  std::function<std::string(const Settings&)> label;
  // Plain synchronous SGD: gradients averaged every iteration, overlapped with backward.
  bool every_iteration = false;
};

const Registry<AveragingEntry>& averaging_registry();

struct AveragingSpec {
  const AveragingEntry* schedule = &averaging_registry().at("every_iteration");
  Settings settings;                                 // the schedule's keys, validated
  std::optional<std::int64_t> iterations_to_target;  // from the user's own training logs

  bool every_iteration() const { return schedule->every_iteration; }
};

// A schedule by name with its defaults plus `settings` (tests, tools).
AveragingSpec make_schedule(std::string_view name, const Settings& settings = {});

std::string averaging_label(const AveragingSpec& spec);

// The iterations (1-based, increasing) that end with an averaging round in a run of
// `run_iterations`. For every_iteration: all of them. The spec passed its check.
std::vector<int> averaging_iterations(const AveragingSpec& spec, int run_iterations);

}  // namespace sgdsim
