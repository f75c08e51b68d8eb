// The collective family: each algorithm's file declares its name, description and the keys of
// `communication.collective` it reads, how it shapes the cluster (servers) and how it is built.
// Adding a collective: one file src/collectives/NAME.cpp defining `CollectiveEntry
// NAME_collective()`, and NAME in the collective list of src/meson.build.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/collectives/hops.hpp"
#include "sgdsim/core/registry.hpp"
#include "sgdsim/topology/topology.hpp"

namespace sgdsim {

struct CollectiveEntry : Declaration {
  // Checks the settings against the cluster (e.g. a power of two of GPUs); may be empty.
  std::function<std::optional<KeyProblem>(const Settings&, const ClusterShape&)> check;
  // Adds what the algorithm needs to the cluster before its topology is built; may be empty.
  std::function<void(const Settings&, ClusterShape&)> shape;
  std::function<CollectivePtr(const CollectiveContext&, const Settings&)> make;
  // Whether its collectives play the Shards role (reduce-scatter and allgather of their own), so
  // that sharded data parallelism can use them.
  bool shards = false;
  // How reports name it with its settings; empty: the collective's own name().
  std::function<std::string(const Settings&, const ClusterShape&)> describe;
};

const Registry<CollectiveEntry>& collective_registry();

}  // namespace sgdsim
