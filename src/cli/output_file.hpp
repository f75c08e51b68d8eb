// Output files that never destroy anything. Before any work runs, every output a command names
// is checked: not a folder, not the same file as any input the command reads (the scenario, its
// trace, its compression profile), not named twice, in a folder that exists. Writing then goes
//   "-"                       to standard output;
//   a device, pipe or socket  straight to it (a terminal, /dev/stdout, a FIFO);
//   a symbolic link           through it, to the file it points at, which stays a link;
//   a regular file or a new   to FILE.partial, renamed over FILE once complete, so an
//   name                      interrupted or failed run never leaves a file that looks finished
//                             (SIGINT, SIGTERM and SIGHUP wait until the rename is done, so a
//                             signal leaves no FILE.partial either).
// Every failure is an InputError naming the path and the reason.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace sgdsim::cli {

// The outputs a command will write (empty entries are options not given), checked against the
// files it reads; throws InputError naming the first problem.
void check_outputs(const std::vector<std::string>& outputs,
                   const std::vector<std::filesystem::path>& inputs);

void write_file(const std::string& path, const std::string& text);

// Where rows can be streamed while a long command runs: the FILE.partial that write_file(path)
// later replaces and renames; empty for "-" and special files, which are written only once.
std::filesystem::path partial_file(const std::string& path);

// Runs a program (no shell) and waits; returns its exit status, or -1 if it could not start.
int run_program(const std::vector<std::string>& argv);

}  // namespace sgdsim::cli
