// Strict JSON reading with path-qualified messages, and a "did you mean" for misspelt keys.
#include "sgdsim/jsonio/json_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"
#include "sgdsim/core/registry.hpp"

namespace sgdsim::jsonio {

namespace {

// Builds the document in one pass, refusing what nlohmann accepts silently: a key given twice in
// one object (the last would win) and nesting deeper than max_json_depth (which no sgdsim file
// needs, and which would make later recursive walks overflow the stack). The events go on to
// nlohmann's own DOM builder, which also throws its parse errors; its callback parser is not
// used, as it re-scans the enclosing array each time an object in it ends (quadratic on a
// profile's 10^5 events).
class StrictnessCheck {
 public:
  using Json = nlohmann::json;
  StrictnessCheck(const std::string& source, Json& root) : source_(source), build_(root) {}

  bool null() { return value() && build_.null(); }
  bool boolean(bool x) { return value() && build_.boolean(x); }
  bool number_integer(Json::number_integer_t x) { return value() && build_.number_integer(x); }
  bool number_unsigned(Json::number_unsigned_t x) { return value() && build_.number_unsigned(x); }
  bool number_float(Json::number_float_t x, const Json::string_t& text) {
    return value() && build_.number_float(x, text);
  }
  bool string(Json::string_t& x) { return value() && build_.string(x); }
  bool binary(Json::binary_t& x) { return value() && build_.binary(x); }
  bool start_object(std::size_t elements) { return open(true) && build_.start_object(elements); }
  bool start_array(std::size_t elements) { return open(false) && build_.start_array(elements); }
  bool key(Json::string_t& name) {
    Frame& frame = frames_.back();
    frame.key = name;
    if (!frame.keys.insert(frame.key).second) {
      throw InputError(fmt::format(
          "{}: {}: key given twice in the same object (the second would silently replace the "
          "first); keep one",
          source_, path()));
    }
    return build_.key(name);
  }
  bool end_object() { return close() && build_.end_object(); }
  bool end_array() { return close() && build_.end_array(); }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
    return build_.parse_error(position, token, error);  // throws it
  }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    std::size_t index;
  };

  bool open(bool object) {
    if (frames_.size() > static_cast<std::size_t>(max_json_depth)) {  // enclosing containers
      throw InputError(
          fmt::format("{}: nested deeper than {} levels at {}", source_, max_json_depth, path()));
    }
    frames_.push_back(Frame{object, {}, {}, 0});
    return true;
  }

  bool close() {
    frames_.pop_back();
    return value();
  }

  bool value() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }

  std::string path() const {
    std::string out;
    for (const Frame& frame : frames_) {
      if (frame.object) {
        if (!out.empty()) out += '.';
        out += frame.key;
      } else {
        out += fmt::format("[{}]", frame.index);
      }
    }
    return out.empty() ? "(top level)" : out;
  }

  const std::string& source_;
  nlohmann::detail::json_sax_dom_parser<Json> build_;
  std::vector<Frame> frames_;
};

}  // namespace

Document parse_text(std::string_view text, std::string source) {
  try {
    nlohmann::json root;
    StrictnessCheck check(source, root);
    nlohmann::json::sax_parse(text, &check);
    return Document{std::move(source), std::move(root)};
  } catch (const nlohmann::json::out_of_range& error) {
    // "[json.exception.out_of_range.406] number overflow parsing '1e400'"
    std::string detail = error.what();
    if (const auto at = detail.find("] "); at != std::string::npos) detail = detail.substr(at + 2);
    throw InputError(fmt::format("{}: {} (a number beyond the range of a double)", source, detail));
  } catch (const nlohmann::json::parse_error& error) {
    // nlohmann's text is "[json.exception.parse_error.N] parse error at line L, column C: why".
    std::string detail = error.what();
    const std::string marker = "parse error at ";
    if (const auto at = detail.find(marker); at != std::string::npos) {
      detail = detail.substr(at + marker.size());
    }
    throw InputError(fmt::format("{}: malformed JSON at {}", source, detail));
  }
}

Document parse_file(const std::filesystem::path& path) {
  return parse_text(read_input_file(path, "file"), path.string());
}

Time ObjectReader::duration_us(std::string_view key, double microseconds) const {
  // A value Time cannot hold is bad input where it is read (STYLE 15), never a wrap-around.
  const double max_us = Time::max_convertible_ps * 1e-6;
  if (!(microseconds < max_us)) {
    throw InputError(
        fmt::format("{}: {}: expected a time below about 104 days ({:g} us, the "
                    "longest sgdsim represents), found {:g}",
                    source_, path_of(key), max_us, microseconds));
  }
  return Time::from_us(microseconds);
}

std::string describe(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array:
      return value.empty() ? "an empty array" : fmt::format("an array of {}", value.size());
    case nlohmann::json::value_t::null: return "null";
    default: break;
  }
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

std::string element_path(std::string_view path, std::size_t index) {
  return fmt::format("{}[{}]", path, index);
}

ObjectReader::ObjectReader(const nlohmann::json& value, std::string source, std::string path)
    : object_(value), source_(std::move(source)), path_(std::move(path)) {
  if (!value.is_object()) {
    throw value_error(source_, path_.empty() ? "(top level)" : path_, "an object", describe(value));
  }
}

std::string ObjectReader::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

bool ObjectReader::has(std::string_view key) {
  asked_keys_.emplace(key);
  return object_.contains(key);
}

void ObjectReader::fail(std::string_view key, std::string_view expected,
                        const nlohmann::json& found) const {
  throw value_error(source_, path_of(key), expected, describe(found));
}

const nlohmann::json* ObjectReader::find(std::string_view key) {
  asked_keys_.emplace(key);
  const auto at = object_.find(key);
  return at == object_.end() ? nullptr : &*at;
}

const nlohmann::json& ObjectReader::required(std::string_view key, std::string_view expected) {
  const nlohmann::json* found = find(key);
  if (found == nullptr) {
    throw value_error(source_, path_of(key), expected, "nothing (this key is required)");
  }
  return *found;
}

double ObjectReader::number_checked(std::string_view key, const nlohmann::json& found,
                                    bool allow_zero) {
  const char* expected = allow_zero ? "a number >= 0" : "a number > 0";
  if (!found.is_number()) fail(key, expected, found);
  const double number = found.get<double>();
  if (!std::isfinite(number) || number < 0.0 || (!allow_zero && number == 0.0)) {
    fail(key, expected, found);
  }
  return number;
}

double ObjectReader::positive_number(std::string_view key) {
  return number_checked(key, required(key, "a number > 0"), false);
}

double ObjectReader::positive_number_or(std::string_view key, double fallback) {
  const nlohmann::json* found = find(key);
  return found == nullptr ? fallback : number_checked(key, *found, false);
}

double ObjectReader::non_negative_number(std::string_view key) {
  return number_checked(key, required(key, "a number >= 0"), true);
}

double ObjectReader::non_negative_number_or(std::string_view key, double fallback) {
  const nlohmann::json* found = find(key);
  return found == nullptr ? fallback : number_checked(key, *found, true);
}

double ObjectReader::fraction(std::string_view key) {
  const char* expected = "a number in (0, 1]";
  const nlohmann::json& found = required(key, expected);
  if (!found.is_number() || !(found.get<double>() > 0.0) || found.get<double>() > 1.0) {
    fail(key, expected, found);
  }
  return found.get<double>();
}

std::int64_t ObjectReader::integer_in(std::string_view key, std::int64_t low, std::int64_t high) {
  const std::string expected = fmt::format("an integer from {} to {}", low, high);
  const nlohmann::json& found = required(key, expected);
  if (!found.is_number_integer()) fail(key, expected, found);
  const std::int64_t number = found.get<std::int64_t>();
  if (number < low || number > high || (found.is_number_unsigned() && number < 0)) {
    fail(key, expected, found);
  }
  return number;
}

std::int64_t ObjectReader::integer_in_or(std::string_view key, std::int64_t low, std::int64_t high,
                                         std::int64_t fallback) {
  return has(key) ? integer_in(key, low, high) : fallback;
}

std::string ObjectReader::text(std::string_view key) {
  const nlohmann::json& found = required(key, "a string");
  if (!found.is_string()) fail(key, "a string", found);
  return found.get<std::string>();
}

std::string ObjectReader::text_or(std::string_view key, std::string fallback) {
  return has(key) ? text(key) : std::move(fallback);
}

std::string ObjectReader::choice_or(std::string_view key, const std::vector<std::string>& choices,
                                    std::string fallback) {
  if (!has(key)) return fallback;
  const nlohmann::json& found = value(key);
  const bool known = found.is_string() && std::find(choices.begin(), choices.end(),
                                                    found.get<std::string>()) != choices.end();
  if (!known) fail(key, fmt::format("one of \"{}\"", fmt::join(choices, "\", \"")), found);
  return found.get<std::string>();
}

ObjectReader ObjectReader::object(std::string_view key) {
  return ObjectReader(required(key, "an object"), source_, path_of(key));
}

const nlohmann::json& ObjectReader::value(std::string_view key) {
  return required(key, "a value");
}

void ObjectReader::reject_unknown_keys() const {
  for (const auto& [key, unused] : object_.items()) {
    if (asked_keys_.contains(key)) continue;
    const std::optional<std::string> closest = closest_name(key, asked_keys_);
    const std::string hint = closest ? fmt::format(" (did you mean \"{}\"?)", *closest) : "";
    throw InputError(fmt::format("{}: {}: unknown key{}; allowed here: {}", source_, path_of(key),
                                 hint, fmt::join(asked_keys_, ", ")));
  }
}

}  // namespace sgdsim::jsonio
