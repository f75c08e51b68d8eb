// Atomic output files and child programs (the plot scripts).
#include "output_file.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sgdsim/core/error.hpp"

namespace sgdsim::cli {

void write_file(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary);
    if (!out) throw InputError(fmt::format("{}: cannot write output file", path));
    out << text;
    if (!out.flush()) {
      std::filesystem::remove(temporary);
      throw InputError(fmt::format("{}: cannot write output file", path));
    }
  }
  std::filesystem::rename(temporary, path);
}

int run_program(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t child = fork();
  if (child < 0) return -1;
  if (child == 0) {
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(child, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace sgdsim::cli
