// Misspelt commands, found before CLI11 parses: see command_hint.hpp.
#include "command_hint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string_view>
#include <vector>

#include "sgdsim/core/registry.hpp"

namespace sgdsim::cli {

std::optional<std::string> unknown_command(CLI::App& app, int argc, const char* const* argv) {
  CLI::App* level = &app;
  std::string path;  // the commands read so far: "trace "
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    const std::vector<CLI::App*> commands = level->get_subcommands({});
    if (commands.empty() || word.starts_with('-')) return std::nullopt;
    std::vector<std::string> names;
    CLI::App* found = nullptr;
    for (CLI::App* command : commands) {
      names.push_back(command->get_name());
      if (command->get_name() == word) found = command;
    }
    if (found == nullptr) {
      // In the order --help lists them, so the first of equally close names is --help's first.
      const std::optional<std::string> closest = closest_name(word, names);
      return fmt::format(
          "unknown command \"{}{}\"{}; the commands are: {} (sgdsim {}--help describes them)", path,
          word, closest ? fmt::format(" (did you mean \"{}{}\"?)", path, *closest) : "",
          fmt::join(names, ", "), path);
    }
    path += fmt::format("{} ", word);
    level = found;
  }
  return std::nullopt;
}

}  // namespace sgdsim::cli
