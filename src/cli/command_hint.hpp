// "did you mean" for a misspelt command: `sgdsim runn` names the command it could not find and
// the closest one, where CLI11 alone would only say that a subcommand is required.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace sgdsim::cli {

// The message for the first word of argv that is not a command where `app` (or the command it
// leads to) expects one; nothing when every command word is known or an option comes first.
std::optional<std::string> unknown_command(CLI::App& app, int argc, const char* const* argv);

}  // namespace sgdsim::cli
