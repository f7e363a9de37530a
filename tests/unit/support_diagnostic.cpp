// Diagnostic IDs: name() and parse_diag_id() are an inverse pair over every ID, and the
// printed form carries the ID so that tools and tests can key on it instead of the wording.
#include "emitter/support/diagnostic.hpp"

#include <set>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_support_diagnostic {

using namespace ptxgen;

namespace {
/// The k-th ID counted from the last one declared.
DiagId from_last(std::size_t k) {
  return static_cast<DiagId>(diag_id_count - 1 - k);
}
} // namespace

TEST_CASE("every DiagId has a distinct name that parses back to it") {
  std::set<std::string> seen;
  for (std::size_t k = 0; k < diag_id_count; ++k) {
    auto id = static_cast<DiagId>(k);
    std::string n(name(id));
    CHECK_FALSE(n.empty());
    CHECK(seen.insert(n).second);
    DiagId back{};
    REQUIRE(parse_diag_id(n, back));
    CHECK(back == id);
  }
  DiagId unused{};
  CHECK_FALSE(parse_diag_id("no_such_diagnostic", unused));
  CHECK_FALSE(parse_diag_id("", unused));
}

TEST_CASE("format() prints the ID after the message, before the caret lines") {
  REQUIRE(diag_id_count >= 2);
  const auto id = from_last(0);
  Diagnostic d = error_at(id, "cp.asnyc.cg", 3, 5, "unknown opcode root `asnyc`");
  d.file = "k.toml";
  const std::string text = format(d);
  const std::string want_first =
      "k.toml:1:4: error: unknown opcode root `asnyc` [" + std::string(name(id)) + "]\n";
  CHECK(text.rfind(want_first, 0) == 0);
  CHECK(text.find("     ^~~~~\n") != std::string::npos);
}

TEST_CASE("Diagnostics::has finds a diagnostic by ID, not by text") {
  REQUIRE(diag_id_count >= 2);
  const auto a = from_last(0);
  const auto b = from_last(1);
  Diagnostics ds;
  ds.error(a, "same words");
  CHECK(ds.has(a));
  CHECK_FALSE(ds.has(b));
  CHECK(ds.has_errors());
}

} // namespace unit_support_diagnostic
