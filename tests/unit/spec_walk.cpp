// What a directory argument stands for: decided by what each spec declares in its text
// (`# expect-error:` lines, [kernel] expect = "fault"), never by the folder it is in.
#include "driver/run/spec_files.hpp"
#include "driver/support/temp_dir.hpp"
#include "driver/toml/reader_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_spec_walk {

using namespace ptxgen;
namespace fs = std::filesystem;

namespace {

const std::string kValid = "[kernel]\nname = \"k\"\nblock = 32\n";

struct Corpus {
  driver::TempDir dir;
  static driver::TempDir make() {
    std::string error;
    auto d = driver::TempDir::create("ptxgen-spec-walk-");
    REQUIRE_MESSAGE(d, d.error());
    return std::move(*d);
  }
  Corpus() : dir(make()) {
    // The folder names say the opposite of what the specs declare.
    write("faults/plain.toml", kValid);
    write("invalid/fault.toml", "[kernel]\nname = \"k\"\nexpect = \"fault\"\nblock = 32\n");
    write("ok/refused.toml", "#   expect-error: 3:9: [spec_bad_name] not an identifier\n" + kValid);
    write("ok/broken.toml", "[kernel\n"); // unparsable: taken, so that loading says why
  }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((dir.path() / rel).parent_path());
    std::ofstream(dir.path() / rel) << text;
  }
  fs::path at(const std::string& rel) const { return dir.path() / rel; }
  std::vector<std::string> walk(driver::SpecWalk how, std::vector<std::string> args = {}) const {
    if (args.empty())
      args = {dir.path().string()};
    auto found = driver::expand_spec_arguments(args, how);
    REQUIRE_MESSAGE(found, found.error());
    std::vector<std::string> rel;
    for (const auto& f : *found)
      rel.push_back(fs::relative(f, dir.path()).generic_string());
    return rel;
  }
};

} // namespace

TEST_CASE("a spec's role comes from its text") {
  Corpus c;
  CHECK(driver::spec_role(c.at("faults/plain.toml")) == driver::SpecRole::valid);
  CHECK(driver::spec_role(c.at("invalid/fault.toml")) == driver::SpecRole::must_fault);
  CHECK(driver::spec_role(c.at("ok/refused.toml")) == driver::SpecRole::refused);
  CHECK(driver::spec_role(c.at("ok/broken.toml")) == driver::SpecRole::valid);
}

TEST_CASE("directory walks take what the command runs, whatever the folders are called") {
  Corpus c;
  CHECK(c.walk(driver::SpecWalk::valid) ==
        std::vector<std::string>{"faults/plain.toml", "ok/broken.toml"});
  CHECK(c.walk(driver::SpecWalk::valid_and_faults) ==
        std::vector<std::string>{"faults/plain.toml", "invalid/fault.toml", "ok/broken.toml"});
  CHECK(c.walk(driver::SpecWalk::every) ==
        std::vector<std::string>{"faults/plain.toml", "invalid/fault.toml", "ok/broken.toml",
                                 "ok/refused.toml"});
  // A spec named explicitly is taken whatever it declares.
  CHECK(c.walk(driver::SpecWalk::valid, {c.at("ok/refused.toml").string()}) ==
        std::vector<std::string>{"ok/refused.toml"});
}

TEST_CASE("a spec named twice, directly or through a directory, is taken once") {
  Corpus c;
  CHECK(c.walk(driver::SpecWalk::valid_and_faults,
               {c.at("invalid/fault.toml").string(), c.dir.path().string(),
                c.at("invalid").string()}) ==
        std::vector<std::string>{"invalid/fault.toml", "faults/plain.toml", "ok/broken.toml"});
}

TEST_CASE("a directory whose specs the command does not take says what it passed over") {
  Corpus c;
  auto found = driver::expand_spec_arguments({c.at("invalid").string()}, driver::SpecWalk::valid);
  CHECK_FALSE(found);
  CHECK(found.error().find("no spec files") != std::string::npos);
  CHECK(found.error().find("1 passed over") != std::string::npos);
}

TEST_CASE("[kernel] expect: \"fault\" is kept with its position; anything else is refused") {
  auto fault =
      driver::load_spec_text("[kernel]\nname = \"k\"\nexpect = \"fault\"\nblock = 32\n", "f.toml");
  REQUIRE(fault);
  REQUIRE((*fault.value)->must_fault.has_value());
  CHECK((*fault.value)->must_fault->line == 3);
  CHECK((*fault.value)->must_fault->column == 10);
  auto plain = driver::load_spec_text(kValid, "p.toml");
  REQUIRE(plain);
  CHECK_FALSE((*plain.value)->must_fault.has_value());
  auto other =
      driver::load_spec_text("[kernel]\nname = \"k\"\nexpect = \"pass\"\nblock = 32\n", "o.toml");
  REQUIRE(other.diagnostics.has_errors());
  const auto& items = other.diagnostics.items();
  CHECK(std::any_of(items.begin(), items.end(), [](const Diagnostic& d) {
    return d.id == DiagId::spec_expect_run && d.line == 3 && d.column == 10;
  }));
}

} // namespace unit_spec_walk
