// Every spec of the fixed seed range is built through the emitter's builder from its typed
// model (build_kernel) without a diagnostic, and the two front doors agree: the kernel the
// builder made and the one the TOML reader loads from to_toml() emit the same PTX, and so
// does the kernel printed back by the kernel-to-TOML printer (api::to_spec_toml) and loaded.

#include "driver/run/to_toml.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/api/emit.hpp"
#include "fuzz_gen_seeds.hpp"

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_fuzz_gen_build {

using namespace ptxgen;
using namespace ptxgen::driver::fuzz;

namespace {

std::string ptx_of(const tile::Kernel& k) {
  const auto r = api::emit_contract_only(k);
  if (r.ptx)
    return *r.ptx;
  std::string out = "not emitted:";
  for (const auto& d : r.diagnostics)
    out += "\n" + d.message;
  return out;
}

} // namespace

TEST_CASE("fuzz_gen: every model of the fixed seed range is built by the builder, as its TOML") {
  const GenOptions options;
  for (std::uint64_t seed = fuzz_gen_test::first_seed;
       seed < fuzz_gen_test::first_seed + fuzz_gen_test::checked_seed_count; ++seed) {
    const SpecModel m = generate(seed, options);
    const std::string toml = to_toml(m);
    INFO("seed " << seed << ":\n" << toml);
    auto built = build_kernel(m);
    REQUIRE_MESSAGE(built, built.diagnostics.format_all());
    auto loaded = driver::load_spec_text(toml, "spec.toml");
    REQUIRE_MESSAGE(loaded, loaded.diagnostics.format_all());
    const std::string ptx = ptx_of(**built);
    CHECK(ptx.rfind("not emitted", 0) != 0);
    CHECK(ptx == ptx_of(**loaded));
    CHECK((*built)->expectations.size() == m.expects.size());
    // What PTX does not show: how each tensor starts in test runs, as the model says.
    REQUIRE((*built)->tensors.size() == m.tensors.size());
    for (std::size_t i = 0; i < m.tensors.size(); ++i) {
      const tile::TensorInit want = m.tensors[i].init.value_or(tile::TensorInit{});
      const tile::TensorInit& got = (*built)->tensors[i]->init;
      CHECK((got.kind == want.kind && got.modulus == want.modulus && got.seed == want.seed &&
             got.value == want.value));
    }
    auto printed = driver::load_spec_text(api::to_spec_toml(**built), "printed.toml");
    REQUIRE_MESSAGE(printed, printed.diagnostics.format_all());
    CHECK(ptx == ptx_of(**printed));
  }
}

// The builder says why a model is not a kernel: a mutant's edit, built, is refused with the
// rule's DiagId where the builder holds that rule (those the contract or the reference
// hold are the job of check, fuzz_gen_mutants).
TEST_CASE("fuzz_gen: the builder refuses a model that breaks one of its rules") {
  SpecModel m = generate(fuzz_gen_test::first_seed, GenOptions{});
  m.block = {0};
  auto built = build_kernel(m);
  REQUIRE_FALSE(built);
  bool named = false;
  for (const auto& d : built.diagnostics.items())
    named = named || d.id == DiagId::spec_block_range;
  CHECK(named);
}

// The model is a door of its own: a misspelt dtype, scope or key in it is refused by the
// builder's calls the TOML reader makes too, with the reader's DiagId and (where the model
// knows what the reader knows) its message.
TEST_CASE("fuzz_gen: the model's misspellings are refused by the builder, as the reader's") {
  const SpecModel m = generate(fuzz_gen_test::first_seed, GenOptions{});
  const auto first = [](const Diagnostics& ds, DiagId id) -> const Diagnostic* {
    for (const auto& d : ds.items())
      if (d.id == id)
        return &d;
    return nullptr;
  };
  int checked = 0;
  for (const Mutant& mu : mutants(m, 1)) {
    const DiagId id = mu.refused_with;
    if (id != DiagId::spec_unknown_dtype && id != DiagId::spec_unknown_scope &&
        id != DiagId::spec_unknown_key)
      continue;
    INFO(mu.what << ":\n" << mu.toml);
    const auto built = build_kernel(mu.model);
    const auto loaded = driver::load_spec_text(mu.toml, "spec.toml");
    const Diagnostic* b = first(built.diagnostics, id);
    const Diagnostic* l = first(loaded.diagnostics, id);
    REQUIRE(b != nullptr);
    REQUIRE(l != nullptr);
    if (id != DiagId::spec_unknown_key) // the reader names the table and its keys
      CHECK(b->message == l->message);
    ++checked;
  }
  CHECK(checked == 3);
}

} // namespace unit_fuzz_gen_build
