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
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sgdsim {

enum class AveragingKind { every_iteration, constant, adaptive };
enum class GrowthRule { uniform, linear, geometric };

struct AveragingSpec {
  AveragingKind kind = AveragingKind::every_iteration;
  int period = 1;  // constant
  int budget = 0;  // adaptive: rounds in the run, warm-up included
  GrowthRule rule = GrowthRule::linear;
  double growth_factor = 1.05;  // geometric: each period is this many times the previous one
  int warmup_iterations = 0;    // adaptive: first iterations averaged every iteration
  std::vector<std::pair<int, int>> breakpoints;  // adaptive alternative: {from_iteration, period}
  std::optional<std::int64_t> iterations_to_target;  // from the user's own training logs
};

std::string averaging_label(const AveragingSpec& spec);

// The iterations (1-based, increasing) that end with an averaging round in a run of
// `run_iterations`. For every_iteration: all of them. The caller has validated the spec
// (period >= 1, warm-up <= budget <= run_iterations, breakpoints increasing from 1).
std::vector<int> averaging_iterations(const AveragingSpec& spec, int run_iterations);

}  // namespace sgdsim
