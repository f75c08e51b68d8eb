// Tests for jsonio/json_reader.hpp: every message is checked verbatim.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/core/error.hpp"
#include "sgdsim/jsonio/json_reader.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

std::string message_of(const std::function<void()>& action) {
  return test::input_error_of(action);
}

}  // namespace

TEST_CASE("malformed JSON names the file, line and column") {
  CHECK(message_of([] { jsonio::parse_text("{\n  \"a\": 1,\n}", "x.json"); }) ==
        "x.json: malformed JSON at line 3, column 1: syntax error while parsing object key - "
        "unexpected '}'; expected string literal");
}

TEST_CASE("a missing file says so") {
  CHECK(message_of([] { jsonio::parse_file("/nonexistent/s.json"); }) ==
        "/nonexistent/s.json: cannot open file: no such file");
}

TEST_CASE("values are checked with their path") {
  const auto document = jsonio::parse_text(R"({"net": {"bw": -1, "n": 2.5, "s": 3}})", "x.json");
  jsonio::ObjectReader root(document.root, document.source, "");
  jsonio::ObjectReader net = root.object("net");
  CHECK(message_of([&] { net.positive_number("bw"); }) ==
        "x.json: net.bw: expected a number > 0, found -1");
  CHECK(message_of([&] { net.integer_in("n", 1, 4); }) ==
        "x.json: net.n: expected an integer from 1 to 4, found 2.5");
  CHECK(message_of([&] { net.text("s"); }) == "x.json: net.s: expected a string, found 3");
  CHECK(message_of([&] { net.positive_number("missing"); }) ==
        "x.json: net.missing: expected a number > 0, found nothing (this key is required)");
  CHECK(message_of([&] { root.object("other"); }) ==
        "x.json: other: expected an object, found nothing (this key is required)");
}

TEST_CASE("unknown keys are errors with a suggestion and the allowed keys") {
  const auto document = jsonio::parse_text(R"({"bandwith_gbps": 10})", "x.json");
  jsonio::ObjectReader reader(document.root, document.source, "network");
  reader.positive_number_or("bandwidth_gbps", 1.0);
  reader.positive_number_or("latency_us", 1.0);
  CHECK(message_of([&] { reader.reject_unknown_keys(); }) ==
        "x.json: network.bandwith_gbps: unknown key (did you mean \"bandwidth_gbps\"?); allowed "
        "here: bandwidth_gbps, latency_us");
}

TEST_CASE("choices list what is allowed") {
  const auto document = jsonio::parse_text(R"({"kind": "tree"})", "x.json");
  jsonio::ObjectReader reader(document.root, document.source, "");
  CHECK(message_of([&] {
          reader.choice_or("kind", {"ring", "ps"}, "ring");
        }) == "x.json: kind: expected one of \"ring\", \"ps\", found \"tree\"");
}
