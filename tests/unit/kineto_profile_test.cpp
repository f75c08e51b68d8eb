// Tests for trace_io/kineto_profile.hpp on tests/data/kineto_mini.json, a hand-made profile in
// the PyTorch profiler's Chrome-trace layout (tests/data/README.md). Its one iteration, in us:
//
//   forward (thread 1)                     GPU kernel      backward (thread 2)    GPU kernel
//   conv2d  weight [4,3,3,3]  seq 10       10-20           AddmmBackward0 -> linear   42-46
//   relu                      seq 11       20-25             AccumulateGrad [10,256] ends 47
//   linear  weight [10,256],  seq 12       30-32             AccumulateGrad [10]     ends 48.5
//           bias [10]                                      ReluBackward0 -> relu      50-53
//   optimizer (Optimizer.step annotation)  73-75           ConvolutionBackward0       55-61
//                                                            AccumulateGrad [4,3,3,3] ends 60
//
// Layers: conv2d takes a parameter and starts layer conv2d_0, relu joins it, linear starts
// linear_0. Kernel ("busy") time: conv2d_0 forward 10 + 5 = 15, backward 3 + 6 = 9; linear_0
// forward 2, backward 4; optimizer 2; all 32 us of kernels. On the timeline each kernel is
// charged the GPU's idle time before it: linear's forward kernel 32 - 25 = 7, AddmmBackward's
// 46 - 32 = 14, relu's backward 53 - 46 = 7, conv's 61 - 53 = 8, the optimizer's 75 - 61 = 14;
// the charges add up to the 65 us span (10 to 75). Backward starts on the timeline at 32.
// Readiness: the linear gradients are stored at host time 47 and 48.5, when the last kernel
// launched (AddmmBackward's, at 41) ends at 46: 46 - 32 = 14 on the timeline, 4 us of backward
// kernels; conv2d's weight at 60, after the kernel launched at 55 ends at 61: 29 on the timeline,
// 4 + 3 + 6 = 13 of kernels.
#include <doctest/doctest.h>

#include "printers.hpp"

#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "sgdsim/core/error.hpp"
#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/trace_io/kineto_profile.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"
#include "sgdsim/trace_io/trace_writer.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

ImportRequest batch_of_two() {
  ImportRequest options;
  options.batch = 2;
  return options;
}

nlohmann::json mini_profile() {
  return jsonio::parse_file(test::data_path("kineto_mini.json")).root;
}

std::filesystem::path write_profile(const std::string& name, const std::string& bytes) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string gzip_of(const std::string& text) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "sgdsim_mini.gz";
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, text.data(), static_cast<unsigned>(text.size()));
  gzclose(file);
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Workload import_file(const std::filesystem::path& path, ImportRequest options = batch_of_two()) {
  options.input = path;
  return import_kineto_profile(options);
}

Workload import_text(const std::string& text, const ImportRequest& options = batch_of_two()) {
  return import_file(write_profile("sgdsim_kineto_test.json", text), options);
}

std::string import_error(const std::string& text, const ImportRequest& options = batch_of_two()) {
  return test::input_error_of([&] { import_text(text, options); });
}

// A complete ("X") event of category `cat` on the forward thread.
nlohmann::json host_event(const char* cat, const char* name, double ts, double dur) {
  return {{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 1},
          {"tid", 1},  {"ts", ts},   {"dur", dur},   {"args", nlohmann::json::object()}};
}

// The mini profile without the events `drop` selects.
std::string without(const std::function<bool(const nlohmann::json&)>& drop) {
  nlohmann::json profile = mini_profile();
  nlohmann::json kept = nlohmann::json::array();
  for (const nlohmann::json& event : profile["traceEvents"]) {
    if (!drop(event)) kept.push_back(event);
  }
  profile["traceEvents"] = kept;
  return profile.dump();
}

}  // namespace

TEST_CASE("a profile's kernels, links and readiness become layers as worked out by hand") {
  const Workload workload = import_text(mini_profile().dump());
  REQUIRE(workload.layers.size() == 2);
  const Layer& conv = workload.layers[0];
  const Layer& linear = workload.layers[1];
  CHECK(conv.name == "conv2d_0");
  CHECK(linear.name == "linear_0");
  CHECK(conv.forward == Time::from_us(15));
  CHECK(conv.backward == Time::from_us(9));
  CHECK(linear.forward == Time::from_us(2));
  CHECK(linear.backward == Time::from_us(4));
  CHECK(workload.optimizer == Time::from_us(2));
  CHECK(conv.forward_wall == Time::from_us(15));
  CHECK(conv.backward_wall == Time::from_us(15));
  CHECK(linear.forward_wall == Time::from_us(7));
  CHECK(linear.backward_wall == Time::from_us(14));
  CHECK(workload.optimizer_wall == Time::from_us(14));
  REQUIRE(conv.gradients.size() == 1);
  REQUIRE(linear.gradients.size() == 2);
  CHECK(conv.gradients[0].name == "conv2d_0.weight");
  CHECK(conv.gradients[0].elements == 4 * 3 * 3 * 3);
  CHECK(conv.gradients[0].ready_offset == Time::from_us(13));
  CHECK(conv.gradients[0].ready_wall_offset == Time::from_us(29));
  CHECK(linear.gradients[0].name == "linear_0.weight");
  CHECK(linear.gradients[0].elements == 10 * 256);
  CHECK(linear.gradients[1].name == "linear_0.bias");
  CHECK(linear.gradients[1].ready_offset == Time::from_us(4));
  CHECK(linear.gradients[1].ready_wall_offset == Time::from_us(14));
  CHECK(workload.device == "Test GPU");
  CHECK(workload.gradient_dtype == "fp32");
  CHECK(workload.provenance.method == "imported");
  // What the importer writes, sgdsim reads back as it was.
  const Workload again = read_trace(jsonio::parse_text(trace_to_json(workload).dump(), "t.json"));
  CHECK(again.layers[1].backward_wall == Time::from_us(14));
  CHECK(again.layers[0].gradients[0].ready_wall_offset == Time::from_us(29));
  CHECK(again.optimizer_wall == Time::from_us(14));
  CHECK(consistency_warnings(again).empty());
}

TEST_CASE("a profile reads the same compressed") {
  const Workload plain = import_text(mini_profile().dump());
  const Workload packed =
      import_file(write_profile("sgdsim_kineto_test.json.gz", gzip_of(mini_profile().dump())));
  CHECK(packed.layers[0].backward == plain.layers[0].backward);
  CHECK(total_gradient_elements(packed) == total_gradient_elements(plain));
}

TEST_CASE("module frames make nn.Modules the layers") {
  // Frames around the forward operators: Conv2d_0 around conv2d and relu, Linear_0 around
  // linear. The layers take the frames' names; times and readiness stay as without them.
  nlohmann::json profile = mini_profile();
  profile["traceEvents"].push_back(host_event("python_function", "nn.Module: Conv2d_0", 0.5, 8));
  profile["traceEvents"].push_back(host_event("python_function", "nn.Module: Linear_0", 8.8, 4));
  const Workload workload = import_text(profile.dump());
  REQUIRE(workload.layers.size() == 2);
  CHECK(workload.layers[0].name == "Conv2d_0");
  CHECK(workload.layers[1].name == "Linear_0");
  CHECK(workload.layers[1].gradients[0].name == "Linear_0.weight");
  CHECK(workload.layers[0].forward == Time::from_us(15));
}

TEST_CASE("the gradients must add up to the parameter count given") {
  // 108 + 2,560 + 10 = 2,678 elements.
  ImportRequest options = batch_of_two();
  options.parameter_count = 2678;
  CHECK(import_text(mini_profile().dump(), options).parameter_count == 2678);
  options.parameter_count = 2679;
  CHECK(import_error(mini_profile().dump(), options).find("2678 elements, the model has 2679") !=
        std::string::npos);
}

TEST_CASE("bad profiles are refused, naming the file and what is missing") {
  CHECK(import_error("{\"a\": 1}").find("not a Chrome trace") != std::string::npos);
  CHECK(import_error("not json").find("sgdsim_kineto_test.json") != std::string::npos);
  const std::string packed = gzip_of(mini_profile().dump());
  const std::string truncated = test::input_error_of([&] {
    import_file(write_profile("sgdsim_cut.json.gz", packed.substr(0, packed.size() / 2)));
  });
  CHECK(truncated.find("sgdsim_cut.json.gz: not a readable gzip file (truncated)") !=
        std::string::npos);
  const auto category = [](const char* name) {
    return [name](const nlohmann::json& e) { return e.value("cat", "") == name; };
  };
  CHECK(import_error(without(category("kernel"))).find("no kernels") != std::string::npos);
  CHECK(import_error(without([](const nlohmann::json& e) {
          return e.value("name", "").starts_with("autograd::") ||
                 e.value("name", "").starts_with("torch::autograd");
        })).find("no training step found") != std::string::npos);
  nlohmann::json no_shapes = mini_profile();
  for (nlohmann::json& event : no_shapes["traceEvents"]) {
    if (event.contains("args")) event["args"].erase("Input Dims");
  }
  CHECK(import_error(no_shapes.dump()).find("record_shapes=True") != std::string::npos);
  CHECK(import_error(without(category("cpu_op"))).find("no CPU operators") != std::string::npos);
}

TEST_CASE("wall times replace the kernel times when a scenario asks for them") {
  const Workload wall = on_wall_clock(import_text(mini_profile().dump()), "s.json");
  CHECK(wall.layers[0].backward == Time::from_us(15));
  CHECK(wall.layers[0].gradients[0].ready_offset == Time::from_us(29));
  CHECK(wall.optimizer == Time::from_us(14));
  CHECK(test::input_error_of([] {
          on_wall_clock(test::four_layers(), "s.json");
        }).find("\"wall\" needs a trace with the GPU timeline's times") != std::string::npos);
}

TEST_CASE("consistency warnings give the numbers") {
  Workload workload = test::four_layers();  // backward 5.8 ms
  workload.layers[0].gradients[0].ready_offset = Time::from_ms(6.0);
  const std::vector<std::string> warnings = consistency_warnings(workload);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("at 6.000 ms, backward takes 5.800 ms") != std::string::npos);
  // Forward 4 + backward 5.8 + optimizer 0.5 = 10.3 ms against a measured 9 ms: 1.14x.
  workload.layers[0].gradients[0].ready_offset.reset();
  workload.measured_iteration = Time::from_ms(9.0);
  const std::vector<std::string> inflated = consistency_warnings(workload);
  REQUIRE(inflated.size() == 1);
  CHECK(inflated[0].find("10.300 ms, 1.14x the measured iteration of 9.000 ms") !=
        std::string::npos);
}

TEST_CASE("profiles that cannot be attributed or held are refused, not imported as zeros") {
  // Launches without correlation ids: no kernel can be joined to an operator.
  nlohmann::json unlinked = mini_profile();
  for (nlohmann::json& event : unlinked["traceEvents"]) {
    if (event.value("cat", "") == "cuda_runtime") event["args"].erase("correlation");
  }
  CHECK(import_error(unlinked.dump()).find("no GPU kernel is joined to its launch") !=
        std::string::npos);
  // An event of 10^15 us (31 years): corrupt, refused as bad input.
  nlohmann::json long_event = mini_profile();
  long_event["traceEvents"][1]["dur"] = 1e15;
  CHECK(import_error(long_event.dump()).find("expected 0 to 8.64e+10 us (a day)") !=
        std::string::npos);
  // A gradient of a type sgdsim does not carry.
  const std::string doubles = [] {
    std::string text = mini_profile().dump();
    const std::string from = R"(["float"])";
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + 1))
      text.replace(at, from.size(), R"(["double"])");
    return text;
  }();
  CHECK(import_error(doubles).find("a type sgdsim does not carry") != std::string::npos);
}

TEST_CASE("a ProfilerStep annotation recorded twice is one iteration") {
  nlohmann::json profile = mini_profile();
  profile["traceEvents"].push_back(host_event("user_annotation", "ProfilerStep#0", 0.5, 99));
  // Counted twice, the one iteration would be averaged with itself: the times would not
  // change, the count would (2).
  const Workload workload = import_text(profile.dump());
  CHECK(workload.provenance.capture.timed_iterations == 1);
  CHECK(workload.layers[0].forward == Time::from_us(15));
}
