// The `communication.compression` and `communication.averaging` parts of a scenario, and the
// compression profile files they may name.
#include "sgdsim/scenario/communication_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

constexpr int max_levels = 1 << 20;

std::string compressor_choices() {
  return "one of \"none\", \"fp16\", \"topk\", \"randk\", \"natural\", \"natural_dithering\", "
         "\"standard_dithering\" (or \"qsgd\"), \"topk_natural_dithering\", \"sign\", \"ratio\"";
}

CompressionChoice read_compressor(const nlohmann::json& value, const std::string& source,
                                  const std::string& path) {
  CompressionChoice choice;
  CompressorSpec& spec = choice.spec;
  if (value.is_number()) {  // a bare ratio
    if (!(value.get<double>() > 0.0) || value.get<double>() > 1.0) {
      throw value_error(source, path, "a compression ratio in (0, 1] or a compressor object",
                        jsonio::describe(value));
    }
    spec.kind = CompressorKind::ratio;
    spec.ratio = value.get<double>();
    return choice;
  }
  jsonio::ObjectReader reader(value, source, path);
  const nlohmann::json& name = reader.value("name");
  const auto kind = name.is_string() ? parse_compressor(name.get<std::string>()) : std::nullopt;
  if (!kind) reader.fail("name", compressor_choices(), name);
  spec.kind = *kind;
  switch (spec.kind) {
    case CompressorKind::topk:
    case CompressorKind::randk: spec.density = reader.fraction("density"); break;
    case CompressorKind::natural_dithering:
    case CompressorKind::standard_dithering:
      spec.levels = static_cast<int>(reader.integer_in("levels", 1, max_levels));
      break;
    case CompressorKind::topk_natural_dithering:
      spec.density = reader.fraction("density");
      spec.levels = static_cast<int>(reader.integer_in("levels", 1, max_levels));
      break;
    case CompressorKind::ratio: spec.ratio = reader.fraction("ratio"); break;
    default: break;
  }
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

std::vector<std::pair<int, int>> read_breakpoints(jsonio::ObjectReader& reader, int run) {
  const nlohmann::json& list = reader.value("breakpoints");
  const std::string path = reader.path_of("breakpoints");
  const char* shape = "a non-empty array of [from_iteration, period] pairs";
  if (!list.is_array() || list.empty()) reader.fail("breakpoints", shape, list);
  std::vector<std::pair<int, int>> breakpoints;
  for (std::size_t index = 0; index < list.size(); ++index) {
    const nlohmann::json& pair = list[index];
    const std::string at = jsonio::element_path(path, index);
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
        !pair[1].is_number_integer()) {
      throw value_error(reader.source(), at, "[from_iteration, period] with two integers",
                        jsonio::describe(pair));
    }
    const int from = pair[0].get<int>();
    const int period = pair[1].get<int>();
    const int first = breakpoints.empty() ? 1 : breakpoints.back().first + 1;
    if (breakpoints.empty() ? from != 1 : (from < first || from > run)) {
      throw value_error(
          reader.source(), at + "[0]",
          breakpoints.empty()
              ? std::string("1 (the first breakpoint starts the run)")
              : fmt::format("an iteration from {} to {} (run_iterations)", first, run),
          std::to_string(from));
    }
    if (period < 1) {
      throw value_error(reader.source(), at + "[1]", "a period >= 1", std::to_string(period));
    }
    breakpoints.emplace_back(from, period);
  }
  return breakpoints;
}

AveragingSpec read_schedule(jsonio::ObjectReader reader, int run) {
  AveragingSpec spec;
  const std::string kind =
      reader.choice_or("schedule", {"every_iteration", "constant", "adaptive"}, "");
  if (kind.empty()) {
    reader.fail("schedule", "one of \"every_iteration\", \"constant\", \"adaptive\"",
                reader.value("schedule"));
  }
  if (kind == "constant") {
    spec.kind = AveragingKind::constant;
    spec.period = static_cast<int>(reader.integer_in("period", 1, run));
  } else if (kind == "adaptive") {
    spec.kind = AveragingKind::adaptive;
    if (reader.has("breakpoints")) {
      spec.breakpoints = read_breakpoints(reader, run);
    } else {
      spec.budget = static_cast<int>(reader.integer_in("budget", 1, run));
      spec.warmup_iterations =
          static_cast<int>(reader.integer_in_or("warmup_iterations", 0, spec.budget, 0));
      const std::string rule =
          reader.choice_or("rule", {"uniform", "linear", "geometric"}, "linear");
      spec.rule = rule == "uniform"  ? GrowthRule::uniform
                  : rule == "linear" ? GrowthRule::linear
                                     : GrowthRule::geometric;
      if (spec.rule == GrowthRule::geometric) {
        spec.growth_factor = reader.positive_number_or("growth_factor", 1.05);
        if (spec.growth_factor <= 1.0) {
          reader.fail("growth_factor", "a number > 1", spec.growth_factor);
        }
      }
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
  config.run_iterations = static_cast<int>(reader.integer_in("run_iterations", 1, 100'000'000));
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
    const auto kind = parse_compressor(name);
    if (!kind) {
      throw value_error(document.source, compressors.path_of(name), compressor_choices(),
                        "\"" + name + "\"");
    }
    jsonio::ObjectReader costs = compressors.object(name);
    CompressorCosts entry;
    if (costs.has("encode_us")) entry.encode = read_curve(costs, "encode_us");
    if (costs.has("decode_us")) entry.decode = read_curve(costs, "decode_us");
    costs.reject_unknown_keys();
    profile[*kind] = std::move(entry);
  }
  reader.reject_unknown_keys();
  return profile;
}

}  // namespace sgdsim
