// Tests for training/gradient_layers.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/training/gradient_layers.hpp"
#include "test_support.hpp"

using namespace sgdsim;

TEST_CASE("gradient layers come in backward order, ready at the running sum of backward") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  REQUIRE(profile.layers.size() == 4);
  CHECK(profile.layers[0].name == "L4");
  CHECK(profile.layers[0].ready == Time::from_us(1000.0));
  CHECK(profile.layers[1].ready == Time::from_us(3000.0));  // 1.0 + 2.0 ms
  CHECK(profile.layers[2].ready == Time::from_us(4000.0));  // + 1.0 ms
  CHECK(profile.layers[3].ready == Time::from_us(5800.0));  // + 1.8 ms
  CHECK(profile.layers[1].bytes == Bytes(2000));            // (400 + 100) elements * 4 B
  CHECK(profile.forward == Time::from_us(4000.0));
  CHECK(profile.backward == Time::from_us(5800.0));
  CHECK(profile.compute() == Time::from_us(10300.0));  // 4 + 5.8 + 0.5 ms
}

TEST_CASE("captured ready offsets win over layer ends, and layers without gradients are skipped") {
  Workload workload = test::four_layers();
  workload.layers[2].gradients[0].ready_offset = Time::from_us(2500.0);  // L3.weight early
  workload.layers[2].gradients[1].ready_offset = Time::from_us(2700.0);  // L3.bias later
  workload.layers[1].gradients.clear();                                  // L2 has none now
  const BackwardProfile profile = backward_profile(workload);
  REQUIRE(profile.layers.size() == 3);
  CHECK(profile.layers[1].ready == Time::from_us(2700.0));  // the later of the two tensors
  CHECK(profile.layers[2].name == "L1");
  CHECK(profile.layers[2].ready == Time::from_us(5800.0));
}

TEST_CASE("per tensor, every gradient is a unit of its own, in readiness order") {
  Workload workload = test::four_layers();
  workload.layers[2].gradients[0].ready_offset = Time::from_us(2700.0);  // L3.weight after
  workload.layers[2].gradients[1].ready_offset = Time::from_us(2500.0);  // L3.bias
  const BackwardProfile profile = backward_profile(workload, {}, true);
  REQUIRE(profile.layers.size() == 5);  // L4.weight, L3's two tensors, L2.weight, L1.weight
  CHECK(profile.layers[0].name == "L4.weight");
  CHECK(profile.layers[0].ready == Time::from_us(1000.0));  // its layer's end: no offset given
  CHECK(profile.layers[1].name == "L3.bias");
  CHECK(profile.layers[1].bytes == Bytes(400));  // 100 elements x 4 B
  CHECK(profile.layers[2].name == "L3.weight");
  CHECK(profile.layers[2].needed == Time::from_us(2000.0));  // L3's forward starts at 2 ms
  CHECK(profile.layers[4].ready == Time::from_us(5800.0));
}
