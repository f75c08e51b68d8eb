// Builds without libtorch (meson option torch): the network tasks say what to install.
#include "sgdsim/convergence/networks.hpp"

#include "sgdsim/core/error.hpp"

namespace sgdsim::convergence {

bool networks_available() { return false; }

std::unique_ptr<Model> network(const std::string& name, int /*side*/, int /*classes*/) {
  throw InputError("the network " + name +
                   " trains with libtorch, which this build of sgdsim lacks: install Debian's "
                   "libtorch-dev and reconfigure the build (meson setup --reconfigure BUILD; "
                   "tools/run.sh does both)");
}

}  // namespace sgdsim::convergence
