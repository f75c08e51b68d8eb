// Tests for trace_io/bcaffe_log.hpp on a small hand-made log (tests/data/bcaffe_small.log).
#include <doctest/doctest.h>

#include "printers.hpp"

#include <fstream>

#include "sgdsim/core/error.hpp"
#include "sgdsim/trace_io/bcaffe_log.hpp"
#include "test_support.hpp"

using namespace sgdsim;

TEST_CASE("the last complete dump is imported, rows grouped into layers by backward time") {
  // Three dumps: rows 0-2, rows 0-2 again, and a truncated one with only row 0.
  const BcaffeLog log = import_bcaffe_log(test::data_path("bcaffe_small.log"), 64, "K80");
  REQUIRE(log.rows.size() == 3);
  CHECK(log.rows[0].backward_us == 11.5);  // from the second dump
  CHECK(log.rows[2].allreduce_us == 52.0);
  REQUIRE(log.workload.layers.size() == 2);  // {param0, param1} share 11.5 us; param2 alone
  CHECK(log.workload.layers[0].gradients.size() == 2);
  CHECK(log.workload.layers[1].backward == Time::from_us(21.0));
  CHECK(total_gradient_elements(log.workload) == 310);
  CHECK(log.workload.provenance.method == "imported");
}

TEST_CASE("a file that is not a B-Caffe log is refused") {
  CHECK_THROWS_WITH_AS(import_bcaffe_log(test::data_path("four_layers.json"), 64, "K80"),
                       doctest::Contains("no B-Caffe parameter rows found"), InputError);
}
