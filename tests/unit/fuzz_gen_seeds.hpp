#pragma once
// The fixed seed range of the generator's tests (tests/fuzz_gen.cmake): every spec of it
// must pass `check`, every mutant of it must be refused, and together they must use every
// family and feature of the generator.

#include "driver/fuzz/generator.hpp"
#include "driver/fuzz/mutate.hpp"

#include <cstdint>
#include <string>

namespace fuzz_gen_test {

inline constexpr std::uint64_t first_seed = 1;
inline constexpr std::uint64_t seed_count = 400;
/// The seeds whose specs are checked (load, contract, lowering, reference) and whose
/// mutants are refused: all of seed_count, except in the sanitizer build
/// (tests/fuzz_gen.cmake), where checking runs ~15 times slower and a prefix keeps CI
/// in its time (the normal build checks them all).
#ifdef PTXGEN_FUZZ_GEN_CHECKED_SEEDS
inline constexpr std::uint64_t checked_seed_count = PTXGEN_FUZZ_GEN_CHECKED_SEEDS;
#else
inline constexpr std::uint64_t checked_seed_count = seed_count;
#endif

/// The bulk family is off by default (sm_90 ops): its seeds are drawn with bulk_options(),
/// the first bulk_seed_count of them (tests/unit/fuzz_gen_bulk.cpp, and the coverage test).
inline constexpr std::uint64_t bulk_seed_count = 80;
inline ptxgen::driver::fuzz::GenOptions bulk_options() {
  ptxgen::driver::fuzz::GenOptions o;
  o.families.fill(false);
  o.families[static_cast<std::size_t>(ptxgen::driver::fuzz::Family::bulk)] = true;
  return o;
}

/// The cluster family is off by default too (sm_90 clusters): its first cluster_seed_count
/// seeds are drawn with cluster_options() (tests/unit/fuzz_gen_cluster.cpp, the coverage
/// test, and the test of each mutation rule).
inline constexpr std::uint64_t cluster_seed_count = 48;
inline ptxgen::driver::fuzz::GenOptions cluster_options() {
  ptxgen::driver::fuzz::GenOptions o;
  o.families.fill(false);
  o.families[static_cast<std::size_t>(ptxgen::driver::fuzz::Family::cluster)] = true;
  return o;
}

/// The diagnostics as printed, for a failure message.
inline std::string describe(const ptxgen::Diagnostics& ds) {
  return ds.format_all();
}

} // namespace fuzz_gen_test
