// Tests for trace_io/trace_reader.hpp, trace_writer.hpp and trace_summary.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include <sstream>

#include "sgdsim/core/error.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"
#include "sgdsim/trace_io/trace_summary.hpp"
#include "sgdsim/trace_io/trace_writer.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

// The four-layer trace with one edit applied to its JSON, read back.
std::string trace_error_after(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json trace = trace_to_json(test::four_layers());
  edit(trace);
  return test::input_error_of([&] { read_trace(jsonio::parse_text(trace.dump(), "t.json")); });
}

}  // namespace

TEST_CASE("the four-layer trace reads with its totals") {
  const Workload workload = test::four_layers();
  CHECK(workload.layers.size() == 4);
  CHECK(total_gradient_elements(workload) == 1250);  // 375 + 125 + 500 + 250
  CHECK(total_gradient_bytes(workload) == Bytes(5000));
  CHECK(total_forward(workload) == Time::from_ms(4.0));
  CHECK(workload.provenance.method == "estimated");
}

TEST_CASE("a written trace reads back identically") {
  Workload workload = test::four_layers();
  workload.layers[0].gradients[0].ready_offset = Time::from_ps(5'800'000'001);
  workload.measured_iteration = Time::from_us(12345.678901);
  std::ostringstream text;
  write_trace(workload, text);
  const Workload back = read_trace(jsonio::parse_text(text.str(), "round-trip"));
  CHECK(back.layers[0].gradients[0].ready_offset == workload.layers[0].gradients[0].ready_offset);
  CHECK(back.measured_iteration == workload.measured_iteration);
  CHECK(back.layers[3].backward == workload.layers[3].backward);
  CHECK(trace_to_json(back) == trace_to_json(workload));
}

TEST_CASE("a trace without layers is refused") {
  CHECK(trace_error_after([](nlohmann::json& t) { t["layers"] = nlohmann::json::array(); }) ==
        "t.json: layers: expected a non-empty array of layers, found an empty array");
}

TEST_CASE("a gradient of zero or negative size is refused with its path") {
  CHECK(trace_error_after(
            [](nlohmann::json& t) { t["layers"][1]["gradients"][0]["elements"] = 0; }) ==
        "t.json: layers[1].gradients[0].elements: expected an integer from 1 to 1099511627776, "
        "found 0");
  CHECK(trace_error_after(
            [](nlohmann::json& t) { t["layers"][0]["gradients"][0]["elements"] = -5; }) ==
        "t.json: layers[0].gradients[0].elements: expected an integer from 1 to 1099511627776, "
        "found -5");
}

TEST_CASE("a trace whose layers have no gradients at all is refused") {
  CHECK(trace_error_after([](nlohmann::json& t) {
          for (auto& layer : t["layers"]) layer["gradients"] = nlohmann::json::array();
        }) == "t.json: layers: expected at least one layer with gradients, found an array of 4");
}

TEST_CASE("negative times, unknown keys and foreign files are refused") {
  CHECK(trace_error_after([](nlohmann::json& t) { t["layers"][2]["backward_us"] = -1; }) ==
        "t.json: layers[2].backward_us: expected a number >= 0, found -1");
  CHECK(
      trace_error_after([](nlohmann::json& t) {
        t["layers"][2]["backward_ms"] = 1;
      }).starts_with("t.json: layers[2].backward_ms: unknown key (did you mean \"backward_us\"?)"));
  CHECK(trace_error_after([](nlohmann::json& t) { t.erase("format"); }) ==
        "t.json: format: expected \"sgdsim-trace\", found nothing (is this an sgdsim trace? see "
        "traces/README.md)");
  CHECK(trace_error_after([](nlohmann::json& t) { t["schema_version"] = 2; }) ==
        "t.json: schema_version: expected 1 (this sgdsim reads trace schema version 1), found 2");
}

TEST_CASE("trace show lists every layer and the totals") {
  const std::string summary = trace_summary(test::four_layers());
  CHECK(summary.find("L3") != std::string::npos);
  CHECK(summary.find("total: 4 layers, 1250 gradient elements (0.005 MB)") != std::string::npos);
  CHECK(summary.find("forward 4.000 ms, backward 5.800 ms, optimizer 0.500 ms, sum 10.300 ms") !=
        std::string::npos);
}

TEST_CASE("capture details in the provenance read back, and bad ones are refused") {
  Workload workload = test::four_layers();
  workload.provenance.capture = {"2.11.0", "H100", "13.0", "580.1", "bf16", 20, 50, 0.765, 1.5};
  std::ostringstream text;
  write_trace(workload, text);
  const Workload back = read_trace(jsonio::parse_text(text.str(), "round-trip"));
  CHECK(back.provenance.capture.precision == "bf16");
  CHECK(back.provenance.capture.timed_iterations == 50);
  CHECK(back.provenance.capture.layer_sum_ratio == 1.5);
  CHECK(trace_to_json(back) == trace_to_json(workload));
  CHECK(trace_error_after([](nlohmann::json& t) { t["provenance"]["precision"] = "fp8"; }) ==
        "t.json: provenance.precision: expected one of \"fp32\", \"amp\", \"bf16\", found \"fp8\"");
  // An instrumented run cannot take zero or negative time: overhead must exceed -1.
  CHECK(trace_error_after(
            [](nlohmann::json& t) { t["provenance"]["instrumentation_overhead"] = -1; }) ==
        "t.json: provenance.instrumentation_overhead: expected a number in (-1, 1e6], found -1");
}

TEST_CASE("measured framework overheads read back, and bad ones are refused") {
  Workload workload = test::four_layers();
  workload.framework_overheads =
      FrameworkOverheads{"ddp", "nccl", Time::from_us(180.5), Time::from_us(42.25)};
  std::ostringstream text;
  write_trace(workload, text);
  const Workload back = read_trace(jsonio::parse_text(text.str(), "round-trip"));
  REQUIRE(back.framework_overheads);
  CHECK(back.framework_overheads->backend == "nccl");
  CHECK(back.framework_overheads->per_message == Time::from_us(42.25));
  CHECK(trace_to_json(back) == trace_to_json(workload));
  CHECK(trace_summary(back).find("framework overheads (ddp on nccl): 180.500 us per iteration + "
                                 "42.250 us per message") != std::string::npos);
  CHECK(trace_error_after([](nlohmann::json& t) {
          t["framework_overheads"] = {{"wrapper", "ddp"}, {"iteration_us", -1}, {"message_us", 1}};
        }) == "t.json: framework_overheads.iteration_us: expected a number >= 0, found -1");
  CHECK(trace_error_after([](nlohmann::json& t) {
          t["framework_overheads"] = {
              {"wrapper", "ddp"}, {"iteration_us", 1}, {"message_us", 1}, {"buckets", 3}};
        }).find("framework_overheads.buckets: unknown key") != std::string::npos);
}

TEST_CASE("layer times scaled to the measured iteration keep their shares") {
  Workload workload = test::four_layers();
  workload.layers[0].gradients[0].ready_offset = Time::from_ms(5.8);
  // forward 4 ms + backward 5.8 ms = 9.8 ms of layers; measured 20.1 ms - optimizer 0.5 ms
  // leaves 19.6 ms for them: every time doubles.
  workload.measured_iteration = Time::from_ms(20.1);
  const Workload scaled = scaled_to_measured(workload, "s.json");
  CHECK(total_forward(scaled) == Time::from_ms(8.0));
  CHECK(total_backward(scaled) == Time::from_ms(11.6));
  CHECK(scaled.layers[2].backward == Time::from_ms(4.0));  // L3: 2.0 ms x 2
  CHECK(scaled.layers[0].gradients[0].ready_offset == Time::from_ms(11.6));
  CHECK(scaled.optimizer == workload.optimizer);

  workload.measured_iteration.reset();
  CHECK(test::input_error_of([&] { scaled_to_measured(workload, "s.json"); })
            .starts_with("s.json: compute.layer_times: \"scaled_to_measured\" needs a trace with "
                         "measured_iteration_us"));
  workload.measured_iteration = Time::from_ms(0.5);  // all of it is the optimizer step
  CHECK(test::input_error_of([&] {
          scaled_to_measured(workload, "s.json");
        }).starts_with("s.json: compute.layer_times: cannot scale"));
}

TEST_CASE("one GPU's measured throughput gives the iteration the layers are scaled to") {
  Workload workload = test::four_layers();
  workload.batch_size = 32;
  // 32 samples at 100 samples/s: 0.32 s; at 202.78 (horovod/horovod #416's one V100 on
  // ResNet-101, batch 64): 64 / 202.78 = 315.613 ms.
  CHECK(single_gpu_iteration(workload, 100.0, "s.json") == Time::from_ms(320.0));
  workload.batch_size = 64;
  CHECK(single_gpu_iteration(workload, 202.78, "s.json").ms() ==
        doctest::Approx(315.613).epsilon(1e-6));
  // Scaled to it: the 9.8 ms of layers fill 320 ms less the 0.5 ms optimizer step (each
  // layer's time rounded to the picosecond).
  workload.batch_size = 32;
  workload.measured_iteration = single_gpu_iteration(workload, 100.0, "s.json");
  const Workload scaled = scaled_to_measured(workload, "s.json");
  CHECK((total_forward(scaled) + total_backward(scaled) + scaled.optimizer).ms() ==
        doctest::Approx(320.0).epsilon(1e-9));
  CHECK(test::input_error_of([&] {
          single_gpu_iteration(workload, 1e-300, "s.json");
        }).find("past what sgdsim can time") != std::string::npos);
  workload.batch_size = 0;
  CHECK(test::input_error_of([&] { single_gpu_iteration(workload, 100.0, "s.json"); }) ==
        "s.json: compute.single_gpu_samples_per_s needs the trace's batch size, and "
        "four-layers has none");
}
