// Formatting of error messages.
#include "sgdsim/core/error.hpp"

#include <fmt/format.h>

namespace sgdsim {

InputError value_error(std::string_view source, std::string_view path, std::string_view expected,
                       std::string_view found) {
  return InputError(fmt::format("{}: {}: expected {}, found {}", source, path, expected, found));
}

namespace detail {

void fail_invariant(const char* condition, const char* message, const char* file, int line) {
  throw InvariantError(
      fmt::format("internal error: {} ({} failed at {}:{})", message, condition, file, line));
}

}  // namespace detail
}  // namespace sgdsim
