// gpu_probe: measures compression kernels and copies and writes a compression profile
// ("sgdsim-compression-profile", schema version 1) that scenarios name in
// communication.compression_profile. On a machine without a GPU (or with --device cpu) it
// times the CPU implementations instead, so the tool and its output can be tested anywhere.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>

#include "probe.hpp"

namespace {

void show_progress(int done, int total, const std::string& what) {
  std::fprintf(stderr, "gpu_probe: %s sizes %d/%d\n", what.c_str(), done, total);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpu_probe: measure compression encode/decode and copy costs for sgdsim"};
  std::string device = "auto";
  int min_log2 = 10;
  int max_log2 = 28;
  int step_log2 = 2;
  sgdsim::probe::Settings settings;
  std::string output;
  app.add_option("--device", device, "cuda, cpu, or auto (cuda when a GPU is present)")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  app.add_option("--min-log2", min_log2, "Smallest tensor: 2^N elements (default 10)")
      ->check(CLI::Range(4, 30));
  app.add_option("--max-log2", max_log2, "Largest tensor: 2^N elements (default 28)")
      ->check(CLI::Range(4, 30));
  app.add_option("--step-log2", step_log2, "Size step as a power of two (default 2)")
      ->check(CLI::Range(1, 8));
  app.add_option("--density", settings.density, "k/d for top-k and random-k (default 0.01)")
      ->check(CLI::Range(1e-6, 1.0));
  app.add_option("--levels", settings.levels, "Levels for dithering (default 16)")
      ->check(CLI::Range(1, 127));
  app.add_option("--repeats", settings.repeats, "Repeats per measurement; the median is kept")
      ->check(CLI::Range(1, 1000));
  app.add_option("-o,--output", output, "Profile JSON to write")->required();
  CLI11_PARSE(app, argc, argv);
  if (min_log2 > max_log2) {
    std::fprintf(stderr, "gpu_probe: error: --min-log2 %d is above --max-log2 %d\n", min_log2,
                 max_log2);
    return 2;
  }
  for (int p = min_log2; p <= max_log2; p += step_log2)
    settings.sizes.push_back(std::int64_t{1} << p);

  const bool gpu = device == "cuda" || (device == "auto" && sgdsim::probe::cuda_available());
  if (device == "cuda" && !sgdsim::probe::cuda_available()) {
    std::fprintf(stderr, "gpu_probe: error: --device cuda, but %s\n",
#ifdef SGDSIM_PROBE_CUDA
                 "no CUDA GPU is available here"
#else
                 "this gpu_probe was built without CUDA (nvcc was not found)"
#endif
    );
    return 2;
  }
  sgdsim::probe::Report report;
  try {
    report = gpu ? sgdsim::probe::probe_gpu(settings, show_progress)
                 : sgdsim::probe::probe_cpu(settings, show_progress);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gpu_probe: error: %s\n", error.what());
    return 3;
  }

  nlohmann::ordered_json compressors = nlohmann::ordered_json::object();
  nlohmann::ordered_json copies = nlohmann::ordered_json::object();
  for (const auto& m : report.measurements) {
    const nlohmann::ordered_json point =
        nlohmann::ordered_json::array({m.elements, m.microseconds});
    if (m.what == "host_to_device" || m.what == "device_to_host") {
      copies[m.what + "_us"].push_back(point);  // elements of fp32: 4 bytes each
    } else {
      compressors[m.what][m.encode ? "encode_us" : "decode_us"].push_back(point);
    }
  }
  const std::time_t now = std::time(nullptr);
  char date[16];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  nlohmann::ordered_json profile{
      {"format", "sgdsim-compression-profile"},
      {"schema_version", 1},
      {"device", report.device},
      {"description", std::string("Measured by tools/gpu_probe on ") + date + " with density " +
                          std::to_string(settings.density) + ", " +
                          std::to_string(settings.levels) + " dithering levels, median of " +
                          std::to_string(settings.repeats) + " repeats; sizes in fp32 elements" +
                          (gpu ? "" : "; CPU timing (no GPU used)")},
      {"compressors", compressors}};
  if (!copies.empty()) profile["copies"] = copies;
  const std::string temporary = output + ".partial";
  {
    std::ofstream out(temporary);
    if (!out) {
      std::fprintf(stderr, "gpu_probe: error: cannot write %s\n", output.c_str());
      return 2;
    }
    out << profile.dump(1) << '\n';
  }
  std::filesystem::rename(temporary, output);
  std::fprintf(stderr, "gpu_probe: wrote %s (%zu measurements on %s)\n", output.c_str(),
               report.measurements.size(), report.device.c_str());
  return 0;
}
