// The bulk family of the generator (driver/fuzz/gen_bulk.cpp): every spec of its seed range
// passes `check` (valid by construction), is built by the builder, and every mutant of it
// is refused with its rule's DiagId. The rules of pending_rules (driver/fuzz/mutate.hpp:
// DiagIds this branch does not raise yet) are skipped by that table alone, counted apart
// and never as refused; one of them refused as declared fails here, so that the table is
// emptied as the rules land.

#include "fuzz_gen_seeds.hpp"

#include <algorithm>
#include <map>
#include <string>

#include <doctest/doctest.h>

namespace unit_fuzz_gen_bulk {

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

TEST_CASE("fuzz_gen bulk: every spec of the bulk seed range passes check") {
  const GenOptions options = fuzz_gen_test::bulk_options();
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::bulk_seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    REQUIRE(m.family == Family::bulk);
    auto built = build_kernel(m);
    INFO("seed " << seed << ":\n" << to_toml(m));
    CHECK(static_cast<bool>(built));
    const auto ds = check_spec_text(spec_toml(m), "bulk.toml");
    INFO(fuzz_gen_test::describe(ds));
    CHECK(!ds.has_errors());
  }
}

TEST_CASE("fuzz_gen bulk: every mutant is refused with its DiagId; pending rules apart") {
  const GenOptions options = fuzz_gen_test::bulk_options();
  std::map<std::string, std::size_t> refused, pending;
  std::size_t wrong = 0;
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::bulk_seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    for (const Mutant& mu : mutants(m, seed)) {
      const auto ds = check_spec_text(mu.toml, "mutant.toml");
      const bool named = refused_with(ds, mu.refused_with);
      if (is_pending_rule(mu.refused_with)) {
        ++pending[mu.what];
        INFO("seed " << seed << ", pending mutant '" << mu.what
                     << "' is refused as declared: its rule has landed, remove "
                     << name(mu.refused_with) << " from pending_rules (driver/fuzz/mutate.hpp)");
        CHECK(!named);
        continue;
      }
      if (named) {
        ++refused[mu.what];
        continue;
      }
      ++wrong;
      MESSAGE("seed " << seed << ", mutant '" << mu.what << "' "
                      << (ds.has_errors() ? "refused with other diagnostics" : "accepted") << ":\n"
                      << mu.toml << "\n"
                      << fuzz_gen_test::describe(ds));
    }
  }
  CHECK(wrong == 0);
  // Every rule of the bulk family applies somewhere in the range: the pending ones are made
  // (and skipped above), the others refused.
  const std::string bulk_rules[] = {
      "tensor load: innermost coordinate off by half of 16 bytes",
      "tensor store at a negative coordinate",
      "expect_tx 16 bytes above the delivered bytes",
      "bulk store without the final bulk_wait",
      "refill of the stored tile without the storer's bulk_wait read",
      "refill by another thread after the storer's wait, without cta_sync",
      "swizzled box half its span into a packed shared tile",
      "two CTAs store the same global bytes",
      "bulk store of filled bytes without the proxy fence",
      "fill before a load of the same bytes without the proxy fence",
      "fill before a load, its proxy fence of the global space only",
      "global writes before a bulk load of them without the proxy fence",
      "global writes before a bulk load, their proxy fence of shared::cta only",
      "read-back of a bulk store's bytes after the storer's wait, without cta_sync",
      "copy into a pending bulk store's global bytes",
      "refill after a bulk_wait read of one group more",
      "bulk loop: wait parity 0 in every iteration",
      "TMA pipeline: full barrier without the stage",
      "TMA pipeline: ring_offset of a whole lap with fresh barriers",
      "TMA pipeline: each stage loads the next tile",
  };
  for (const auto& r : bulk_rules) {
    INFO("rule '" << r << "'");
    CHECK(refused[r] + pending[r] > 0);
  }
}

// What the generator claims it used is in the printed TOML.
TEST_CASE("fuzz_gen bulk: a claimed feature is in the TOML") {
  const GenOptions options = fuzz_gen_test::bulk_options();
  struct Shown {
    Feature feature;
    std::string_view text;
  };
  const Shown shown[] = {
      {Feature::bulk_1d, "op = \"bulk_load\""},
      {Feature::tensor_swizzle, "swizzle = \""},
      {Feature::tensor_element_strides, "element_strides = "},
      {Feature::tensor_oob_nan, "oob_fill = \"nan\""},
      {Feature::bulk_read_wait, "read = true"},
      {Feature::proxy_fence_all, "space = \"all\""},
      {Feature::bulk_loop, "op = \"for\""},
      {Feature::tma_pipeline, "full = 'full.sub[stage]'"},
  };
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::bulk_seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    const std::string toml = to_toml(m);
    for (const auto& s : shown) {
      INFO("seed " << seed << ", feature " << name(s.feature));
      CHECK(m.has(s.feature) == (toml.find(s.text) != std::string::npos));
    }
    // A written proxy_fence is one of the shapes with generic writes before a bulk access.
    INFO("seed " << seed << ": proxy_fence");
    CHECK((m.has(Feature::bulk_fill_store) || m.has(Feature::bulk_fill_load) ||
           m.has(Feature::bulk_global_write_load)) ==
          (toml.find("op = \"proxy_fence\"") != std::string::npos));
  }
}

} // namespace unit_fuzz_gen_bulk
