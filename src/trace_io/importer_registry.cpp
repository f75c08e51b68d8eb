// The trace importer family's registry.
#include "sgdsim/trace_io/importer_registry.hpp"

#include "importer_list.hpp"

namespace sgdsim {

#define SGDSIM_DECLARE(name) ImporterEntry name##_importer();
SGDSIM_REGISTERED(SGDSIM_DECLARE)
#undef SGDSIM_DECLARE

const Registry<ImporterEntry>& importer_registry() {
#define SGDSIM_ENTRY(name) name##_importer(),
  static const Registry<ImporterEntry> registry("trace importer",
                                                {SGDSIM_REGISTERED(SGDSIM_ENTRY)});
#undef SGDSIM_ENTRY
  return registry;
}

}  // namespace sgdsim
