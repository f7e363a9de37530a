// The CPU reference's fast path (driver/reference/affine_view.hpp: a view located through
// an affine form derived from the reference's own plan) against its naive path (every byte
// through naive_locate), which stays the oracle:
//  - the whole reference, run both ways, gives the same bytes, definedness and findings
//    (problems and notes, with their texts) on every loadable spec of the corpus
//    (races and faults included: hazard detection must not change) and on generated specs;
//  - where a view has a form, it locates every element as naive_locate does; a view whose
//    merged names do not nest has none.

#include "driver/reference/affine_view.hpp"
#include "driver/reference/reference.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"
#include "fuzz_gen_seeds.hpp"
#include "reference_difference.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_affine {

namespace {

using namespace ptxgen;
namespace fs = std::filesystem;

/// Specs whose global tensors hold more bytes than this run only the fast path elsewhere
/// (check, sim.corpus): the naive path takes seconds on them.
constexpr std::size_t naive_byte_budget = std::size_t{1} << 20;

/// Runs the reference both ways on k; false (with a message) when they differ.
/// Skipped (true) above the byte budget; `compared` counts the others.
bool same_both_ways(const tile::Kernel& k, const std::string& what, std::size_t& compared) {
  driver::ReferenceInput in;
  in.kernel = &k;
  std::size_t bytes = 0;
  for (const auto& t : k.tensors) {
    if (t->tensor.space == tile::Space::global) {
      in.global[t->tensor.name] = driver::initial_bytes(*t);
      bytes += in.global[t->tensor.name].size();
    }
  }
  if (bytes > naive_byte_budget)
    return true;
  ++compared;
  const driver::ReferenceOutput fast = driver::evaluate_reference(in);
  in.fast = false;
  const driver::ReferenceOutput naive = driver::evaluate_reference(in);
  const std::string diff = reference_test::difference(fast, naive);
  if (!diff.empty()) {
    MESSAGE(what << ": the fast and the naive reference differ in " << diff);
    return false;
  }
  return true;
}

} // namespace

TEST_CASE("reference: fast path == naive path on the corpus, races and faults included") {
  std::string err;
  std::size_t compared = 0;
  std::size_t differ = 0;
  REQUIRE_MESSAGE(
      reference_test::each_corpus_kernel(err,
                                         [&](const fs::path& spec, const tile::Kernel& k) {
                                           if (!same_both_ways(k, spec.string(), compared))
                                             ++differ;
                                         }),
      err);
  MESSAGE("compared " << compared << " specs");
  CHECK(compared >= 100);
  CHECK(differ == 0);
}

TEST_CASE("reference: fast path == naive path on generated specs") {
  const driver::fuzz::GenOptions options;
  std::size_t compared = 0;
  std::size_t differ = 0;
  // The first 100 seeds of the fixed range (fewer in the sanitizer build, as fuzz_gen's).
  const std::uint64_t count = std::min<std::uint64_t>(100, fuzz_gen_test::checked_seed_count);
  for (std::uint64_t seed = fuzz_gen_test::first_seed; seed < fuzz_gen_test::first_seed + count;
       ++seed) {
    const std::string toml = driver::fuzz::to_toml(driver::fuzz::generate(seed, options));
    auto loaded = driver::load_spec_text(toml, "seed_" + std::to_string(seed) + ".toml");
    REQUIRE_MESSAGE(loaded, "seed " << seed << "\n" << loaded.diagnostics.format_all());
    if (!same_both_ways(**loaded.value, "seed " + std::to_string(seed), compared))
      ++differ;
  }
  CHECK(compared >= count * 9 / 10);
  CHECK(differ == 0);
}

namespace {

/// A kernel whose one op fills view `dst` (any shape: a fill takes every view).
std::unique_ptr<tile::Kernel> fill_kernel(const std::string& dst) {
  const std::string toml = R"([kernel]
name = "k"
grid = 2
block = 8

[tensor.A]
space = "global"
shape = [8, 4, 4]
dtype = "uint16"
output = true

[[op]]
op = "fill"
pattern = "0x5A"
dst = ')" + dst + "'\n";
  auto loaded = driver::load_spec_text(toml, "affine.toml");
  REQUIRE_MESSAGE(loaded, loaded.diagnostics.format_all());
  return std::move(*loaded.value);
}

/// Every thread, every coordinate: the form (where there is one) == naive_locate.
/// Returns how many threads had a form.
std::size_t check_against_naive(const tile::Kernel& k, const tile::View& v) {
  const driver::NaivePlan plan = driver::naive_plan(v);
  REQUIRE(plan.ok());
  std::size_t with_form = 0;
  tile::ExprEnv env;
  env.block_dim = k.block_dim;
  env.grid_dim = k.grid_dim;
  for (env.tid = 0; env.tid < k.block; ++env.tid) {
    const auto form = driver::affine_form(plan, v, env);
    if (!form)
      continue;
    ++with_form;
    const auto& shape = plan.shape();
    std::vector<std::int64_t> c(shape.size(), 0);
    for (bool more = true; more;) {
      const auto naive = driver::naive_locate(plan, v, env, c);
      REQUIRE(naive.in_bounds);
      REQUIRE(naive.offsets.size() == static_cast<std::size_t>(form->element_bytes));
      for (std::size_t i = 0; i < naive.offsets.size(); ++i)
        CHECK(naive.offsets[i] == form->offset(c) + static_cast<std::int64_t>(i));
      more = false;
      for (std::size_t a = c.size(); a-- > 0;) {
        if (++c[a] < shape[a]) {
          more = true;
          break;
        }
        c[a] = 0;
      }
    }
  }
  return with_form;
}

} // namespace

TEST_CASE("affine_form: nested names, dtype views and indices locate as naive_locate does") {
  for (const char* src :
       {"A.rearrange(\"a b v -> a (b v)\").sub[tid, :]",
        "A.rearrange(\"a b v -> b a v\").sub[:, tid, :].rearrange(\"b v -> (b v)\")"
        ".rearrange(\"(x y) -> x y\", y=2).view(\"uint32\").view(\"uint16\")"
        ".rearrange(\"x y -> (x y)\")",
        "A.view(\"uint32\").sub[tid, 1:3, :].view(\"uint16\").rearrange(\"b v -> (b v)\")"
        ".sub[0:4].rearrange(\"(p q) -> (p q)\", q=2).rearrange(\"n -> n\").view(\"uint8\")"
        ".view(\"uint16\").rearrange(\"(m n) -> m n\", n=4).rearrange(\"m n -> (m n)\")"}) {
    CAPTURE(src);
    auto k = fill_kernel(src);
    const auto& v = std::get<tile::FillOp>(k->ops[0].body).dst.value;
    CHECK(check_against_naive(*k, v) == static_cast<std::size_t>(k->block));
  }
}

TEST_CASE("affine_form: an index outside its axis has no form (naive_locate reports it)") {
  // Threads 0-3 index rows 4-7; threads 4-7 rows 8-11, outside A's 8 rows: no form, and the
  // naive path reports the bytes outside the tensor (the contract would refuse the spec;
  // the loader alone does not).
  auto k = fill_kernel("A.sub[tid + 4, :, :]");
  const auto& v = std::get<tile::FillOp>(k->ops[0].body).dst.value;
  CHECK(check_against_naive(*k, v) == 4);
  // ... and the reference reports the same findings both ways.
  std::size_t compared = 0;
  CHECK(same_both_ways(*k, "index outside its axis", compared));
  CHECK(compared == 1);
}

} // namespace unit_reference_affine
