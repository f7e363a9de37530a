// Every spec the generator makes from the fixed seed range passes `ptxgen check` (load,
// contract, lowering, validation, reference, expectations): a refusal is a generator bug
// or a false reject of the contract, and fails here with the seed, the TOML and the
// diagnostics.

#include "fuzz_gen_seeds.hpp"

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_fuzz_gen_valid {

using namespace ptxgen::driver::fuzz;

TEST_CASE("fuzz_gen: every spec of the fixed seed range passes check") {
  const GenOptions options;
  std::size_t refused = 0;
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::checked_seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    const std::string toml = to_toml(m);
    const auto ds = check_spec_text(toml, "seed_" + std::to_string(seed) + ".toml");
    if (ds.has_errors()) {
      ++refused;
      MESSAGE("seed " << seed << " refused:\n" << toml << "\n" << fuzz_gen_test::describe(ds));
    }
  }
  CHECK(refused == 0);
}

} // namespace unit_fuzz_gen_valid
