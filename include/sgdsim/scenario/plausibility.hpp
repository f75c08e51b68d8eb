// Values that read well but lie far outside real hardware, most often a unit slip: a bandwidth
// in bit/s where Gbit/s is asked (`"bandwidth_gbps": 1e11`), a latency in seconds where
// microseconds are (`"latency_us": 25e-6`). They still run (a what-if may go past today's
// hardware on purpose); the user is warned, with the key and the likely slip.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sgdsim/scenario/scenario.hpp"

namespace sgdsim {

// Bounds, with the hardware that sets them:
// - the fastest link a GPU has is NVLink 5, 900 GB/s = 7,200 Gbit/s per direction (NVIDIA
//   Blackwell datasheet, 1.8 TB/s both ways); Ethernet and InfiniBand NICs reach 800 Gbit/s.
//   Above 100,000 Gbit/s (14x NVLink 5) a rate is implausible; below 0.001 Gbit/s (1 Mbit/s,
//   slower than any data-centre link since 10 Mbit/s Ethernet) too.
// - one message's latency on real hardware is at least a few hundred ns (PCIe and NVLink round
//   trips) and at most milliseconds on congested WANs. Other simulators' configurations go
//   lower (ASTRA-sim's examples: 1 ns per link, scenarios/astra_resnet50_ring.json), so only
//   below 0.001 us (1 ns, less than a link's own wire and SerDes delay) or above 1,000,000 us
//   (1 s) is it taken for a slip.
inline constexpr double plausible_gbps_min = 1e-3;
inline constexpr double plausible_gbps_max = 1e5;
inline constexpr double plausible_us_min = 1e-3;
inline constexpr double plausible_us_max = 1e6;

// One warning per implausible bandwidth (`*_gbps`) or latency (`*_latency_us`,
// `*overhead_us`) anywhere in `scenario`, a list's items included (a sweep's values), naming its
// JSON path; in key order (nlohmann::json keeps an object's keys sorted).
// `skip`: a top-level key left out.
std::vector<std::string> plausibility_warnings(const nlohmann::json& scenario,
                                               std::string_view skip = {});

// The warnings of a scenario as `run` runs it: its document without the sweep (a sweep warns
// of its swept values itself, Sweep::warnings). Found when asked, not when each point is read.
std::vector<std::string> plausibility_warnings(const ScenarioConfig& config);

}  // namespace sgdsim
