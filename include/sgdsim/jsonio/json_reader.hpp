// Strict reading of JSON input files. Every value is read through an ObjectReader that knows its
// file and JSON path, so an error can say where it is, what was expected and what was found;
// keys never read are reported as unknown instead of being ignored.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sgdsim/core/time.hpp"

namespace sgdsim::jsonio {

struct Document {
  std::string source;  // the file name as the user gave it, used in messages
  nlohmann::json root;
};

// Deepest nesting of objects and arrays accepted in any input (sgdsim's own files use 5).
inline constexpr int max_json_depth = 64;

// Reads and parses a file; a missing file or malformed JSON is an InputError naming the file
// (and, for malformed JSON, the line and column), as are a key given twice in one object, a
// number beyond a double's range, and nesting deeper than max_json_depth.
Document parse_file(const std::filesystem::path& path);
Document parse_text(std::string_view text, std::string source);

// A short description of a JSON value for "found ..." in messages: -10, "abc", an array, null.
std::string describe(const nlohmann::json& value);

class ObjectReader {
 public:
  // Throws InputError if `value` is not an object.
  ObjectReader(const nlohmann::json& value, std::string source, std::string path);

  const std::string& source() const { return source_; }
  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const;
  // Also declares `key` as allowed here.
  bool has(std::string_view key);

  double positive_number(std::string_view key);
  double positive_number_or(std::string_view key, double fallback);
  double non_negative_number(std::string_view key);
  double non_negative_number_or(std::string_view key, double fallback);
  // A number in (0, 1].
  double fraction(std::string_view key);
  std::int64_t integer_in(std::string_view key, std::int64_t low, std::int64_t high);
  std::int64_t integer_in_or(std::string_view key, std::int64_t low, std::int64_t high,
                             std::int64_t fallback);
  std::string text(std::string_view key);
  std::string text_or(std::string_view key, std::string fallback);
  // One of `choices`; the message lists them.
  std::string choice_or(std::string_view key, const std::vector<std::string>& choices,
                        std::string fallback);
  ObjectReader object(std::string_view key);
  // The raw value (marked as read); the key must be present.
  const nlohmann::json& value(std::string_view key);

  // Throws for the first key (in sorted order) that no accessor has asked for.
  void reject_unknown_keys() const;

  // `microseconds` (the value read from `key`) as a Time; a value past Time's range is an
  // InputError naming the file and the key.
  Time duration_us(std::string_view key, double microseconds) const;

  [[noreturn]] void fail(std::string_view key, std::string_view expected,
                         const nlohmann::json& found) const;

 private:
  const nlohmann::json* find(std::string_view key);
  const nlohmann::json& required(std::string_view key, std::string_view expected);
  double number_checked(std::string_view key, const nlohmann::json& found, bool allow_zero);

  const nlohmann::json& object_;
  std::string source_;
  std::string path_;
  std::set<std::string, std::less<>> asked_keys_;  // every key this reader allows
};

// Path of array element `index` under `path`, e.g. layers[3].
std::string element_path(std::string_view path, std::size_t index);

}  // namespace sgdsim::jsonio
