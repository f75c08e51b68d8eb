// Splitting a sweep over MPI ranks when sgdsim runs under mpirun and was built with MPI: rank r
// runs points r, r + size, ...; rank 0 gathers every rank's rows and writes the files.
// Without MPI (or outside mpirun) there is one rank and nothing to gather.
#pragma once

#include <string>
#include <vector>

namespace sgdsim::cli {

class Distributed {
 public:
  Distributed(int* argc, char*** argv);
  ~Distributed();
  Distributed(const Distributed&) = delete;
  Distributed& operator=(const Distributed&) = delete;

  // Whether this build can split sweeps over MPI ranks (`sgdsim --version` says so).
  static bool available();

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Every rank's text, in rank order, on rank 0 (empty elsewhere).
  std::vector<std::string> gather(const std::string& local) const;
  // Ends all ranks after an error on one of them.
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  bool active_ = false;
};

}  // namespace sgdsim::cli
