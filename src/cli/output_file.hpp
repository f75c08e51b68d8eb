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
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace sgdsim::cli {

// The outputs a command will write (empty entries are options not given), checked against the
// files it reads; throws InputError naming the first problem.
void check_outputs(const std::vector<std::string>& outputs,
                   const std::vector<std::filesystem::path>& inputs);

void write_file(const std::string& path, const std::string& text);

// True for "-" (standard output) and for a device, pipe or socket: outputs written straight
// through, which cannot be taken back.
bool is_stream(const std::string& path);

// Writes every (path, text) pair all or none, as far as files allow: each regular file goes to
// its FILE.partial and is flushed first, then standard output and devices (which cannot be
// taken back) are written, and only when all are written are the partial files renamed into
// place. A failure before the renames removes the partial files and leaves nothing named
// created or changed; a rename that fails (rare: the folder was checked writable) can leave the
// files renamed before it. Empty paths are skipped.
void write_files(const std::vector<std::pair<std::string, std::string>>& outputs);

// An output written piece by piece while a long command runs, with write_file's guarantees: a
// regular file goes to FILE.partial, renamed over FILE by commit() (stop signals held meanwhile)
// and removed by discard() or when the object dies uncommitted; "-" is standard output and a
// special file is written straight through. Opening failures are InputErrors naming the path.
class StreamedOutput {
 public:
  explicit StreamedOutput(const std::string& path);
  ~StreamedOutput();
  StreamedOutput(const StreamedOutput&) = delete;
  StreamedOutput& operator=(const StreamedOutput&) = delete;

  void write(const std::string& text);
  void flush();
  void commit();
  // Removes the partial file; what went to standard output or a device cannot be taken back,
  // so `mark` (if any) is written there instead.
  void discard(const std::string& mark = "");

 private:
  [[noreturn]] void fail() const;  // the write error, naming the output

  std::string path_;
  std::filesystem::path target_;   // where commit() renames the partial file
  std::filesystem::path partial_;  // empty for "-" and special files
  std::ofstream file_;
  bool open_ = true;
};

// Runs a program (no shell) and waits; returns its exit status, or -1 if it could not start.
int run_program(const std::vector<std::string>& argv);

}  // namespace sgdsim::cli
