// The collective interface has no shared behaviour; this file anchors its vtable.
#include "sgdsim/collectives/collective.hpp"
