// The C++ API builds the seed kernels and emits exactly the PTX `ptxgen golden`
// wrote for their TOML specs (golden/seed/*.ptx, produced by the tool).

#include "driver/run/spec_files.hpp"
#include "emitter/api/api.hpp"

#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_emit {

namespace {

using namespace ptxgen::api;

std::string read_golden(const std::string& relative) {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/" + relative, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The options `ptxgen golden` emits the spec `spec` with (its header, sm_80).
EmitOptions golden_options(const std::string& spec) {
  EmitOptions o;
  o.header_comments = ptxgen::driver::golden_header(spec);
  return o;
}

/// specs/seed/copy_async.toml, in C++.
KernelBuilder copy_async() {
  KernelBuilder k("copy_async");
  k.launch({1}, {128});
  Tensor A = k.global("A", {128, 32}, DType::float16, {.init = arange_mod(97)});
  Tensor B = k.global("B", {128, 32}, DType::float16, {.output = true});
  Tensor shared = k.shared("shared", {128, 32}, DType::float16);
  const std::vector<AxisSize> sizes = {{"w", 4}, {"t", 32}, {"v", 8}};
  k.apply(cp_async(CacheOp::cg), shared.rearrange("(w t) (r v) -> w t r v", sizes),
          A.rearrange("(w t) (r v) -> w t r v", sizes), 16, {.scope = Scope::cta});
  k.commit_group();
  k.wait_group(0);
  k.cta_sync();
  k.copy(B.sub({tid(), all}), shared.sub({tid(), all}));
  k.expect_equal(B, A);
  return k;
}

/// specs/seed/zero_fill_if_then_else.toml, in C++.
KernelBuilder zero_fill() {
  KernelBuilder k("zero_fill_if_then_else");
  k.launch({1}, {128});
  Expr valid_rows = k.param_u32("valid_rows", 37);
  Tensor A = k.global("A", {128, 16}, DType::uint8, {.init = random_init(7)});
  Tensor B = k.global("B", {128, 16}, DType::uint8, {.output = true});
  Tensor shared = k.shared("shared", {128, 16}, DType::uint8);
  k.fill(shared.sub({tid(), all}), {0x5A});
  k.cta_sync();
  k.apply(cp_async(CacheOp::cg, L2Prefetch::b128), shared.sub({tid(), all}), A.sub({tid(), all}),
          16, {.src_size = select(tid() < valid_rows, 16, 0)});
  k.commit_group();
  k.wait_all();
  k.cta_sync();
  k.copy(B.sub({tid(), all}), shared.sub({tid(), all}));
  k.expect_equal(B.sub({slice(0, 37), all}), A.sub({slice(0, 37), all}));
  return k;
}

} // namespace

TEST_CASE("api: the seed kernel built in C++ emits the golden PTX of its spec") {
  const KernelBuilder k = copy_async();
  CHECK(k.diagnostics().empty());
  const EmitResult r = emit_contract_only(k, golden_options("specs/seed/copy_async.toml"));
  REQUIRE(r.ok());
  CHECK(r.diagnostics.empty());
  CHECK(*r.ptx == read_golden("golden/seed/copy_async.ptx"));
}

TEST_CASE("api: the zero-fill seed (parameter, fill, src_size select, prefetch) emits its golden") {
  const KernelBuilder k = zero_fill();
  const EmitResult r =
      emit_contract_only(k, golden_options("specs/seed/zero_fill_if_then_else.toml"));
  REQUIRE(r.ok());
  CHECK(*r.ptx == read_golden("golden/seed/zero_fill_if_then_else.ptx"));
}

TEST_CASE("api: the opcode as a string and views as strings give the same PTX") {
  KernelBuilder k("copy_async");
  k.launch({1}, {128});
  k.global("A", {128, 32}, DType::float16, {.init = arange_mod(97)});
  k.global("B", {128, 32}, DType::float16, {.output = true});
  k.shared("shared", {128, 32}, DType::float16);
  k.apply("cp.async.cg.shared.global",
          k.view(R"(shared.rearrange("(w t) (r v) -> w t r v", w=4, t=32, v=8))"),
          k.view(R"(A.rearrange("(w t) (r v) -> w t r v", w=4, t=32, v=8))"), 16,
          {.scope = Scope::cta});
  k.commit_group();
  k.wait_group(0);
  k.cta_sync();
  k.copy(k.view("B.sub[tid, :]"), k.view("shared.sub[tid, :]"));
  const EmitResult r = emit_contract_only(k, golden_options("specs/seed/copy_async.toml"));
  REQUIRE(r.ok());
  CHECK(*r.ptx == read_golden("golden/seed/copy_async.ptx"));
}

TEST_CASE("api: the builder's kernel equals the loaded spec's, op for op") {
  // finish() hands over the tile::Kernel; its views are the loader's views.
  auto built = copy_async().finish();
  REQUIRE(built);
  const ptxgen::tile::Kernel& k = **built;
  CHECK(k.ops.size() == 5);
  CHECK(k.expectations.size() == 1);
  const auto& a = std::get<ptxgen::tile::ApplyOp>(k.ops[0].body);
  CHECK(a.dst.text == R"(shared.rearrange("(w t) (r v) -> w t r v", w=4, t=32, v=8))");
  CHECK(a.opcode.text == "cp.async.cg.shared.global");
}

} // namespace unit_api_emit
