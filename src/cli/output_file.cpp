// Safe output files and child programs (the plot scripts).
#include "output_file.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "sgdsim/core/error.hpp"

namespace sgdsim::cli {

namespace {

namespace fs = std::filesystem;

std::string reason(const std::error_code& error) {
  return error.message();
}

// Where the bytes of `path` land: a chain of symbolic links is followed to its last target
// (which may not exist yet), so that the rename replaces the target and the links stay links.
fs::path write_target(const std::string& path) {
  fs::path at = path;
  std::error_code error;
  for (int hops = 0; fs::is_symlink(at, error); ++hops) {
    if (hops == 40) throw InputError(fmt::format("{}: too many levels of symbolic links", path));
    const fs::path next = fs::read_symlink(at, error);
    if (error) {
      throw InputError(fmt::format("{}: cannot follow the symbolic link: {}", path, reason(error)));
    }
    at = next.is_absolute() ? next : at.parent_path() / next;
  }
  return at;
}

// A device, pipe or socket (after following links): written to directly, never renamed over.
bool special_file(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  return fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status);
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  return fs::exists(a, error) && fs::exists(b, error) && fs::equivalent(a, b, error) && !error;
}

// Where a regular file is written before it is renamed over `target`.
fs::path partial_of(const fs::path& target) {
  return target.string() + ".partial";
}

// SIGINT, SIGTERM and SIGHUP held back while a file is written and renamed into place, so that
// a signal arriving then takes effect only once the file is whole: Ctrl-C never leaves a
// FILE.partial behind (the default action, or the sweep's handler, runs right after).
class StopSignalsHeld {
 public:
  StopSignalsHeld() {
    sigset_t held;
    sigemptyset(&held);
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&held, signal);
    pthread_sigmask(SIG_BLOCK, &held, &previous_);
  }
  ~StopSignalsHeld() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  StopSignalsHeld(const StopSignalsHeld&) = delete;
  StopSignalsHeld& operator=(const StopSignalsHeld&) = delete;

 private:
  sigset_t previous_{};
};

}  // namespace

void check_outputs(const std::vector<std::string>& outputs,
                   const std::vector<std::filesystem::path>& inputs) {
  std::vector<fs::path> checked;
  bool standard_output = false;
  for (const std::string& path : outputs) {
    if (path.empty()) continue;
    if (path == "-") {
      if (standard_output) throw InputError("-: standard output is named for two outputs");
      standard_output = true;
      continue;
    }
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (fs::is_directory(status)) {
      throw InputError(fmt::format("{}: is a folder; name a file to write", path));
    }
    for (const fs::path& input : inputs) {
      if (same_file(path, input)) {
        throw InputError(
            fmt::format("{}: is also an input of this command ({}); write the output elsewhere",
                        path, input.string()));
      }
    }
    const fs::path target = special_file(path) ? fs::path(path) : write_target(path);
    for (const fs::path& other : checked) {
      if (same_file(target, other) || target.lexically_normal() == other.lexically_normal()) {
        throw InputError(fmt::format("{}: is named for two outputs", path));
      }
    }
    checked.push_back(target);
    if (special_file(path)) continue;
    const fs::path folder = target.parent_path();
    if (!folder.empty() && !fs::is_directory(folder, error)) {
      throw InputError(
          fmt::format("{}: cannot write output file: no folder {}", path, folder.string()));
    }
    // FILE.partial is created in the folder and renamed there: both need the folder writable,
    // checked now so that a run is not spent on results that cannot be kept.
    if (access(folder.empty() ? "." : folder.c_str(), W_OK | X_OK) != 0) {
      throw InputError(fmt::format("{}: cannot write output file: {}", path, std::strerror(errno)));
    }
  }
}

StreamedOutput::StreamedOutput(const std::string& path) : path_(path) {
  if (path == "-") return;
  if (special_file(path)) {  // a terminal, /dev/stdout, a FIFO: written straight through
    file_.open(path, std::ios::binary | std::ios::app);
  } else {
    target_ = write_target(path);
    std::error_code error;
    if (fs::is_directory(target_, error)) {
      throw InputError(fmt::format("{}: is a folder; name a file to write", path));
    }
    partial_ = partial_of(target_);
    file_.open(partial_, std::ios::binary | std::ios::trunc);
  }
  if (!file_) {
    throw InputError(fmt::format("{}: cannot write output file: {}", path, std::strerror(errno)));
  }
}

StreamedOutput::~StreamedOutput() {
  if (open_) discard();
}

void StreamedOutput::write(const std::string& text) {
  const bool written = path_ == "-"
                           ? std::fwrite(text.data(), 1, text.size(), stdout) == text.size()
                           : static_cast<bool>(file_ << text);
  if (!written) fail();
}

void StreamedOutput::flush() {
  const bool flushed = path_ == "-" ? std::fflush(stdout) == 0 : static_cast<bool>(file_.flush());
  if (!flushed) fail();
}

void StreamedOutput::fail() const {
  if (path_ == "-") throw InputError("-: cannot write to standard output");
  throw InputError(fmt::format("{}: cannot write output file: {}", path_, std::strerror(errno)));
}

void StreamedOutput::commit() {
  const StopSignalsHeld held;
  try {
    flush();
  } catch (const InputError&) {
    discard();
    throw;
  }
  open_ = false;
  if (partial_.empty()) return;
  file_.close();
  std::error_code error;
  fs::rename(partial_, target_, error);
  if (error) {
    std::error_code ignored;
    fs::remove(partial_, ignored);
    throw InputError(fmt::format("{}: cannot write output file: {}", path_, reason(error)));
  }
}

void StreamedOutput::discard(const std::string& mark) {
  if (!open_) return;
  open_ = false;
  if (partial_.empty()) {
    if (!mark.empty()) {
      try {
        write(mark);
        flush();
      } catch (const InputError&) {  // the output is what failed: nothing more to say there
      }
    }
    return;
  }
  file_.close();
  std::error_code ignored;
  fs::remove(partial_, ignored);
}

void write_file(const std::string& path, const std::string& text) {
  const StopSignalsHeld held;  // a signal takes effect once the file is whole (or removed)
  StreamedOutput out(path);
  out.write(text);
  out.commit();
}

bool is_stream(const std::string& path) {
  return path == "-" || special_file(path);
}

void write_files(const std::vector<std::pair<std::string, std::string>>& outputs) {
  const StopSignalsHeld held;  // a signal takes effect once all are whole (or removed)
  std::vector<std::unique_ptr<StreamedOutput>> open;
  // Files first, streams last: a file that fails leaves nothing on a terminal or device.
  for (const bool streams : {false, true}) {
    for (const auto& [path, text] : outputs) {
      if (path.empty() || is_stream(path) != streams) continue;
      open.push_back(std::make_unique<StreamedOutput>(path));
      open.back()->write(text);
      open.back()->flush();  // a full disk or device fails here, before any file is renamed
    }
  }
  for (const auto& output : open) output->commit();
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
