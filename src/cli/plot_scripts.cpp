// Finding the figure scripts: see plot_scripts.hpp.
#include "plot_scripts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "sgdsim/core/error.hpp"

namespace sgdsim::cli {

namespace {

// Where plots/NAME may be, in the order looked in.
std::vector<std::filesystem::path> candidates(const std::string& name) {
  if (const char* chosen = std::getenv("SGDSIM_PLOTS")) {
    return {std::filesystem::path(chosen) / name};
  }
  const std::filesystem::path source = std::filesystem::path(SGDSIM_SOURCE_PLOTS) / name;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {source};
  const std::filesystem::path folder = self.parent_path();
  if (std::filesystem::equivalent(folder, SGDSIM_BUILD_FOLDER, error)) return {source};
  // Installed, wherever PREFIX was moved to: PREFIX/bin/sgdsim with PREFIX/share/sgdsim/plots
  // (meson install), or PREFIX/sgdsim/plots (pip install: a wheel puts Meson's data folder at
  // the environment's root).
  return {(folder / SGDSIM_PLOTS_FROM_BINDIR / name).lexically_normal(),
          (folder / ".." / "sgdsim" / "plots" / name).lexically_normal()};
}

}  // namespace

std::string plot_script(const std::string& name) {
  const std::vector<std::filesystem::path> places = candidates(name);
  std::vector<std::string> looked;
  for (const std::filesystem::path& place : places) {
    std::error_code error;
    if (std::filesystem::is_regular_file(place, error)) return place.string();
    looked.push_back(place.string());
  }
  throw InputError(fmt::format(
      "--plot: no plot script at {}; reinstall sgdsim, or set SGDSIM_PLOTS to a folder holding "
      "sgdsim's plots/",
      fmt::join(looked, " or ")));
}

std::string plot_python() {
  if (const char* chosen = std::getenv("SGDSIM_PYTHON")) return chosen;
  std::error_code error;
  return std::filesystem::exists("/usr/bin/python3", error) ? "/usr/bin/python3" : "python3";
}

}  // namespace sgdsim::cli
