// The cluster family of the generator (driver/fuzz/gen_cluster.cpp): every spec of its seed
// range declares a cluster of 2, 4 or 8 CTAs that divides its grid, is built by the builder
// and passes `check` (valid by construction); every mutant of it is refused with its rule's
// DiagId, and every cluster rule is made somewhere in the range.

#include "fuzz_gen_seeds.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace unit_fuzz_gen_cluster {

using namespace ptxgen;
using namespace ptxgen::driver::fuzz;

namespace {

bool refused_with(const Diagnostics& ds, DiagId id) {
  const auto& items = ds.items();
  return std::any_of(items.begin(), items.end(), [&](const Diagnostic& d) {
    return d.severity == Severity::error && d.id == id;
  });
}

} // namespace

TEST_CASE("fuzz_gen cluster: every spec of the cluster seed range passes check") {
  const GenOptions options = fuzz_gen_test::cluster_options();
  std::map<std::int64_t, std::size_t> sizes;
  std::map<bool, std::size_t> rings; // the multicast ring, by tensor (2-D) or bulk (1-D) load
  std::size_t parts = 0;             // rings whose masks are part of the cluster
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::cluster_seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    INFO("seed " << seed << ":\n" << to_toml(m));
    REQUIRE(m.family == Family::cluster);
    REQUIRE(m.cluster.size() == 3);
    const std::int64_t C = m.cluster[0];
    CHECK((C == 2 || C == 4 || C == 8));
    CHECK((m.cluster[1] == 1 && m.cluster[2] == 1));
    REQUIRE(m.grid.size() == 1);
    CHECK(m.grid[0] % C == 0);
    ++sizes[C];
    if (m.has(Feature::multicast_ring))
      ++rings[m.has(Feature::multicast_tensor)];
    parts += m.has(Feature::multicast_part_mask) ? 1 : 0;
    auto built = build_kernel(m);
    CHECK(static_cast<bool>(built));
    const auto ds = check_spec_text(spec_toml(m), "cluster.toml");
    INFO(fuzz_gen_test::describe(ds));
    CHECK(!ds.has_errors());
  }
  CHECK(sizes[2] > 0);
  CHECK(sizes[4] > 0);
  CHECK(sizes[8] > 0);
  CHECK(rings[false] > 0);
  CHECK(rings[true] > 0);
  CHECK(parts > 0);
}

TEST_CASE("fuzz_gen cluster: every mutant is refused with its DiagId") {
  const GenOptions options = fuzz_gen_test::cluster_options();
  std::map<std::string, std::size_t> refused;
  std::size_t wrong = 0;
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::cluster_seed_count; ++seed)
    seeds.push_back(seed);
  // Found by a campaign: one issuing rank, rank 1 (the expect_tx mutant once left the
  // issuer's own barrier without one: another rule's refusal).
  seeds.push_back(307);
  for (std::uint64_t seed : seeds) {
    const SpecModel m = generate(seed, options);
    for (const Mutant& mu : mutants(m, seed)) {
      const auto ds = check_spec_text(mu.toml, "mutant.toml");
      if (refused_with(ds, mu.refused_with)) {
        ++refused[mu.what];
        continue;
      }
      ++wrong;
      MESSAGE(
          "seed " << seed << ", mutant '" << mu.what << "' "
                  << std::string(ds.has_errors() ? "refused with other diagnostics" : "accepted")
                  << ":\n"
                  << mu.toml << "\n"
                  << fuzz_gen_test::describe(ds));
    }
  }
  CHECK(wrong == 0);
  // Every rule of the cluster family applies somewhere in the range and is refused there.
  const std::string cluster_rules[] = {
      "multicast mask naming the rank past the cluster",
      "multicast without the barriers' mbarrier_init_fence",
      "multicast: expect_tx on one CTA's barrier only",
      "multicast without the closing cluster_sync",
      "peer view's rank one more (the last rank names rank C)",
      "DSMEM write and a peer's read without the cluster_sync between",
      "peer access without the closing cluster_sync",
      "DSMEM: the cluster_sync between a write and a peer's read relaxed",
      "peer access followed by a relaxed closing cluster_sync only",
      "bulk_copy_peer without the barriers' mbarrier_init_fence",
      "bulk_copy_peer: expect_tx on rank 0's barrier only",
      "bulk_copy_peer: no receiver waits for the copy",
      "bulk_copy_peer: source rewritten after the sender's own wait",
      "remote arrivals without the barriers' mbarrier_init_fence",
      "multicast ring: the empty count covering the local consumers only",
      "multicast ring: the consumers arriving on their own CTA's empty only",
      "multicast ring: one receiving CTA's arrivals dropped, the empty count one less",
      "multicast ring: one receiving CTA's arrivals dropped, the empty count kept",
      "multicast ring: the refill issued before the empty wait",
      "multicast ring: the consumers' arrival before their cta_sync",
      "multicast ring: the empty count one, the remote arrivals kept",
  };
  for (const auto& r : cluster_rules) {
    INFO("rule '" << r << "'");
    CHECK(refused[r] > 0);
  }
}

// What the generator claims it used is in the printed TOML.
TEST_CASE("fuzz_gen cluster: a claimed feature is in the TOML") {
  const GenOptions options = fuzz_gen_test::cluster_options();
  struct Shown {
    Feature feature;
    std::string_view text;
  };
  const Shown shown[] = {
      {Feature::cluster_2, "cluster = [2, 1, 1]"},
      {Feature::cluster_4, "cluster = [4, 1, 1]"},
      {Feature::cluster_8, "cluster = [8, 1, 1]"},
      {Feature::multicast_mask_expr, "multicast = \"(1 << cluster_size) - 1\""},
      {Feature::multicast_tensor, "op = \"tensor_load\""},
      {Feature::peer_bulk_copy, "op = \"bulk_copy_peer\""},
  };
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::cluster_seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    const std::string toml = to_toml(m);
    for (const auto& s : shown) {
      INFO("seed " << seed << ", feature " << name(s.feature));
      CHECK(m.has(s.feature) == (toml.find(s.text) != std::string::npos));
    }
    INFO("seed " << seed << ": loops");
    CHECK((m.has(Feature::dsmem_ring) || m.has(Feature::multicast_ring)) ==
          (toml.find("op = \"for\"") != std::string::npos));
    INFO("seed " << seed << ": remote arrivals");
    CHECK((m.has(Feature::peer_arrive) || m.has(Feature::multicast_ring)) ==
          (toml.find("op = \"mbarrier_arrive\"") != std::string::npos));
    INFO("seed " << seed << ": multicast ring");
    CHECK(m.has(Feature::multicast_ring) == (toml.find("barrier = 'empty@(") != std::string::npos));
    INFO("seed " << seed << ": multicast");
    CHECK((m.has(Feature::multicast_bulk) || m.has(Feature::multicast_tensor)) ==
          (toml.find("multicast = ") != std::string::npos));
  }
}

} // namespace unit_fuzz_gen_cluster
