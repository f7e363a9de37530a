// Contract violations and builder errors through the C++ API come back as
// DiagIds (never message text) at the position the call gave, or at the C++ call
// site by default.

#include "emitter/api/api.hpp"
#include "emitter/ptx/validator.hpp"

#include <algorithm>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_contract {

namespace {

using namespace ptxgen::api;
using ptxgen::DiagId;

const ptxgen::Diagnostic* find(const ptxgen::Diagnostics& ds, DiagId id) {
  auto it = std::find_if(ds.begin(), ds.end(), [&](const auto& d) { return d.id == id; });
  return it == ds.end() ? nullptr : &*it;
}

/// A kernel of 128 threads with a (128, 32) float16 global A and shared S.
struct Fixture {
  KernelBuilder k{"bad"};
  Tensor A = k.global("A", {128, 32}, DType::float16);
  Tensor S = k.shared("S", {128, 32}, DType::float16);
  Fixture() { k.launch({1}, {128}); }
};

} // namespace

TEST_CASE("api: a cg copy of 8 bytes fails the contract at the given position") {
  Fixture f;
  // Each thread copies a row's first 4 elements: 8 bytes, but .cg copies 16.
  f.k.apply(cp_async(CacheOp::cg), f.S.sub({tid(), slice(0, 4)}), f.A.sub({tid(), slice(0, 4)}), 8,
            {}, Pos("gen.dsl", 12, 5));
  f.k.commit_group();
  f.k.wait_all();
  const EmitResult r = emit_contract_only(f.k);
  CHECK_FALSE(r.ok());
  const auto* d = find(r.diagnostics, DiagId::contract_cg_chunk);
  REQUIRE(d != nullptr);
  CHECK(d->file == "gen.dsl");
  CHECK(d->line == 12);
  CHECK(d->column == 5);
}

TEST_CASE("api: by default the position is the C++ call site") {
  Fixture f;
  const std::uint32_t line = __LINE__ + 1;
  f.k.apply(cp_async(CacheOp::ca), f.A.sub({tid(), slice(0, 8)}), f.S.sub({tid(), slice(0, 8)}),
            16);
  const EmitResult r = emit_contract_only(f.k);
  CHECK_FALSE(r.ok());
  const auto* d = find(r.diagnostics, DiagId::contract_direction); // shared -> global
  REQUIRE(d != nullptr);
  CHECK(d->line == line);
  CHECK(d->file.find("api_contract.cpp") != std::string::npos);
}

TEST_CASE("api: Pos::none() gives a diagnostic without a position") {
  Fixture f;
  f.k.wait_group(ptxgen::ptx::max_wait_group + 1, Pos::none());
  const EmitResult r = emit_contract_only(f.k);
  const auto* d = find(r.diagnostics, DiagId::contract_wait_group_range);
  REQUIRE(d != nullptr);
  CHECK(d->line == 0);
}

TEST_CASE("api: the builder's own checks use the loader's DiagIds") {
  SUBCASE("a reserved name") {
    KernelBuilder k("k");
    k.global("tid", {4}, DType::uint8);
    CHECK(k.diagnostics().has(DiagId::spec_reserved_name));
  }
  SUBCASE("a name that is not an identifier") {
    KernelBuilder k("k");
    k.param_u32("2x", 1);
    CHECK(k.diagnostics().has(DiagId::spec_bad_name));
  }
  SUBCASE("a tensor named like a parameter") {
    KernelBuilder k("k");
    k.param_u32("n", 1);
    k.global("n", {4}, DType::uint8);
    CHECK(k.diagnostics().has(DiagId::spec_name_clash));
  }
  SUBCASE("a launch out of range") {
    KernelBuilder k("k");
    k.launch({1}, {2048});
    CHECK(k.diagnostics().has(DiagId::spec_block_range));
  }
  SUBCASE("a parameter value outside its range") {
    KernelBuilder k("k");
    k.param_u32("n", 9, ptxgen::tile::Interval{0, 4});
    CHECK(k.diagnostics().has(DiagId::spec_param_outside_range));
  }
  SUBCASE("a loop bound that differs between threads, and a loop left open") {
    KernelBuilder k("k");
    k.begin_for("i", 0, tid());
    CHECK(k.diagnostics().has(DiagId::spec_loop_bound_per_thread));
    CHECK(k.diagnostics().has(DiagId::spec_loop_unclosed));
    CHECK_FALSE(emit_contract_only(k).ok());
  }
  SUBCASE("an end_for without a loop") {
    KernelBuilder k("k");
    k.end_for();
    CHECK(k.diagnostics().has(DiagId::spec_loop_stray_end));
  }
  SUBCASE("a loop variable used after its loop") {
    Fixture f;
    Expr i = f.k.begin_for("i", 0, 4);
    f.k.end_for();
    f.k.copy(f.A.sub({i, all}), f.A.sub({0, all}));
    CHECK(f.k.diagnostics().has(DiagId::expr_unknown_name));
  }
  SUBCASE("a view that failed is reported once, at its failed step, when it is used") {
    Fixture f;
    const View bad = f.A.sub({tid(), slice(0, 40)}, Pos("g", 3, 1)); // 40 > 32
    CHECK(f.k.diagnostics().empty());
    f.k.copy(bad, f.A.sub({tid(), all}), Pos("g", 9, 1));
    REQUIRE(f.k.diagnostics().items().size() == 1);
    CHECK(f.k.diagnostics().items()[0].id == DiagId::view_slice_range);
    CHECK(f.k.diagnostics().items()[0].line == 3);
    CHECK(f.k.kernel().ops.empty());
  }
  SUBCASE("an mbarrier in global memory") {
    KernelBuilder k("k");
    Tensor bar = k.global("bar", {1}, DType::uint64);
    k.mbarrier_init(bar.sub({0}), 1);
    CHECK(k.diagnostics().has(DiagId::spec_mbarrier_operand));
  }
  SUBCASE("an expectation about a shared tensor") {
    Fixture f;
    f.k.expect_sentinel(f.S);
    CHECK(f.k.diagnostics().has(DiagId::spec_expect_not_global));
  }
}

TEST_CASE("api: a loop over tiles with a parameter lowers through the shared contract") {
  KernelBuilder k("tiles");
  k.launch({1}, {128});
  Expr tiles = k.param_u32("tiles", 4, ptxgen::tile::Interval{1, 4});
  Tensor A = k.global("A", {4, 128, 16}, DType::uint8, {.init = arange_mod(251)});
  Tensor B = k.global("B", {4, 128, 16}, DType::uint8, {.output = true});
  Tensor S = k.shared("S", {128, 16}, DType::uint8);
  Expr t = k.begin_for("t", 0, tiles);
  k.apply(cp_async(CacheOp::cg), S.sub({tid(), all}), A.sub({t, tid(), all}), 16);
  k.commit_group();
  k.wait_all();
  k.copy(B.sub({t, tid(), all}), S.sub({tid(), all}));
  k.end_for();
  const EmitResult r = emit_contract_only(k);
  CHECK(r.ok());
  // Widen the parameter's range past the tensor: the contract finds the overrun.
  KernelBuilder wide("tiles");
  wide.launch({1}, {128});
  Expr many = wide.param_u32("tiles", 4, ptxgen::tile::Interval{1, 5});
  Tensor A2 = wide.global("A", {4, 128, 16}, DType::uint8);
  Tensor S2 = wide.shared("S", {128, 16}, DType::uint8);
  Expr t2 = wide.begin_for("t", 0, many);
  wide.apply(cp_async(CacheOp::cg), S2.sub({tid(), all}), A2.sub({t2, tid(), all}), 16, {},
             Pos("loop.dsl", 7, 2));
  wide.end_for();
  const EmitResult bad = emit_contract_only(wide);
  CHECK_FALSE(bad.ok());
  const auto* d = find(bad.diagnostics, DiagId::contract_out_of_bounds);
  REQUIRE(d != nullptr);
  CHECK(d->line == 7);
}

} // namespace unit_api_contract
