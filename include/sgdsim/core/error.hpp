// The three kinds of failure in sgdsim. Library code throws; only the CLI's main catches and
// turns them into exit codes (bad input: 2, a simulation that cannot finish: 3, a bug: 70).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace sgdsim {

// Bad input from a user: a file, a JSON value, a command-line argument. The message names
// where the problem is and what would fix it.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A simulation that was set up correctly but cannot finish (for example it would run past the
// time range); the message says why.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A broken internal invariant: a bug in sgdsim, never the user's fault.
class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// What a simulation that ran out of memory reports (std::bad_alloc is a simulation that cannot
// finish here, exit 3, not a bug).
inline constexpr const char* out_of_memory_message =
    "out of memory: the scenario needs more memory than this machine has; see docs/guide.md, "
    "\"Limits\", for what each fidelity level needs, or use a lower fidelity";

// "SOURCE: PATH: expected EXPECTED, found FOUND", the one shape of a value error.
InputError value_error(std::string_view source, std::string_view path, std::string_view expected,
                       std::string_view found);

namespace detail {
[[noreturn]] void fail_invariant(const char* condition, const char* message, const char* file,
                                 int line);
}  // namespace detail

}  // namespace sgdsim

// Stays on in release builds: a wrong answer is worse than a stop.
#define SGDSIM_ASSERT(condition, message)                                          \
  do {                                                                             \
    if (!(condition)) {                                                            \
      ::sgdsim::detail::fail_invariant(#condition, (message), __FILE__, __LINE__); \
    }                                                                              \
  } while (false)
