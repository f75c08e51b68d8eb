// The seam between training and communication: a collective that aggregates one gradient
// message of S bytes across all workers, with its closed-form time. Each algorithm lives in its
// own file; the scenario picks one.
#pragma once

#include <memory>
#include <string>

#include "sgdsim/core/time.hpp"
#include "sgdsim/core/units.hpp"
#include "sgdsim/network/flow_network.hpp"

namespace sgdsim {

// t(S) = startup + ps_per_byte * S: what merge policies such as MG-WFBP reason with.
struct LinearCost {
  Time startup;
  double ps_per_byte = 0.0;
};

class Collective {
 public:
  virtual ~Collective() = default;
  virtual std::string name() const = 0;
  virtual int ranks() const = 0;
  // Time for all ranks to hold the aggregate of an S-byte message.
  virtual Time time(Bytes message) const = 0;
  // The same time as startup + slope (exact for the alpha-beta forms used so far).
  virtual LinearCost linear_cost() const = 0;
  // Bytes each rank sends on the network for one S-byte message.
  virtual double bytes_sent_per_rank(Bytes message) const = 0;

  // Aggregation of contributions that cannot be summed on the way (sparse or quantised
  // messages of `contribution` bytes each; `aggregate` is the dense size of the sum): the time,
  // the bytes each rank sends, and how many contributions each rank (or server) must decode.
  virtual Time gather_time(Bytes contribution, Bytes aggregate) const = 0;
  virtual double gather_bytes_sent_per_rank(Bytes contribution) const = 0;
  virtual int gather_decodes() const = 0;

  // Summing quantised messages on the way: each of `stages` sequential reduction steps decodes,
  // adds and re-encodes a chunk of `chunk_fraction` of the message.
  struct Requantisation {
    int stages = 0;
    double chunk_fraction = 1.0;
  };
  virtual Requantisation requantisation() const = 0;

  // The same operations as steps of point-to-point transfers on the full topology, for flow
  // fidelity (network/flow_network.hpp). Collectives priced on a representative topology, or
  // built by hand, have none and fail an invariant if asked.
  virtual TransferProgram program(Bytes message) const = 0;
  virtual TransferProgram gather_program(Bytes contribution, Bytes aggregate) const = 0;
};

using CollectivePtr = std::unique_ptr<const Collective>;

}  // namespace sgdsim
