// Reading an input file whole, bounded before anything is allocated: every reader of a user's
// file (scenarios, traces, profiles, logs, curves, Chakra ETs) goes through here, so a folder, a
// device such as /dev/zero or a file larger than its kind may be is refused with the file's name
// instead of running out of memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace sgdsim {

// The largest input of any kind: 256 MiB, well above the largest trace or profile we have seen
// (162 kB for the largest trace in traces/, 17 MB for the largest PyTorch profiler trace of the
// H100 reference data) and within what parsing into
// memory (about 10x the file for JSON) keeps under a few GB.
inline constexpr std::uint64_t max_input_file_bytes = std::uint64_t{256} << 20;

// The bytes of `path`, read in binary. `what` names the kind in messages ("trace file"). Throws
// InputError: a name that is not UTF-8, "PATH: cannot open WHAT: REASON", "PATH: is a folder, not a
// WHAT", or "PATH: larger than the N MiB a WHAT may hold", the last checked while reading (a pipe
// or a device has no size to check first).
std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes = max_input_file_bytes);

// `bytes` decompressed when they are gzip (by their magic number, not the file's name), else as
// they are; at most max_input_file_bytes once decompressed. Throws InputError naming `source`:
// "SOURCE: not a readable gzip file (truncated)" (or "(corrupt)"), or too large.
std::string gunzipped_if_gzip(std::string bytes, std::string_view source);

// True when `text` is valid UTF-8 (what every name written into a JSON output must be).
bool valid_utf8(std::string_view text);

}  // namespace sgdsim
