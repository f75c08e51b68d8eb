// Flow-level simulation of point-to-point transfers on a topology. A collective is decomposed
// into steps of transfers (a TransferProgram); each transfer becomes a flow that starts after its
// route's latency and shares every link on its route with the other active flows by max-min
// fairness (progressive filling, recomputed whenever a flow starts or ends). A step ends when all
// its flows have arrived plus its local compute (e.g. reduction), and the program's next step
// starts then: steps run in lockstep, exact for the symmetric collectives we model. Several
// programs (concurrent jobs) run at once and contend for the same links.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "sgdsim/core/time.hpp"
#include "sgdsim/topology/topology.hpp"

namespace sgdsim {

struct Transfer {
  Topology::Vertex from = 0;
  Topology::Vertex to = 0;
  double bytes = 0.0;
};

struct TransferStep {
  std::vector<Transfer> transfers;
  Time compute;  // local work after the transfers arrive (reduction), all ranks in parallel
};

using TransferProgram = std::vector<TransferStep>;

class FlowNetwork {
 public:
  explicit FlowNetwork(const Topology& topology);

  // Runs the programs concurrently from time zero; returns when each one finished.
  std::vector<Time> run(const std::vector<TransferProgram>& programs);

  std::size_t directed_links() const { return capacity_.size(); }

 private:
  struct Route {
    std::vector<int> links;  // directed link ids
    double latency_seconds = 0.0;
  };
  const Route& route(Topology::Vertex from, Topology::Vertex to);

  const Topology& topology_;
  std::vector<double> capacity_;  // bytes per second, per directed link (2 per edge)
  std::map<std::pair<Topology::Vertex, Topology::Vertex>, int> edge_index_;
  std::map<std::pair<Topology::Vertex, Topology::Vertex>, Route> routes_;
};

// Max-min fair rates (progressive filling) for flows over links of the given capacities; flows
// are lists of link ids. Exposed for testing.
std::vector<double> max_min_rates(const std::vector<double>& capacity,
                                  const std::vector<const std::vector<int>*>& flows);

}  // namespace sgdsim
