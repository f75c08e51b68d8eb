// The collective family's registry (the interface itself has no shared behaviour).
#include "sgdsim/collectives/collective.hpp"

#include "collective_list.hpp"
#include "sgdsim/collectives/collective_registry.hpp"

namespace sgdsim {

#define SGDSIM_DECLARE(name) CollectiveEntry name##_collective();
SGDSIM_REGISTERED(SGDSIM_DECLARE)
#undef SGDSIM_DECLARE

const Registry<CollectiveEntry>& collective_registry() {
#define SGDSIM_ENTRY(name) name##_collective(),
  static const Registry<CollectiveEntry> registry("collective", {SGDSIM_REGISTERED(SGDSIM_ENTRY)});
#undef SGDSIM_ENTRY
  return registry;
}

}  // namespace sgdsim
