// The sm_90 bulk-copy family through the C++ API: TMA kernels built by KernelBuilder emit
// the golden PTX of the specs they transcribe (golden/tma/*.ptx, produced by `ptxgen golden`),
// are written back by to_spec_toml to a spec that emits the same, and their errors come
// back as DiagIds at the builder call's line, all in one emit.

#include "api_golden.hpp"
#include "emitter/api/api.hpp"

#include <algorithm>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_bulk {

namespace {

using namespace ptxgen::api;
using ptxgen::DiagId;
using ptxgen::api_golden::check_golden;
using ptxgen::api_golden::written_back;

const ptxgen::Diagnostic* find(const ptxgen::Diagnostics& ds, DiagId id) {
  auto it = std::find_if(ds.begin(), ds.end(), [&](const auto& d) { return d.id == id; });
  return it == ds.end() ? nullptr : &*it;
}

/// specs/tma/load_2d.toml's kernel up to its loads: a 32 x 64 box of a mapped 128 x 256 A.
struct Load2d {
  KernelBuilder k{"tma_load_2d"};
  Tensor A = k.global("A", {128, 256}, DType::float16,
                      {.init = arange_mod(251), .map = TensorMap{.box = {32, 64}}});
  Tensor B = k.global("B", {32, 64}, DType::float16, {.output = true});
  Tensor S = k.shared("S", {32, 64}, DType::float16);
  Tensor bar = k.shared("bar", {1}, DType::uint64);
  Load2d() {
    k.launch({1}, {32});
    k.mbarrier_init(bar.sub({0}), 1);
    k.cta_sync();
  }
  /// Each thread's row of a (32, 64) tensor as the spec's views spell it.
  static View row(const Tensor& t) {
    return t.rearrange("d0 d1 -> (d0 d1)", {})
        .rearrange("(t e) -> t e", {{"t", 32}})
        .sub({tid(), all});
  }
};

} // namespace

TEST_CASE("api: specs/tma/load_2d.toml in C++ (a tensor map, expect_tx, tensor_load)") {
  Load2d f;
  f.k.expect_tx(f.bar.sub({0}), 4096, {.pred = tid() == 0});
  f.k.tensor_load(f.A, {32, 64}, f.S, f.bar.sub({0}), {.pred = tid() == 0});
  f.k.mbarrier_wait(f.bar.sub({0}), 0);
  f.k.copy(Load2d::row(f.B), Load2d::row(f.S));
  f.k.expect_equal(f.B, f.A.sub({slice(32, 64), slice(64, 128)}));
  check_golden(f.k, "tma/load_2d", sm(90));
}

TEST_CASE("api: specs/tma/pipeline_tma_2d_3stage.toml in C++ (the mbarrier ring)") {
  KernelBuilder k("pipeline_tma_2d_3stage");
  k.launch({1}, {64});
  Tensor A = k.global("A", {128, 64}, DType::float16,
                      {.init = random_init(11), .map = TensorMap{.box = {16, 64}}});
  Tensor B = k.global("B", {128, 64}, DType::float16, {.output = true});
  Tensor S = k.shared("S", {3, 16, 64}, DType::float16);
  Tensor full = k.shared("full", {3}, DType::uint64);
  Tensor empty = k.shared("empty", {3}, DType::uint64);
  k.pipeline(
      {.var = "k",
       .start = 0,
       .stop = 8,
       .stages = 3,
       .full = [&](const PipelineVars& v) { return full.sub({v.stage}); },
       .empty = [&](const PipelineVars& v) { return empty.sub({v.stage}); }},
      [&](const PipelineVars& v) {
        k.tensor_load(A, {v.tile * 16, 0}, S.sub({v.stage, all, all}));
      },
      [&](const PipelineVars& v) {
        k.copy(B.rearrange("(t r) c -> t (r c)", {{"t", 8}})
                   .sub({v.tile, all})
                   .rearrange("(t e) -> t e", {{"t", 64}})
                   .sub({tid(), all}),
               S.sub({v.stage, all, all})
                   .rearrange("r c -> (r c)", {})
                   .rearrange("(t e) -> t e", {{"t", 64}})
                   .sub({tid(), all}));
      });
  k.expect_equal(B, A);
  check_golden(k, "tma/pipeline_tma_2d_3stage", sm(90));
}

TEST_CASE("api: specs/tma/pipeline_bulk_outer_loop.toml in C++ (bulk_load, ring_offset)") {
  KernelBuilder k("pipeline_bulk_outer_loop");
  k.launch({1}, {32});
  Tensor A = k.global("A", {3, 4, 512}, DType::uint32, {.init = random_init(5)});
  Tensor B = k.global("B", {3, 4, 512}, DType::uint32, {.output = true});
  Tensor S = k.shared("S", {3, 512}, DType::uint32);
  Tensor full = k.shared("full", {3}, DType::uint64);
  Tensor empty = k.shared("empty", {3}, DType::uint64);
  const auto per_thread = [](const View& v) {
    return v.rearrange("(t e) -> t e", {{"t", 32}}).sub({tid(), all});
  };
  Expr m = k.begin_for("m", 0, 3);
  k.pipeline(
      {.stop = 4,
       .stages = 3,
       .full = [&](const PipelineVars& v) { return full.sub({v.stage}); },
       .empty = [&](const PipelineVars& v) { return empty.sub({v.stage}); },
       .ring_offset = m * 4},
      [&](const PipelineVars& v) {
        k.bulk_load(S.sub({v.stage, all}), A.sub({m, v.tile, all}));
      },
      [&](const PipelineVars& v) {
        k.copy(per_thread(B.sub({m, v.tile, all})), per_thread(S.sub({v.stage, all})));
      });
  k.end_for();
  k.expect_equal(B, A);
  check_golden(k, "tma/pipeline_bulk_outer_loop", sm(90));
}

TEST_CASE("api: bulk copies, a swizzled shared tensor and abi write back to the same PTX") {
  KernelBuilder k("bulk_round_trip");
  k.launch({1}, {32});
  Tensor A = k.global("A", {64, 64}, DType::float16,
                      {.init = arange_mod(97),
                       .map = TensorMap{.box = {8, 64},
                                        .swizzle = TensorMapSwizzle::b128,
                                        .l2_promotion = TensorMapL2Promotion::b128}});
  Tensor B = k.global(
      "B", {8, 64}, DType::float16,
      {.output = true, .map = TensorMap{.box = {8, 64}, .swizzle = TensorMapSwizzle::b128}});
  Tensor C = k.global("C", {1024}, DType::uint8, {.output = true});
  Tensor S = k.shared("S", {8, 64}, DType::float16,
                      SharedOptions{.align = 1024, .swizzle = TensorMapSwizzle::b128});
  Tensor R = k.shared("R", {1024}, DType::uint8);
  Tensor bar = k.shared("bar", {1}, DType::uint64);
  k.abi({"A.map", "B", "B.map", "C"});
  k.mbarrier_init(bar.sub({0}), 1);
  k.cta_sync();
  k.expect_tx(bar.sub({0}), 1024, {.pred = tid() == 0});
  k.tensor_load(A, {8, 0}, S, bar.sub({0}), {.pred = tid() == 0});
  k.mbarrier_wait(bar.sub({0}), 0);
  k.copy(R.rearrange("(t e) -> t e", {{"t", 32}}).sub({tid(), all}),
         S.as(DType::uint8)
             .rearrange("r c -> (r c)", {})
             .rearrange("(t e) -> t e", {{"t", 32}})
             .sub({tid(), all}));
  k.proxy_fence();
  k.proxy_fence(FenceSpace::all);
  k.cta_sync();
  k.tensor_store(B, {0, 0}, S, {.pred = tid() == 0});
  k.bulk_store(C, R, {.pred = tid() == 0});
  k.bulk_commit();
  k.bulk_wait(0, true);
  const EmitResult r = emit_contract_only(k, sm(90));
  REQUIRE_MESSAGE(r.ok(), (r.diagnostics.empty() ? "" : r.diagnostics[0].message));
  const auto again = written_back(k, *r.ptx, sm(90));
  CHECK(again->abi == k.kernel().abi);
  CHECK(r.ptx->find("cp.async.bulk.wait_group.read 0;") != std::string::npos);
  CHECK(r.ptx->find("fence.proxy.async;") != std::string::npos);
}

TEST_CASE("api: bulk and TMA errors are all reported at their builder calls' lines") {
  Load2d f;
  // The box is 4096 bytes; the phase expects half of them: the wait sees it complete early.
  f.k.expect_tx(f.bar.sub({0}), 2048, {.pred = tid() == 0});
  f.k.tensor_load(f.A, {32, 64}, f.S, f.bar.sub({0}), {.pred = tid() == 0});
  f.k.tensor_load(f.B, {0, 0}, f.S, f.bar.sub({0}), {.pred = tid() == 0}); // B has no map
  const std::uint32_t unmapped_line = __LINE__ - 1;
  f.k.bulk_load(f.S, f.A.sub({slice(0, 8), all}), {.pred = tid() == 0}); // no barrier
  const std::uint32_t unbound_line = __LINE__ - 1;
  f.k.mbarrier_wait(f.bar.sub({0}), 0);
  const std::uint32_t wait_line = __LINE__ - 1;
  const EmitResult r = emit_contract_only(f.k, sm(90));
  REQUIRE_FALSE(r.ok());
  const auto* unmapped = find(r.diagnostics, DiagId::spec_tensor_map_missing);
  REQUIRE(unmapped);
  CHECK(unmapped->line == unmapped_line);
  CHECK(unmapped->file == __FILE__);
  const auto* unbound = find(r.diagnostics, DiagId::spec_missing_key);
  REQUIRE(unbound);
  CHECK(unbound->line == unbound_line);
  const auto* tx = find(r.diagnostics, DiagId::contract_mbarrier_tx);
  REQUIRE(tx);
  CHECK(tx->line == wait_line);
}

TEST_CASE("api: bulk_reduce lowers to cp.reduce.async.bulk, writes back to TOML, and refuses "
          "a pair with no PTX form at its call") {
  KernelBuilder k("reduce_api");
  k.launch({1}, {32});
  Tensor A = k.global("A", {256}, DType::bfloat16);
  Tensor B = k.global("B", {256}, DType::bfloat16, {.output = true});
  Tensor S = k.shared("S", {256}, DType::bfloat16);
  Tensor bar = k.shared("bar", {1}, DType::uint64);
  k.mbarrier_init(bar.sub({0}), 1);
  k.cta_sync();
  k.expect_tx(bar.sub({0}), 512, {.pred = tid() == 0});
  k.bulk_load(S, A, bar.sub({0}), {.pred = tid() == 0});
  k.mbarrier_wait(bar.sub({0}), 0);
  k.bulk_reduce(B, S, ReduceKind::add, {.pred = tid() == 0});
  k.bulk_commit();
  k.bulk_wait(0);
  const EmitResult r = emit_contract_only(k, sm(90));
  REQUIRE_MESSAGE(r.ok(), (r.diagnostics.empty() ? "" : r.diagnostics[0].message));
  CHECK(r.ptx->find("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16") !=
        std::string::npos);
  written_back(k, *r.ptx, sm(90));
  k.bulk_reduce(B, S, ReduceKind::inc, {.pred = tid() == 0}); // inc takes u32 only
  const std::uint32_t inc_line = __LINE__ - 1;
  const EmitResult bad = emit_contract_only(k, sm(90));
  REQUIRE_FALSE(bad.ok());
  const auto* d = find(bad.diagnostics, DiagId::contract_reduce_type);
  REQUIRE(d);
  CHECK(d->line == inc_line);
  CHECK(d->file == __FILE__);
}

TEST_CASE("api: tensor_reduce and prefetch_tensormap lower, write back to TOML, and a pair the "
          "tensor form lacks is refused at its call") {
  KernelBuilder k("tensor_reduce_api");
  k.launch({1}, {32});
  Tensor A = k.global("A", {16, 64}, DType::float64, {.map = TensorMap{.box = {16, 16}}});
  Tensor B =
      k.global("B", {16, 64}, DType::float64, {.output = true, .map = TensorMap{.box = {16, 16}}});
  Tensor S = k.shared("S", {16, 16}, DType::float64);
  Tensor bar = k.shared("bar", {1}, DType::uint64);
  k.prefetch_tensormap(B, tid() == 0);
  k.mbarrier_init(bar.sub({0}), 1);
  k.cta_sync();
  k.expect_tx(bar.sub({0}), 2048, {.pred = tid() == 0});
  k.tensor_load(A, {0, 0}, S, bar.sub({0}), {.pred = tid() == 0});
  k.mbarrier_wait(bar.sub({0}), 0);
  k.tensor_reduce(B, {0, 16}, S, ReduceKind::max, {.pred = tid() == 0}); // no max.f64 either
  const std::uint32_t max_line = __LINE__ - 1;
  k.bulk_commit();
  k.bulk_wait(0);
  const EmitResult bad = emit_contract_only(k, sm(90));
  REQUIRE_FALSE(bad.ok());
  const auto* d = find(bad.diagnostics, DiagId::contract_tensor_reduce_type);
  REQUIRE(d);
  CHECK(d->line == max_line);
  CHECK(d->file == __FILE__);

  KernelBuilder u("tensor_reduce_api");
  u.launch({1}, {32});
  Tensor C = u.global("C", {16, 64}, DType::uint32, {.map = TensorMap{.box = {16, 16}}});
  Tensor D =
      u.global("D", {16, 64}, DType::uint32, {.output = true, .map = TensorMap{.box = {16, 16}}});
  Tensor U = u.shared("U", {16, 16}, DType::uint32);
  Tensor ubar = u.shared("bar", {1}, DType::uint64);
  u.prefetch_tensormap(D, tid() == 0);
  u.mbarrier_init(ubar.sub({0}), 1);
  u.cta_sync();
  u.expect_tx(ubar.sub({0}), 1024, {.pred = tid() == 0});
  u.tensor_load(C, {0, 0}, U, ubar.sub({0}), {.pred = tid() == 0});
  u.mbarrier_wait(ubar.sub({0}), 0);
  u.tensor_reduce(D, {0, 16}, U, ReduceKind::inc, {.pred = tid() == 0});
  u.bulk_commit();
  u.bulk_wait(0);
  const EmitResult r = emit_contract_only(u, sm(90));
  REQUIRE_MESSAGE(r.ok(), (r.diagnostics.empty() ? "" : r.diagnostics[0].message));
  CHECK(r.ptx->find("cp.reduce.async.bulk.tensor.2d.global.shared::cta.inc.tile.bulk_group") !=
        std::string::npos);
  CHECK(r.ptx->find("prefetch.tensormap [%rd") != std::string::npos);
  written_back(u, *r.ptx, sm(90));
}

TEST_CASE("api: a ring pipeline's keys and loads are checked as a spec's are") {
  KernelBuilder k("ring_errors");
  k.launch({1}, {64});
  Tensor A = k.global("A", {128, 64}, DType::float16, {.map = TensorMap{.box = {16, 64}}});
  Tensor B = k.global("B", {128, 64}, DType::float16, {.output = true});
  Tensor S = k.shared("S", {3, 16, 64}, DType::float16);
  Tensor full = k.shared("full", {3}, DType::uint64);
  const auto body = [&](const PipelineVars& v) {
    k.copy(B.sub({v.tile * 16 + tid() / 4, all}), S.sub({v.stage, tid() / 4, all}));
  };
  // No `empty`: reported at the pipeline; a load naming its own barrier: at the load.
  std::uint32_t load_line = 0;
  const std::uint32_t pipeline_line = __LINE__ + 1;
  k.pipeline(
      {.stop = 8, .stages = 3, .full = [&](const PipelineVars& v) { return full.sub({v.stage}); }},
      [&](const PipelineVars& v) {
        load_line = __LINE__ + 1;
        k.tensor_load(A, {v.tile * 16, 0}, S.sub({v.stage, all, all}), full.sub({v.stage}));
      },
      body);
  // A cp.async pipeline has no ring: its `full` is refused.
  k.pipeline(
      {.var = "j",
       .stop = 8,
       .stages = 2,
       .full = [&](const PipelineVars& v) { return full.sub({v.stage}); }},
      [&](const PipelineVars& v) {
        k.apply(cp_async(CacheOp::cg), S.sub({v.stage, tid() / 4, slice(0, 8)}),
                A.sub({v.tile * 16 + tid() / 4, slice(0, 8)}), 16);
      },
      body);
  const Diagnostics ds = k.diagnostics();
  CAPTURE(ds.format_all());
  CHECK(ds.items().size() == 3);
  const auto* missing = find(ds, DiagId::spec_missing_key);
  REQUIRE(missing);
  CHECK(missing->line == pipeline_line);
  std::vector<std::uint32_t> ring_lines;
  for (const auto& d : ds)
    if (d.id == DiagId::spec_pipeline_ring_barrier)
      ring_lines.push_back(d.line);
  CHECK(ring_lines.size() == 2);
  CHECK(std::count(ring_lines.begin(), ring_lines.end(), load_line) == 1);
}

} // namespace unit_api_bulk
