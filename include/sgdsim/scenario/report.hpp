// Results of a scenario: the summary table for people, JSON and CSV for programs. Every
// machine-readable output carries a schema version; the same result always prints the same bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sgdsim/scenario/scenario_run.hpp"

namespace sgdsim {

// 2: plain CSV headers (the version is each row's last column), bandwidth_gbps as set with
// goodput_gbps beside it, tokens_per_second, per_rank spread, provenance.
inline constexpr int result_schema_version = 2;

std::string summary_table(const ScenarioResult& result);
nlohmann::ordered_json result_json(const ScenarioResult& result);
// One policy's figures as in result_json, without its per-message breakdown (sweep rows).
nlohmann::ordered_json policy_summary(const ScenarioResult& result, const PolicyOutcome& outcome);
// One CSV field as RFC 4180 writes it: quoted when it holds a comma, a quote, a line break or
// edge spaces (or always, for text columns), quotes inside doubled. Every CSV sgdsim writes
// goes through it.
std::string csv_field(std::string_view text, bool always_quote = false);

// One cell of a CSV line as RFC 4180 reads it; `quoted` says whether it was quoted, which makes
// it text whatever it holds.
struct CsvField {
  std::string text;
  bool quoted = false;
};

// The cells of one CSV line ("" inside quotes is a quote, quoted commas stay in their cell), or
// nullopt when a quote is left open. The reader of what csv_field writes, and of users' CSVs.
std::optional<std::vector<CsvField>> split_csv_line(std::string_view line);

// One row per policy (and compressor), after a schema line and csv_header().
std::string result_csv(const ScenarioResult& result);
std::string csv_header();
std::vector<std::string> csv_rows(const ScenarioResult& result);
// One row per message per policy (layers merged, bytes, ready, start, end).
std::string messages_csv(const ScenarioResult& result);

}  // namespace sgdsim
