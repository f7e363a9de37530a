// Every mutant of every spec of the fixed seed range is refused by `ptxgen check` with the
// DiagId its rule names (a mutant check accepts is a false accept), and every rule is
// exercised by the range.

#include "fuzz_gen_seeds.hpp"

#include <algorithm>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_fuzz_gen_mutants {

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
        if (d.severity == Severity::error && d.id == mu.refused_with)
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

// Each rule, on the first spec of the seed range it applies to, is refused with the DiagId
// it declares: a rule whose DiagId is wrong (or that never applies) fails here by name,
// even where the bulk test above checks only a prefix of the range.
TEST_CASE("fuzz_gen: each mutation rule is refused with the DiagId it declares") {
  const GenOptions options;
  const GenOptions bulk = fuzz_gen_test::bulk_options();
  const GenOptions cluster = fuzz_gen_test::cluster_options();
  std::size_t pending = 0;
  for (const MutationRule& rule : mutation_rules()) {
    INFO("rule '" << rule.what << "' declares " << name(rule.refused_with));
    // A rule of pending_rules is checked in fuzz_gen_bulk.cpp, never counted as passing.
    if (is_pending_rule(rule.refused_with)) {
      ++pending;
      continue;
    }
    bool found = false;
    // The default mix's seeds, then the bulk family's, then the cluster family's.
    const std::uint64_t bulk_from = fuzz_gen_test::seed_count;
    const std::uint64_t cluster_from = bulk_from + fuzz_gen_test::bulk_seed_count;
    for (std::uint64_t i = 0; !found && i < cluster_from + fuzz_gen_test::cluster_seed_count; ++i) {
      const bool in_bulk = i >= bulk_from && i < cluster_from;
      const bool in_cluster = i >= cluster_from;
      const std::uint64_t seed = fuzz_gen_test::first_seed + (in_cluster ? i - cluster_from
                                                              : in_bulk  ? i - bulk_from
                                                                         : i);
      SpecModel m = generate(seed, in_cluster ? cluster : in_bulk ? bulk : options);
      Rng rng(seed);
      if (!rule.edit(m, rng))
        continue;
      found = true;
      const auto ds = check_spec_text(to_toml(m), "mutant.toml");
      INFO("seed " << seed << ":\n" << to_toml(m) << "\n" << fuzz_gen_test::describe(ds));
      const auto& items = ds.items();
      CHECK(std::any_of(items.begin(), items.end(), [&](const Diagnostic& d) {
        return d.severity == Severity::error && d.id == rule.refused_with;
      }));
    }
    CHECK(found);
  }
  CHECK(pending == pending_rules.size());
}

} // namespace unit_fuzz_gen_mutants
