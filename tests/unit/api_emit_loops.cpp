// Loops, pipelines and mbarriers built in C++ emit the golden PTX of the specs
// they transcribe (golden/*/*.ptx, produced by `ptxgen golden --update`).

#include "driver/run/spec_files.hpp"
#include "emitter/api/api.hpp"

#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_emit_loops {

namespace {

using namespace ptxgen::api;

std::string read_golden(const std::string& relative) {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/" + relative, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void check_golden(const KernelBuilder& k, const std::string& name) {
  EmitOptions o;
  o.header_comments = ptxgen::driver::golden_header("specs/" + name + ".toml");
  const EmitResult r = emit_contract_only(k, o);
  REQUIRE_MESSAGE(r.ok(), (r.diagnostics.empty() ? "" : r.diagnostics[0].message));
  CHECK(*r.ptx == read_golden("golden/" + name + ".ptx"));
}

} // namespace

TEST_CASE("api: specs/mbarrier/single_stage.toml in C++") {
  KernelBuilder k("mbarrier_single_stage");
  k.launch({1}, {128});
  Tensor A = k.global("A", {128, 16}, DType::uint8, {.init = arange_mod(251)});
  Tensor B = k.global("B", {128, 16}, DType::uint8, {.output = true});
  Tensor s = k.shared("s", {128, 16}, DType::uint8);
  Tensor bar = k.shared("bar", {1}, DType::uint64);
  k.mbarrier_init(bar.sub({0}), 128);
  k.cta_sync();
  k.apply(cp_async(CacheOp::cg), s.sub({tid(), all}), A.sub({tid(), all}), 16);
  k.copy_arrive(bar.sub({0}));
  k.mbarrier_arrive(bar.sub({0}));
  k.mbarrier_wait(bar.sub({0}), 0);
  k.copy(B.sub({127 - tid(), all}), s.sub({127 - tid(), all}));
  k.expect_equal(B, A);
  check_golden(k, "mbarrier/single_stage");
}

TEST_CASE("api: specs/pipeline/double_buffer.toml in C++") {
  KernelBuilder k("double_buffer");
  k.launch({1}, {64});
  Tensor A = k.global("A", {8, 64, 8}, DType::float16, {.init = arange_mod(251)});
  Tensor B = k.global("B", {8, 64, 8}, DType::float16, {.output = true});
  Tensor ring = k.shared("ring", {2, 64, 8}, DType::float16);
  k.pipeline(
      {.var = "k", .start = 0, .stop = 8, .stages = 2},
      [&](const PipelineVars& v) {
        k.apply(cp_async(CacheOp::cg), ring.sub({v.stage, tid(), all}), A.sub({v.tile, tid(), all}),
                16);
      },
      [&](const PipelineVars& v) {
        k.copy(B.sub({v.tile, tid(), all}), ring.sub({v.stage, 63 - tid(), all}));
      });
  check_golden(k, "pipeline/double_buffer");
}

TEST_CASE("api: specs/pipeline/in_outer_loop.toml in C++ (a pipeline in a for, a parameter)") {
  KernelBuilder k("in_outer_loop");
  k.launch({1}, {64});
  Expr k_tiles = k.param_u32("k_tiles", 3, ptxgen::tile::Interval{1, 4});
  Tensor A = k.global("A", {3, 4, 64, 16}, DType::uint8, {.init = random_init(23)});
  Tensor B = k.global("B", {3, 4, 64, 16}, DType::uint8, {.output = true});
  Tensor ring = k.shared("ring", {2, 64, 16}, DType::uint8);
  Expr m = k.begin_for("m", 0, 3);
  k.pipeline(
      {.var = "k", .start = 0, .stop = k_tiles, .stages = 2},
      [&](const PipelineVars& v) {
        k.apply(cp_async(CacheOp::cg), ring.sub({v.stage, tid(), all}),
                A.sub({m, v.tile, tid(), all}), 16);
      },
      [&](const PipelineVars& v) {
        k.copy(B.sub({m, v.tile, tid(), all}), ring.sub({v.stage, 63 - tid(), all}));
      });
  k.end_for();
  k.expect_value(B.sub({all, from(3)}), 0); // no tile past k_tiles is written
  check_golden(k, "pipeline/in_outer_loop");
}

TEST_CASE("api: a pipeline's loads and consumer are checked as the loader checks them") {
  KernelBuilder k("p");
  k.launch({1}, {64});
  Tensor A = k.global("A", {8, 64, 16}, DType::uint8);
  Tensor ring = k.shared("ring", {2, 64, 16}, DType::uint8);
  SUBCASE("one stage") {
    k.pipeline({.var = "t", .stop = 8, .stages = 1}, {}, {});
    CHECK(k.diagnostics().has(ptxgen::DiagId::spec_pipeline_stages));
  }
  SUBCASE("a load whose dst ignores the stage") {
    k.pipeline(
        {.var = "t", .stop = 8},
        [&](const PipelineVars& v) {
          k.apply(cp_async(CacheOp::cg), ring.sub({0, tid(), all}), A.sub({v.tile, tid(), all}),
                  16);
        },
        [&](const PipelineVars&) {
          k.fill(ring.sub({1, tid(), all}), {0});
        });
    CHECK(k.diagnostics().has(ptxgen::DiagId::spec_pipeline_load_stage));
  }
  SUBCASE("a barrier in the consumer") {
    k.pipeline(
        {.var = "t", .stop = 8},
        [&](const PipelineVars& v) {
          k.apply(cp_async(CacheOp::cg), ring.sub({v.stage, tid(), all}),
                  A.sub({v.tile, tid(), all}), 16);
        },
        [&](const PipelineVars&) { k.cta_sync(); });
    CHECK(k.diagnostics().has(ptxgen::DiagId::spec_pipeline_body_op));
  }
  CHECK(k.kernel().ops.empty());
}

} // namespace unit_api_emit_loops
