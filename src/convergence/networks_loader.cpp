// The networks' module: found and loaded on first use, so that a run without a network task
// never maps libtorch (half a gigabyte of libraries, a second of start-up, and its address
// space under a memory limit).
#include "sgdsim/convergence/networks.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#include "sgdsim/core/error.hpp"

namespace sgdsim::convergence {

namespace {

constexpr const char* module_name = "libsgdsim_networks.so";

// Where the module may be, in order: $SGDSIM_NETWORKS_MODULE; beside the program or library
// that holds this code (the build folder's src/, an install's bin/ has none); the install's
// PREFIX/LIBDIR/sgdsim; the build folder that built this code.
std::vector<std::filesystem::path> candidates() {
  std::vector<std::filesystem::path> paths;
  if (const char* given = std::getenv("SGDSIM_NETWORKS_MODULE"); given && *given) {
    paths.emplace_back(given);
  }
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&networks_available), &self) != 0 && self.dli_fname) {
    paths.push_back(std::filesystem::path(self.dli_fname).parent_path() / module_name);
  }
#ifdef SGDSIM_NETWORKS_INSTALLED
  paths.emplace_back(SGDSIM_NETWORKS_INSTALLED);
#endif
#ifdef SGDSIM_NETWORKS_BUILT
  paths.emplace_back(SGDSIM_NETWORKS_BUILT);
#endif
  return paths;
}

std::optional<std::filesystem::path> module_path() {
  for (const std::filesystem::path& path : candidates()) {
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error)) return path;
  }
  return std::nullopt;
}

using Create = Model* (*)(const char* name, int side, int classes);

}  // namespace

bool networks_available() {
  return module_path().has_value();
}

std::unique_ptr<Model> network(const std::string& name, int side, int classes) {
  static std::once_flag once;
  static Create create = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    const std::optional<std::filesystem::path> path = module_path();
    if (!path) {
      failure = fmt::format(
          "trains with libtorch, and this build of sgdsim has no {} (built without it): install "
          "Debian's libtorch-dev and reconfigure the build (meson setup --reconfigure BUILD; "
          "tools/run.sh does both)",
          module_name);
      return;
    }
    void* handle = dlopen(path->c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      failure =
          fmt::format("trains with libtorch, and {} does not load: {}", path->string(), dlerror());
      return;
    }
    create = reinterpret_cast<Create>(dlsym(handle, "sgdsim_create_network"));
    if (create == nullptr)
      failure = fmt::format("{} is not sgdsim's networks module", path->string());
  });
  if (create == nullptr) throw InputError(fmt::format("the network {} {}", name, failure));
  return std::unique_ptr<Model>(create(name.c_str(), side, classes));
}

}  // namespace sgdsim::convergence
