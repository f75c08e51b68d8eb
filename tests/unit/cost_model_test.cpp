// Tests for compression/cost_model.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/compression/cost_model.hpp"
#include "test_support.hpp"

using namespace sgdsim;

TEST_CASE("the default encode cost is a launch plus traffic at an effective bandwidth") {
  // Top-k of 25e6 elements: 30 us + 8 B * 25e6 / 50 GB/s = 30 us + 4000 us.
  const CompressorSpec topk = make_compressor("topk", test::density(0.01));
  CHECK(encode_time(topk, 25'000'000, {}) == Time::from_us(4030.0));
  // Decoding it scatters k = 250,000 elements: 5 us + 8 B * 250,000 / 500 GB/s = 9 us.
  CHECK(decode_time(topk, 25'000'000, {}) == Time::from_us(9.0));
  // No compression costs nothing.
  CHECK(encode_time(CompressorSpec{}, 25'000'000, {}) == Time::zero());
}

TEST_CASE("a measured curve interpolates between points and extrapolates the last segment") {
  const CostCurve curve(
      {{1000, Time::from_us(10.0)}, {3000, Time::from_us(30.0)}, {5000, Time::from_us(40.0)}});
  CHECK(curve.at(2000) == Time::from_us(20.0));  // halfway between 10 and 30
  CHECK(curve.at(4000) == Time::from_us(35.0));
  CHECK(curve.at(7000) == Time::from_us(50.0));  // last slope 5 us per 1000
  CHECK(curve.at(500) == Time::from_us(5.0));    // first slope 10 us per 1000, backwards
}

TEST_CASE("a profile replaces the default for the compressors it measured") {
  CompressionProfile profile;
  profile["topk"].encode = CostCurve({{1000, Time::from_us(1.0)}, {2000, Time::from_us(2.0)}});
  const CompressorSpec topk = make_compressor("topk", test::density(0.01));
  CHECK(encode_time(topk, 1500, profile) == Time::from_us(1.5));
  // Decode was not measured: the default, 5 us + 8 B * 15 / 500 GB/s = 5.00024 us.
  CHECK(decode_time(topk, 1500, profile) == Time::from_ps(5'000'240));
}
