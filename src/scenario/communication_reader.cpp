// The `communication.compression` and `communication.averaging` parts of a scenario, and the
// compression profile files they may name.
#include "sgdsim/scenario/communication_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

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

namespace {

// Bytes of optimizer state per parameter (the ZeRO paper's K): Adam keeps two fp32 moments,
// momentum SGD one, plain SGD none; with 2-byte parameters (mixed precision) an fp32 master
// copy of 4 bytes too (Rajbhandari et al. 2020, section 3.1: K = 12 for mixed-precision Adam).
double optimizer_state_bytes(const std::string& optimizer, int parameter_bytes) {
  const double moments = optimizer == "adam" ? 8.0 : optimizer == "sgd_momentum" ? 4.0 : 0.0;
  return moments + (parameter_bytes < 4 ? 4.0 : 0.0);
}

}  // namespace

void read_sharding(jsonio::ObjectReader reader, ScenarioConfig& config) {
  ShardingSpec spec;
  if (reader.has("strategy")) {
    const nlohmann::json& value = reader.value("strategy");
    const std::string path = reader.path_of("strategy");
    if (value.is_array()) {
      if (value.empty()) reader.fail("strategy", "a strategy or a non-empty list of them", value);
      for (std::size_t index = 0; index < value.size(); ++index) {
        spec.strategies.push_back(read_member(value[index], reader.source(),
                                              jsonio::element_path(path, index),
                                              sharding_registry())
                                      .strategy);
      }
    } else {
      spec.strategies.push_back(
          read_member(value, reader.source(), path, sharding_registry()).strategy);
    }
  } else {
    for (const ShardingEntry& entry : sharding_registry().entries()) {
      spec.strategies.push_back(entry.strategy);
    }
  }
  ShardingSettings& settings = spec.settings;
  settings.gpus = config.gpus;
  settings.group_gpus = static_cast<int>(reader.integer_in_or(
      "group_gpus", 1, config.gpus, std::min(config.gpus_per_node, config.gpus)));
  if (config.gpus % settings.group_gpus != 0) {
    reader.fail("group_gpus",
                fmt::format("a shard group size that divides the {} GPUs", config.gpus),
                settings.group_gpus);
  }
  const bool hybrid = std::find(spec.strategies.begin(), spec.strategies.end(),
                                ShardingStrategy::hybrid_shard) != spec.strategies.end();
  if (hybrid && settings.group_gpus % config.gpus_per_node != 0 &&
      config.gpus_per_node % settings.group_gpus != 0 && settings.group_gpus != config.gpus) {
    reader.fail("group_gpus",
                fmt::format("a divisor or a multiple of the {} GPUs per node (HYBRID_SHARD "
                            "shards inside a node or inside whole nodes, and replicates across "
                            "the groups)",
                            config.gpus_per_node),
                settings.group_gpus);
  }
  if (reader.has("units")) {
    const nlohmann::json& units = reader.value("units");
    if (units.is_array() && !units.empty() &&
        std::all_of(units.begin(), units.end(), [](const nlohmann::json& u) {
          return u.is_string() && !u.get<std::string>().empty();
        })) {
      for (const nlohmann::json& unit : units)
        spec.unit_prefixes.push_back(unit.get<std::string>());
    } else if (units.is_string() && std::find(unit_modes().begin(), unit_modes().end(),
                                              units.get<std::string>()) != unit_modes().end()) {
      spec.units = units.get<std::string>();
    } else {
      reader.fail("units",
                  fmt::format("\"{}\" or a non-empty array of layer-name prefixes",
                              fmt::join(unit_modes(), "\", \"")),
                  units);
    }
  }
  settings.forward_prefetch = static_cast<int>(reader.integer_in_or("forward_prefetch", 0, 64, 1));
  settings.backward_prefetch =
      static_cast<int>(reader.integer_in_or("backward_prefetch", 0, 64, 1));
  settings.gathered_limit = static_cast<int>(reader.integer_in_or("limit_all_gathers", 0, 64, 2));
  if (settings.gathered_limit == 1) {
    reader.fail("limit_all_gathers",
                "0 (no limit) or at least 2 (the unit computing and the next being gathered)",
                settings.gathered_limit);
  }
  if (reader.has("parameter_dtype")) {
    spec.parameter_dtype = reader.choice_or("parameter_dtype", gradient_dtypes(), "fp32");
  }
  spec.optimizer = reader.choice_or("optimizer", {"adam", "sgd_momentum", "sgd"}, "adam");
  constexpr std::int64_t deepspeed_bucket = 500'000'000;  // DeepSpeed's default, in elements
  settings.reduce_bucket_elements =
      reader.integer_in_or("reduce_bucket_elements", 1, std::int64_t{1} << 40, deepspeed_bucket);
  settings.allgather_bucket_elements =
      reader.integer_in_or("allgather_bucket_elements", 1, std::int64_t{1} << 40, deepspeed_bucket);
  settings.no_sync = reader.choice_or("accumulation", accumulation_modes(),
                                      accumulation_modes().front()) != accumulation_modes().front();
  reader.reject_unknown_keys();
  if (!config.collective->shards) {
    throw InputError(fmt::format(
        "{}: {}: the {} collective has no reduce-scatter or allgather of its own, which "
        "sharded data parallelism runs on; use ring_allreduce, halving_doubling or hierarchical",
        reader.source(), reader.path(), config.collective->name));
  }
  for (const CompressionChoice& choice : config.compressions) {
    if (!choice.spec.is_none()) {
      throw InputError(fmt::format(
          "{}: {}: sharded strategies with communication.compression: the strategies move "
          "parameters and gradients uncompressed; compare compressors without a sharding section",
          reader.source(), reader.path()));
    }
  }
  config.sharding = std::move(spec);
}

void complete_sharding(ShardingSpec& spec, int trace_bytes_per_element) {
  ShardingSettings& settings = spec.settings;
  settings.parameter_bytes =
      spec.parameter_dtype.empty() ? trace_bytes_per_element : dtype_bytes(spec.parameter_dtype);
  settings.optimizer_state_bytes = optimizer_state_bytes(spec.optimizer, settings.parameter_bytes);
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
