// The shrinker's hooks: keep_units with every unit kept is the model itself, with none
// kept an empty kernel; dropping one unit drops its ops and the tensors only it named;
// every simplification lowers complexity() (the shrinker's progress measure).

#include "fuzz_gen_seeds.hpp"

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_fuzz_gen_shrink {

using namespace ptxgen::driver::fuzz;

TEST_CASE("fuzz_gen: keep_units") {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const SpecModel m = generate(seed, GenOptions{});
    const std::size_t n = unit_count(m);
    REQUIRE(n >= 1);
    CHECK(to_toml(keep_units(m, std::vector<bool>(n, true))) == to_toml(m));
    const SpecModel none = keep_units(m, std::vector<bool>(n, false));
    CHECK(none.ops.empty());
    CHECK(none.expects.empty());
    CHECK(complexity(none) < complexity(m));
    // Drop the unit of the first op: no op of that unit is left.
    std::vector<bool> keep(n, true);
    keep[m.ops.front().unit] = false;
    const SpecModel fewer = keep_units(m, keep);
    CHECK(fewer.ops.size() < m.ops.size());
    for (const auto& op : fewer.ops)
      CHECK(op.unit != m.ops.front().unit);
    CHECK(complexity(fewer) < complexity(m));
  }
}

TEST_CASE("fuzz_gen: every simplification is smaller") {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const SpecModel m = generate(seed, GenOptions{});
    const auto simpler = simplifications(m);
    CHECK(!simpler.empty());
    for (const auto& s : simpler) {
      INFO("seed " << seed << "\n" << to_toml(s));
      CHECK(complexity(s) < complexity(m));
      CHECK(to_toml(s) != to_toml(m));
    }
  }
}

} // namespace unit_fuzz_gen_shrink
