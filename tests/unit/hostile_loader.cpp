// Hostile input to the spec loader and the spec-argument expansion: inputs that
// once crashed or passed silently, kept as regression tests (docs/fuzzing.md).
#include "driver/run/spec_files.hpp"
#include "driver/support/temp_dir.hpp"
#include "driver/toml/reader_spec.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_hostile_loader {

using namespace ptxgen;

namespace {

const std::string kHead = "[kernel]\nname = \"k\"\nblock = 32\n";

std::string repeat(std::string_view s, int n) {
  std::string r;
  for (int i = 0; i < n; ++i)
    r += s;
  return r;
}

} // namespace

TEST_CASE("a dotted key 100,000 parts deep is an error on its line, not a stack overflow") {
  // toml++ recursed once per part and overflowed the stack (SIGSEGV) at ~50,000.
  const std::string text = kHead + repeat("a.", 100000) + "b = 1\n";
  auto r = driver::load_spec_text(text, "deep.toml");
  REQUIRE_FALSE(r.value.has_value());
  REQUIRE(r.diagnostics.has_errors());
  const Diagnostic& d = r.diagnostics.items().front();
  CHECK(d.file == "deep.toml");
  CHECK(d.line == 4);
  // The 257th dot is the refused one: "a." * 257 puts it at column 2 * 257.
  CHECK(d.column == 514);
  CHECK(d.message.find("dotted parts") != std::string::npos);
}

TEST_CASE("a table header 100,000 parts deep is an error, not a stack overflow") {
  const std::string text = kHead + "[" + repeat("t.", 100000) + "u]\n";
  auto r = driver::load_spec_text(text, "hdr.toml");
  REQUIRE_FALSE(r.value.has_value());
  CHECK(r.diagnostics.items().front().line == 4);
  CHECK(r.diagnostics.items().front().column == 515); // `[` then 257 x "t."
}

TEST_CASE("dots inside strings and comments do not count toward the key depth") {
  const std::string dots = repeat(".", 1000);
  const std::string text = kHead + "# " + dots +
                           "\n[tensor.A]\nspace = \"global\"\n"
                           "shape = [32]\ndtype = \"uint8\"\ninit = \"" +
                           dots + "\"\n";
  auto r = driver::load_spec_text(text, "ok.toml");
  // init is rejected for its content (not a known init), but not as a deep key.
  for (const Diagnostic& d : r.diagnostics.items())
    CHECK(d.message.find("dotted parts") == std::string::npos);
}

TEST_CASE("a dotted key 200 parts deep is still handed to toml++ (no false refusal)") {
  const std::string text = kHead + repeat("a.", 200) + "b = 1\n";
  auto r = driver::load_spec_text(text, "ok.toml");
  REQUIRE(r.diagnostics.has_errors()); // an unknown key 'a' in [kernel]
  bool unknown_key = false;
  for (const Diagnostic& d : r.diagnostics.items()) {
    CHECK(d.message.find("dotted parts") == std::string::npos);
    unknown_key = unknown_key || d.message.find("unknown key 'a' in [kernel]") != std::string::npos;
  }
  CHECK(unknown_key);
}

TEST_CASE("a directory with no spec in it is an error, not \"0 specs, all fine\"") {
  std::string error;
  auto tmp = driver::TempDir::create("ptxgen-hostile");
  REQUIRE(tmp);
  std::filesystem::create_directory(tmp->path() / "empty.toml");
  auto specs = driver::expand_spec_arguments({(tmp->path() / "empty.toml").string()});
  CHECK_FALSE(specs);
  CHECK(specs.error().find("no spec files") != std::string::npos);
}

} // namespace unit_hostile_loader
