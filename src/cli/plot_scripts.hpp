// Where the figure scripts are: the source tree's plots/ for a binary run from its build folder,
// the installed ones beside an installed binary (PREFIX/share/sgdsim/plots after meson install,
// PREFIX/sgdsim/plots after pip install), or SGDSIM_PLOTS; and the Python that runs them.
#pragma once

#include <string>

namespace sgdsim::cli {

// The path of plots/NAME; InputError naming the places looked in when it is not there.
std::string plot_script(const std::string& name);
// SGDSIM_PYTHON, else Debian's /usr/bin/python3 (which has python3-matplotlib), else python3.
std::string plot_python();

}  // namespace sgdsim::cli
