// The `communication.compression` and `communication.averaging` parts of a scenario, and the
// compression profile files they may name.
#include "sgdsim/scenario/communication_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sgdsim/core/error.hpp"
#include "sgdsim/jsonio/declared_keys.hpp"
#include "sgdsim/scenario/registry_reader.hpp"

namespace sgdsim {

namespace {

CompressionChoice read_compressor(const nlohmann::json& value, const std::string& source,
                                  const std::string& path) {
  CompressionChoice choice;
  if (value.is_number()) {  // a bare ratio
    if (!(value.get<double>() > 0.0) || value.get<double>() > 1.0) {
      throw value_error(source, path, "a compression ratio in (0, 1] or a compressor object",
                        jsonio::describe(value));
    }
    Settings settings;
    settings.set("ratio", value.get<double>());
    choice.spec = make_compressor("ratio", settings);
    return choice;
  }
  jsonio::ObjectReader reader(value, source, path);
  const CompressorEntry& entry = read_member(reader, "name", compressor_registry());
  CompressorSpec& spec = choice.spec;
  spec.compressor = entry.make(jsonio::read_settings(reader, entry.keys));
  const std::string aggregation =
      reader.choice_or("aggregation", {"automatic", "allreduce", "gather"}, "automatic");
  spec.aggregation = aggregation == "automatic"   ? Aggregation::automatic
                     : aggregation == "allreduce" ? Aggregation::allreduce
                                                  : Aggregation::gather;
  if (spec.aggregation == Aggregation::allreduce && per_worker_sparse(spec)) {
    reader.fail("aggregation",
                "\"gather\" or \"automatic\" (each worker keeps its own coordinates, so these "
                "messages cannot be summed inside an allreduce)",
                reader.value("aggregation"));
  }
  if (reader.has("iterations_to_target")) {
    choice.iterations_to_target = reader.integer_in("iterations_to_target", 1, 1'000'000'000);
  }
  reader.reject_unknown_keys();
  return choice;
}

AveragingSpec read_schedule(jsonio::ObjectReader reader, int run) {
  AveragingSpec spec;
  spec.schedule = &read_member(reader, "schedule", averaging_registry());
  spec.settings = jsonio::read_settings(reader, spec.schedule->keys);
  if (spec.schedule->check) {
    if (const auto problem = spec.schedule->check(spec.settings, run)) {
      throw value_error(reader.source(), reader.path_of(problem->key), problem->expected,
                        problem->found);
    }
  }
  if (reader.has("iterations_to_target")) {
    spec.iterations_to_target = reader.integer_in("iterations_to_target", 1, run);
  }
  reader.reject_unknown_keys();
  return spec;
}

CostCurve read_curve(jsonio::ObjectReader& reader, std::string_view key) {
  const nlohmann::json& list = reader.value(key);
  const char* shape = "a non-empty array of [elements, microseconds] with elements increasing";
  if (!list.is_array() || list.empty()) reader.fail(key, shape, list);
  std::vector<std::pair<std::int64_t, Time>> points;
  for (std::size_t index = 0; index < list.size(); ++index) {
    const nlohmann::json& point = list[index];
    const bool valid = point.is_array() && point.size() == 2 && point[0].is_number_integer() &&
                       point[1].is_number() && point[0].get<std::int64_t>() >= 1 &&
                       point[1].get<double>() >= 0.0 &&
                       (points.empty() || point[0].get<std::int64_t>() > points.back().first);
    if (!valid) {
      throw value_error(reader.source(), jsonio::element_path(reader.path_of(key), index), shape,
                        jsonio::describe(point));
    }
    points.emplace_back(point[0].get<std::int64_t>(), Time::from_us(point[1].get<double>()));
  }
  return CostCurve(std::move(points));
}

}  // namespace

std::vector<CompressionChoice> read_compressions(const nlohmann::json& value,
                                                 const std::string& source,
                                                 const std::string& path) {
  std::vector<CompressionChoice> specs;
  if (value.is_array()) {
    if (value.empty()) {
      throw value_error(source, path, "a compressor or a non-empty list of them", "an empty array");
    }
    for (std::size_t index = 0; index < value.size(); ++index) {
      specs.push_back(read_compressor(value[index], source, jsonio::element_path(path, index)));
    }
  } else {
    specs.push_back(read_compressor(value, source, path));
  }
  return specs;
}

void read_averaging(jsonio::ObjectReader reader, ScenarioConfig& config) {
  config.run_iterations = static_cast<int>(reader.integer_in("run_iterations", 1, 10'000'000));
  const nlohmann::json& list = reader.value("schedules");
  if (!list.is_array() || list.empty()) {
    reader.fail("schedules", "a non-empty array of averaging schedules", list);
  }
  for (std::size_t index = 0; index < list.size(); ++index) {
    config.schedules.push_back(read_schedule(
        jsonio::ObjectReader(list[index], reader.source(),
                             jsonio::element_path(reader.path_of("schedules"), index)),
        config.run_iterations));
  }
  reader.reject_unknown_keys();
}

CompressionProfile read_compression_profile(const jsonio::Document& document) {
  jsonio::ObjectReader reader(document.root, document.source, "");
  if (reader.text_or("format", "") != "sgdsim-compression-profile") {
    throw value_error(document.source, "format", "\"sgdsim-compression-profile\"",
                      reader.has("format") ? jsonio::describe(reader.value("format")) : "nothing");
  }
  reader.integer_in("schema_version", 1, 1);
  reader.text_or("device", "");
  reader.text_or("description", "");
  if (reader.has("copies")) {  // host<->device copy times: checked, informational for now
    jsonio::ObjectReader copies = reader.object("copies");
    for (const char* key : {"host_to_device_us", "device_to_host_us"}) {
      if (copies.has(key)) read_curve(copies, key);
    }
    copies.reject_unknown_keys();
  }
  jsonio::ObjectReader compressors = reader.object("compressors");
  CompressionProfile profile;
  for (const auto& [name, unused] : document.root["compressors"].items()) {
    if (compressor_registry().find(name) == nullptr) {
      throw value_error(document.source, compressors.path_of(name), compressor_registry().choices(),
                        "\"" + name + "\"");
    }
    jsonio::ObjectReader costs = compressors.object(name);
    CompressorCosts entry;
    if (costs.has("encode_us")) entry.encode = read_curve(costs, "encode_us");
    if (costs.has("decode_us")) entry.decode = read_curve(costs, "decode_us");
    costs.reject_unknown_keys();
    profile[compressor_registry().find(name)->name] = std::move(entry);
  }
  reader.reject_unknown_keys();
  return profile;
}

}  // namespace sgdsim
