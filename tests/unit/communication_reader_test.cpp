// Tests for scenario/communication_reader.hpp: compression and averaging keys, verbatim errors.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

nlohmann::json minimal_scenario() {
  return nlohmann::json::parse(R"({"trace": "four_layers.json", "cluster": {"gpus": 8},
                                   "network": {"bandwidth_gbps": 10}})");
}

ScenarioConfig read_config(const nlohmann::json& scenario) {
  return read_scenario(jsonio::parse_text(scenario.dump(), "s.json"), SGDSIM_TEST_DATA);
}

std::string config_error_of(const nlohmann::json& scenario) {
  return test::input_error_of([&] { read_config(scenario); });
}

nlohmann::json with_communication(const char* key, const nlohmann::json& value) {
  nlohmann::json scenario = minimal_scenario();
  scenario["communication"][key] = value;
  return scenario;
}

nlohmann::json with_schedule(const nlohmann::json& schedule) {
  return with_communication(
      "averaging", {{"run_iterations", 100}, {"schedules", nlohmann::json::array({schedule})}});
}

}  // namespace

TEST_CASE("compressors are read by name, as a bare ratio, or as a list") {
  const ScenarioConfig config = read_config(
      with_communication("compression", nlohmann::json::parse(R"([{"name": "topk", "density": 0.01},
        {"name": "qsgd", "levels": 16}, 0.25, {"name": "natural"}])")));
  REQUIRE(config.compressions.size() == 4);
  CHECK(config.compressions[0].spec.compressor->name() == "topk");
  CHECK(config.compressions[1].spec.compressor->name() == "standard_dithering");
  CHECK(config.compressions[1].spec.compressor->label() == "standard_dithering(levels=16)");
  CHECK(config.compressions[2].spec.compressor->label() == "ratio(0.25)");
  CHECK(config.compressions[3].spec.compressor->name() == "natural");
}

TEST_CASE("a density outside (0, 1] is refused") {
  CHECK(config_error_of(with_communication("compression", {{"name", "topk"}, {"density", 1.5}})) ==
        "s.json: communication.compression.density: expected a number in (0, 1], found 1.5");
  CHECK(config_error_of(with_communication("compression", {{"name", "randk"}, {"density", 0}})) ==
        "s.json: communication.compression.density: expected a number in (0, 1], found 0");
  CHECK(config_error_of(with_communication("compression", 0)) ==
        "s.json: communication.compression: expected a compression ratio in (0, 1] or a "
        "compressor object, found 0");
}

TEST_CASE("an unknown compressor is refused with the list") {
  CHECK(
      config_error_of(
          with_communication("compression", nlohmann::json::array({{{"name", "top-k"}}}))) ==
      "s.json: communication.compression[0].name: expected one of \"none\", \"fp16\", \"topk\", "
      "\"randk\", \"natural\", \"natural_dithering\", \"standard_dithering\" (or \"qsgd\"), "
      "\"topk_natural_dithering\", \"sign\", \"ratio\", found \"top-k\" (did you mean \"topk\"?)");
}

TEST_CASE("a dithering compressor needs its levels") {
  CHECK(config_error_of(with_communication("compression", {{"name", "natural_dithering"}})) ==
        "s.json: communication.compression.levels: expected an integer from 1 to 1048576, found "
        "nothing (this key is required)");
}

TEST_CASE("a period of 0 is refused") {
  CHECK(config_error_of(with_schedule({{"schedule", "constant"}, {"period", 0}})) ==
        "s.json: communication.averaging.schedules[0].period: expected an integer from 1 to "
        "10000000, found 0");
  // Within the declared range but longer than the run (run_iterations is 100 here).
  CHECK(config_error_of(with_schedule({{"schedule", "constant"}, {"period", 101}})) ==
        "s.json: communication.averaging.schedules[0].period: expected an integer from 1 to 100, "
        "found 101");
}

TEST_CASE("a budget larger than the run is refused") {
  CHECK(config_error_of(with_schedule({{"schedule", "adaptive"}, {"budget", 101}})) ==
        "s.json: communication.averaging.schedules[0].budget: expected an integer from 1 to 100, "
        "found 101");
  CHECK(config_error_of(
            with_schedule({{"schedule", "adaptive"}, {"budget", 10}, {"warmup_iterations", 11}})) ==
        "s.json: communication.averaging.schedules[0].warmup_iterations: expected an integer from "
        "0 to 10, found 11");
}

TEST_CASE("breakpoints must start at iteration 1 and increase") {
  CHECK(config_error_of(with_schedule({{"schedule", "adaptive"}, {"breakpoints", {{5, 2}}}})) ==
        "s.json: communication.averaging.schedules[0].breakpoints[0][0]: expected 1 (the first "
        "breakpoint starts the run), found 5");
  CHECK(config_error_of(
            with_schedule({{"schedule", "adaptive"}, {"breakpoints", {{1, 2}, {1, 4}}}})) ==
        "s.json: communication.averaging.schedules[0].breakpoints[1][0]: expected an iteration "
        "from 2 to 100 (run_iterations), found 1");
}

TEST_CASE("a compression profile is read from its file") {
  const ScenarioConfig config =
      read_config(with_communication("compression_profile", "profile_small.json"));
  REQUIRE(config.compression_profile.contains("topk"));
  // tests/data/profile_small.json: topk encode 100 us at 1024 elements, 400 us at 4096.
  CHECK(config.compression_profile.at("topk").encode.at(2048) == Time::from_us(200.0));
}

TEST_CASE("top-k cannot be summed inside an allreduce") {
  CHECK(config_error_of(with_communication(
            "compression", {{"name", "topk"}, {"density", 0.01}, {"aggregation", "allreduce"}})) ==
        "s.json: communication.compression.aggregation: expected \"gather\" or \"automatic\" (each "
        "worker keeps its own coordinates, so these messages cannot be summed inside an "
        "allreduce), found \"allreduce\"");
}
