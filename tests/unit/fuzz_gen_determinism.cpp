// The same seed gives the same spec: twice in one process here, and in two processes
// (tests/fuzz_gen.cmake runs the dump below twice and compares the files). Different
// seeds give different specs.

#include "fuzz_gen_seeds.hpp"

#include <cstdlib>
#include <fstream>
#include <set>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_fuzz_gen_determinism {

using namespace ptxgen::driver::fuzz;

namespace {

std::string dump(std::uint64_t first, std::uint64_t count) {
  std::string all;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const SpecModel m = generate(seed, GenOptions{});
    all += to_toml(m);
    for (const auto& mu : mutants(m, seed))
      all += "# mutant: " + mu.what + "\n" + mu.toml;
  }
  return all;
}

} // namespace

TEST_CASE("fuzz_gen: one seed, one spec") {
  std::set<std::string> distinct;
  for (std::uint64_t seed = fuzz_gen_test::first_seed; seed < fuzz_gen_test::first_seed + 50;
       ++seed) {
    const std::string a = to_toml(generate(seed, GenOptions{}));
    const std::string b = to_toml(generate(seed, GenOptions{}));
    CHECK(a == b);
    CHECK(a.find("from seed " + std::to_string(seed) + ",") != std::string::npos);
    distinct.insert(a);
  }
  CHECK(distinct.size() == 50);
  CHECK(dump(7, 5) == dump(7, 5));
}

// With PTXGEN_FUZZ_GEN_DUMP=FILE: writes the specs and mutants of seeds 1..100 to FILE,
// for the two-process comparison in tests/fuzz_gen.cmake.
TEST_CASE("fuzz_gen: dump for the two-process comparison") {
  const std::string text = dump(1, 100);
  CHECK(text.size() > 10000);
  if (const char* path = std::getenv("PTXGEN_FUZZ_GEN_DUMP")) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    CHECK(out.good());
  }
}

} // namespace unit_fuzz_gen_determinism
