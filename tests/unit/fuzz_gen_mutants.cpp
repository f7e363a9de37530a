// Every mutant of every spec of the fixed seed range is refused by `ptxgen check` with one
// of the diagnostics the mutant names (a mutant check accepts is a false accept).

#include "fuzz_gen_seeds.hpp"

#include <algorithm>

#include <doctest/doctest.h>

using namespace ptxgen;
using namespace ptxgen::driver::fuzz;

TEST_CASE("fuzz_gen: every mutant of the fixed seed range is refused as it says") {
  const GenOptions options;
  std::size_t total = 0, wrong = 0;
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::checked_seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    for (const Mutant& mu : mutants(m, seed)) {
      ++total;
      const auto ds = check_spec_text(mu.toml, "mutant.toml");
      bool named = false;
      for (const auto& d : ds.items())
        if (d.severity == Severity::error &&
            std::find(mu.refused_with.begin(), mu.refused_with.end(), d.id) !=
                mu.refused_with.end())
          named = true;
      if (!named) {
        ++wrong;
        MESSAGE(
            "seed " << seed << ", mutant '" << mu.what << "' "
                    << std::string(ds.has_errors() ? "refused with other diagnostics" : "accepted")
                    << ":\n"
                    << mu.toml << "\n"
                    << fuzz_gen_test::describe(ds));
      }
    }
  }
  CHECK(total >= 8 * fuzz_gen_test::checked_seed_count);
  CHECK(wrong == 0);
}
