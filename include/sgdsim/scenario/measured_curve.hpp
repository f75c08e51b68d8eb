// A measured convergence curve: the CSV of a user's own training run, one row per evaluation
// (`iteration` and the target's column, `accuracy` or `loss`, test metrics; optionally
// `train_loss`; other columns ignored; empty cells are missing values). Read as RFC 4180: quoted
// cells, a UTF-8 byte-order mark (Excel's "CSV UTF-8"), CRLF; every row has the header's cells;
// numbers are decimal. A curve of an averaging schedule ends within the run its rounds are
// placed in (`last_iteration`). Every refusal is an InputError naming FILE:LINE.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "sgdsim/scenario/scenario.hpp"
#include "sgdsim/scenario/scenario_run.hpp"

namespace sgdsim {

// The largest curve file: 16 MiB, about a million rows.
inline constexpr std::uint64_t max_curve_bytes = std::uint64_t{16} << 20;

// `text` is the file's content, `file` its name in messages.
ConvergenceOutcome parse_measured_curve(std::string_view text, const std::string& file,
                                        const std::string& label, const ConvergenceSpec& spec,
                                        std::optional<int> last_iteration);

ConvergenceOutcome read_measured_curve(const std::string& label, const std::filesystem::path& path,
                                       const ConvergenceSpec& spec,
                                       std::optional<int> last_iteration);

}  // namespace sgdsim
