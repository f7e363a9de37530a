// Coverage of the fixed seed range: every family and every feature of the generator is
// used by at least one spec, and the features a model claims are really in its TOML.

#include "fuzz_gen_seeds.hpp"

#include <array>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_fuzz_gen_coverage {

using namespace ptxgen::driver::fuzz;

TEST_CASE("fuzz_gen: the fixed seed range uses every family and every feature") {
  const GenOptions options;
  std::array<std::size_t, family_count> families{};
  std::array<std::size_t, feature_count> features{};
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    ++families[static_cast<std::size_t>(m.family)];
    for (Feature f : m.features)
      ++features[static_cast<std::size_t>(f)];
  }
  // The bulk family, off by default, from its own seeds.
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::bulk_seed_count; ++seed) {
    const SpecModel m = generate(seed, fuzz_gen_test::bulk_options());
    ++families[static_cast<std::size_t>(m.family)];
    for (Feature f : m.features)
      ++features[static_cast<std::size_t>(f)];
  }
  // The cluster family, off by default, from its own seeds.
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::cluster_seed_count; ++seed) {
    const SpecModel m = generate(seed, fuzz_gen_test::cluster_options());
    ++families[static_cast<std::size_t>(m.family)];
    for (Feature f : m.features)
      ++features[static_cast<std::size_t>(f)];
  }
  for (std::size_t i = 0; i < family_count; ++i) {
    INFO("family " << name(static_cast<Family>(i)));
    CHECK(families[i] > 0);
  }
  for (std::size_t i = 0; i < feature_count; ++i) {
    INFO("feature " << name(static_cast<Feature>(i)));
    CHECK(features[i] > 0);
  }
}

namespace {

bool contains(const std::string& toml, std::string_view what) {
  return toml.find(what) != std::string::npos;
}

/// A line that starts with `start` and ends with `end`.
bool has_line(const std::string& toml, std::string_view start, std::string_view end) {
  std::size_t at = 0;
  while (at < toml.size()) {
    std::size_t eol = toml.find('\n', at);
    if (eol == std::string::npos)
      eol = toml.size();
    const std::string_view line(toml.data() + at, eol - at);
    if (line.starts_with(start) && line.ends_with(end))
      return true;
    at = eol + 1;
  }
  return false;
}

} // namespace

// The features are counted from what the generator says it did: check the claim against
// the printed TOML for the features a substring shows, so that a counter cannot drift
// from the spec it counts.
TEST_CASE("fuzz_gen: a claimed feature is in the TOML") {
  const GenOptions options;
  // Each text is in the TOML exactly when one of its features is claimed.
  struct Shown {
    std::vector<Feature> features;
    std::string_view text;
  };
  const Shown shown[] = {
      {{Feature::cta_scope}, "scope = \"cta\""},
      {{Feature::view_dtype, Feature::dst_view_dtype}, ".view(\""},
      {{Feature::merge_axes}, "n (a b)"},
      {{Feature::prefetch_64}, ".L2::64B"},
      {{Feature::prefetch_128}, ".L2::128B"},
      {{Feature::prefetch_256}, ".L2::256B"},
      {{Feature::policy_createpolicy}, "createpolicy("},
      {{Feature::policy_table}, "{ primary = "},
      {{Feature::src_size_expr}, "src_size = \""},
      {{Feature::ignore_src_expr}, "ignore_src = \""},
      {{Feature::pred_expr, Feature::mbarrier_ring}, "pred = \""},
      {{Feature::fill_sentinel, Feature::pipeline_body_fill}, "op = \"fill\""},
      {{Feature::for_loop, Feature::nested_loop}, "op = \"for\""},
      {{Feature::nested_loop}, "var = \"j\""},
      {{Feature::pipeline}, "op = \"pipeline\""},
      {{Feature::ring_loop}, "var = \"p\""},
      {{Feature::ring_min_prologue}, "stop = \"min("},
      {{Feature::mbarrier}, "op = \"mbarrier_init\""},
      {{Feature::mbarrier_noinc}, "noinc = true"},
      {{Feature::wait_all}, "op = \"wait_all\""},
      {{Feature::grid_stride}, "step = \"nbid\""},
      {{Feature::loop_step}, "step = 2"},
      {{Feature::loop_start_param}, "start = \"n"},
      {{Feature::abi_order}, "abi = ["},
      {{Feature::shared_cta_space}, ".shared::cta"},
      {{Feature::expect}, "[[expect]]"},
      {{Feature::launch_ids}, "ntid.x"},
      {{Feature::xor_index}, "tid ^ "},
      {{Feature::ca}, "cp.async.ca"},
      {{Feature::cg}, "cp.async.cg"},
  };
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    const std::string toml = to_toml(m);
    for (const auto& s : shown) {
      bool claimed = false;
      for (Feature f : s.features)
        claimed = claimed || m.has(f);
      INFO("seed " << seed << ", feature " << name(s.features.front()));
      CHECK(claimed == contains(toml, s.text));
    }
    INFO("seed " << seed);
    CHECK(m.has(Feature::expect_zero) == has_line(toml, "that = \"", " == 0\""));
  }
}

// The size caps of GenOptions hold for every spec (each tensor, the CTAs, shared memory
// together), so that a spec's reference and simulation take milliseconds; and a family
// switched off is never drawn.
TEST_CASE("fuzz_gen: caps and family switches") {
  GenOptions options;
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    INFO("seed " << seed);
    std::int64_t ctas = 1, shared = 0;
    for (auto g : m.grid)
      ctas *= g;
    CHECK(ctas <= options.max_ctas);
    for (const auto& t : m.tensors) {
      CHECK(t.bytes() <= options.max_tensor_bytes);
      if (t.shared) {
        const std::int64_t align = t.align ? t.align : 128;
        shared = (shared + align - 1) / align * align + t.bytes();
      }
    }
    CHECK(shared <= options.max_shared_bytes);
  }
  for (std::size_t only = 0; only < family_count; ++only) {
    GenOptions one;
    one.families.fill(false);
    one.families[only] = true;
    for (std::uint64_t seed = 1; seed <= 40; ++seed)
      CHECK(generate(seed, one).family == static_cast<Family>(only));
  }
}

} // namespace unit_fuzz_gen_coverage
