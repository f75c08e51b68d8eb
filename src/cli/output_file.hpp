// Output files written whole or not at all: text goes to FILE.partial and is renamed over FILE
// once complete, so an interrupted or failed run never leaves a file that looks finished.
#pragma once

#include <string>
#include <vector>

namespace sgdsim::cli {

void write_file(const std::string& path, const std::string& text);

// Runs a program (no shell) and waits; returns its exit status, or -1 if it could not start.
int run_program(const std::vector<std::string>& argv);

}  // namespace sgdsim::cli
