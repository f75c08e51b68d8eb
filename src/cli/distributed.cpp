// MPI wrapper; compiled against MPI only when SGDSIM_WITH_MPI is defined.
#include "distributed.hpp"

#include <cstdlib>

#ifdef SGDSIM_WITH_MPI
// The C API only: Open MPI's C++ bindings do not compile cleanly with -Werror.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace sgdsim::cli {

namespace {

// Under a launcher these are set; a plain `sgdsim sweep` does not start MPI at all.
bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

}  // namespace

bool Distributed::available() {
#ifdef SGDSIM_WITH_MPI
  return true;
#else
  return false;
#endif
}

Distributed::Distributed(int* argc, char*** argv) {
#ifdef SGDSIM_WITH_MPI
  if (launched_by_mpirun()) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    active_ = true;
  }
#else
  (void)argc;
  (void)argv;
  (void)launched_by_mpirun;
#endif
}

Distributed::~Distributed() {
#ifdef SGDSIM_WITH_MPI
  if (active_) MPI_Finalize();
#endif
}

std::vector<std::string> Distributed::gather(const std::string& local) const {
  if (!active_) return {local};
#ifdef SGDSIM_WITH_MPI
  int length = static_cast<int>(local.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(static_cast<std::size_t>(size_), 0);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(rank_ == 0 ? total : 0), '\0');
  MPI_Gatherv(local.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, MPI_COMM_WORLD);
  std::vector<std::string> parts;
  if (rank_ == 0) {
    for (int r = 0; r < size_; ++r) {
      parts.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                 static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
    }
  }
  return parts;
#else
  return {local};
#endif
}

void Distributed::abort(int code) const {
#ifdef SGDSIM_WITH_MPI
  if (active_) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

}  // namespace sgdsim::cli
