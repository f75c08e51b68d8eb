// The averaging schedule family. Adding a schedule: one file
// src/training/averaging_schedules/NAME.cpp defining `AveragingEntry NAME_schedule()`, and NAME
// in the averaging schedule list of src/meson.build.
#include "sgdsim/training/averaging_schedule.hpp"

#include "averaging_schedule_list.hpp"
#include "sgdsim/core/error.hpp"

namespace sgdsim {

#define SGDSIM_DECLARE(name) AveragingEntry name##_schedule();
SGDSIM_REGISTERED(SGDSIM_DECLARE)
#undef SGDSIM_DECLARE

const Registry<AveragingEntry>& averaging_registry() {
#define SGDSIM_ENTRY(name) name##_schedule(),
  static const Registry<AveragingEntry> registry("averaging schedule",
                                                 {SGDSIM_REGISTERED(SGDSIM_ENTRY)});
#undef SGDSIM_ENTRY
  return registry;
}

AveragingSpec make_schedule(std::string_view name, const Settings& settings) {
  AveragingSpec spec;
  spec.schedule = &averaging_registry().at(name);
  spec.settings = Settings::defaults(spec.schedule->keys);
  for (const auto& [key, value] : settings.values()) spec.settings.set(key, value);
  return spec;
}

std::string averaging_label(const AveragingSpec& spec) {
  return spec.schedule->label(spec.settings);
}

std::vector<int> averaging_iterations(const AveragingSpec& spec, int run_iterations) {
  SGDSIM_ASSERT(run_iterations >= 1, "a run of no iterations");
  SGDSIM_ASSERT(!spec.schedule->check || !spec.schedule->check(spec.settings, run_iterations),
                "an averaging schedule that failed its check");
  return spec.schedule->rounds(spec.settings, run_iterations);
}

}  // namespace sgdsim
