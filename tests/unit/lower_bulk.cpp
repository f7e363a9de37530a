// The lowering of the sm_90 bulk-copy family (emitter/lower/select_bulk.cpp): each op's exact
// instruction, the tensor map parameter (declared as nvcc 13.0 declares a
// `const __grid_constant__ CUtensorMap`, addressed through cvta.param), the parameter order
// with and without `abi`, every module assembled by ptxas for sm_90 where ptxas is found.
//
// The contract of the bulk family is not on this branch yet: the kernels are lowered
// unchecked (LowerOptions::unchecked), and a test fails on any warning the validator gives.
// Expected lines are written by hand from the PTX ISA's forms.

#include "driver/ptxas/ptxas.hpp"
#include "emitter/lower/abi.hpp"
#include "lower_harness.hpp"
#include "sim_test_data.hpp"

#include <string>
#include <vector>

namespace unit_lower_bulk {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

/// One warp; global A and B of 64 x 64 bytes, A with a map of 32 x 64 boxes; a shared S
/// of 32 x 64 bytes aligned for a tensor copy; one barrier.
constexpr std::string_view kTensors = R"TOML([kernel]
name = "k"
block = 32

[tensor.A]
space = "global"
shape = [64, 64]
dtype = "uint8"

[tensor.A.map]
box = [32, 64]

[tensor.B]
space = "global"
shape = [64, 64]
dtype = "uint8"

[tensor.S]
space = "shared"
shape = [32, 64]
dtype = "uint8"
align = 128

[tensor.bar]
space = "shared"
shape = [1]
dtype = "uint64"
)TOML";

std::string op(std::string_view name, std::string_view keys = {}) {
  return "\n[[op]]\nop = \"" + std::string(name) + "\"\n" + std::string(keys);
}

/// The instructions every test below starts with: tid, `tid == 0`, the shared bases.
constexpr std::string_view kElect = "mov.u32 %r1, %tid.x;\n"
                                    "setp.eq.u32 %p1, %r1, 0;\n";

} // namespace

TEST_CASE("bulk_load, bulk_store, commit, wait and proxy_fence: one instruction each" *
          doctest::test_suite("ptxas")) {
  const std::string spec =
      std::string(kTensors) + op("proxy_fence") +
      op("bulk_load", "dst = 'S'\nsrc = 'A.sub[32:64, :]'\nbarrier = 'bar.sub[0]'\n"
                      "pred = \"tid == 0\"\n") +
      op("bulk_store", "dst = 'B.sub[16:48, :]'\nsrc = 'S'\npred = \"tid == 0\"\n") +
      op("bulk_commit") + op("bulk_wait", "n = 0\nread = true\n") + op("bulk_wait", "n = 1\n");
  const ptx::Module m = lowered(spec, unchecked_sm90());
  CHECK(instructions(m) ==
        "fence.proxy.async.shared::cta;\n" + std::string(kElect) +
            "mov.u32 %r2, smem_S;\n"
            "ld.param.u64 %rd1, [arg_A];\n"
            "cvta.to.global.u64 %rd2, %rd1;\n"
            "mov.u32 %r3, smem_bar;\n"
            "@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], "
            "[%rd2+2048], 2048, [%r3];\n"
            "ld.param.u64 %rd3, [arg_B];\n"
            "cvta.to.global.u64 %rd4, %rd3;\n"
            "@%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd4+1024], [%r2], 2048;\n"
            "cp.async.bulk.commit_group;\n"
            "cp.async.bulk.wait_group.read 0;\n"
            "cp.async.bulk.wait_group 1;\n"
            "ret;\n");
  CHECK(m.target.str() == "sm_90");
  assembles(m);
}

TEST_CASE("proxy_fence's space: .shared::cta, .global or the unqualified fence" *
          doctest::test_suite("ptxas")) {
  const std::string spec =
      std::string(kTensors) + op("proxy_fence") + op("proxy_fence", "space = \"shared::cta\"\n") +
      op("proxy_fence", "space = \"global\"\n") + op("proxy_fence", "space = \"all\"\n");
  const ptx::Module m = lowered(spec, unchecked_sm90());
  CHECK(instructions(m) == "fence.proxy.async.shared::cta;\n"
                           "fence.proxy.async.shared::cta;\n"
                           "fence.proxy.async.global;\n"
                           "fence.proxy.async;\n"
                           "ret;\n");
  assembles(m);
}

TEST_CASE("expect_tx: mbarrier.arrive.expect_tx with the sink, or mbarrier.expect_tx" *
          doctest::test_suite("ptxas")) {
  const std::string spec = std::string(kTensors) +
                           op("expect_tx", "barrier = 'bar.sub[0]'\nbytes = 2048\n"
                                           "pred = \"tid == 0\"\n") +
                           op("expect_tx", "barrier = 'bar.sub[0]'\nbytes = \"tid * 16\"\n"
                                           "arrive = false\n");
  const ptx::Module m = lowered(spec, unchecked_sm90());
  CHECK(instructions(m) == std::string(kElect) +
                               "mov.u32 %r2, smem_bar;\n"
                               "@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 2048;\n"
                               "mul.lo.u32 %r3, %r1, 16;\n"
                               "mbarrier.expect_tx.shared::cta.b64 [%r2], %r3;\n"
                               "ret;\n");
  assembles(m);
}

TEST_CASE("tensor_load / tensor_store: the map's generic address, coordinates innermost first" *
          doctest::test_suite("ptxas")) {
  const std::string spec =
      std::string(kTensors) +
      op("tensor_load", "tensor = \"A\"\ncoords = [\"tid\", -8]\ndst = 'S'\n"
                        "barrier = 'bar.sub[0]'\npred = \"tid == 0\"\n") +
      op("tensor_store", "tensor = \"A\"\ncoords = [32, 0]\nsrc = 'S'\npred = \"tid == 0\"\n");
  const ptx::Module m = lowered(spec, unchecked_sm90());
  CHECK(instructions(m) ==
        std::string(kElect) +
            "mov.u32 %r2, smem_S;\n"
            "mov.b64 %rd1, map_A;\n"
            "cvta.param.u64 %rd2, %rd1;\n"
            "mov.u32 %r3, smem_bar;\n"
            "@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
            "[%r2], [%rd2, {-8, %r1}], [%r3];\n"
            "@%p1 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {0, 32}], "
            "[%r2];\n"
            "ret;\n");
  assembles(m);
}

TEST_CASE("a cache policy: `.L2::cache_hint` with the policy register, made once" *
          doctest::test_suite("ptxas")) {
  const std::string spec =
      std::string(kTensors) + "\n[param.pol]\ndtype = \"u64\"\nvalue = 0\n" +
      op("tensor_load", "tensor = \"A\"\ncoords = [0, 0]\ndst = 'S'\nbarrier = 'bar.sub[0]'\n"
                        "cache_policy = \"pol\"\n") +
      op("bulk_store", "dst = 'B.sub[0:32, :]'\nsrc = 'S'\ncache_policy = \"pol\"\n");
  const ptx::Module m = lowered(spec, unchecked_sm90());
  CHECK(instructions(m) ==
        "mov.u32 %r1, smem_S;\n"
        "mov.b64 %rd1, map_A;\n"
        "cvta.param.u64 %rd2, %rd1;\n"
        "mov.u32 %r2, smem_bar;\n"
        "ld.param.u64 %rd3, [arg_pol];\n"
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".L2::cache_hint [%r1], [%rd2, {0, 0}], [%r2], %rd3;\n"
        "ld.param.u64 %rd4, [arg_B];\n"
        "cvta.to.global.u64 %rd5, %rd4;\n"
        "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd5], [%r1], 2048, %rd3;\n"
        "ret;\n");
  assembles(m);
}

TEST_CASE("the map parameter: `.param .align 128 .b8 map_A[128]` after the tensors" *
          doctest::test_suite("ptxas")) {
  const ptx::Module m =
      lowered(std::string(kTensors) + "\n[param.n]\ndtype = \"u32\"\nvalue = 1\n" +
                  op("tensor_store", "tensor = \"A\"\ncoords = [0, 0]\nsrc = 'S'\n"),
              unchecked_sm90());
  const std::string text = ptx::print(m);
  CHECK(text.find(".visible .entry k(\n"
                  "\t.param .u64 arg_A,\n"
                  "\t.param .u64 arg_B,\n"
                  "\t.param .align 128 .b8 map_A[128],\n"
                  "\t.param .u32 arg_n\n"
                  ")\n") != std::string::npos);
  // The ABI the runners pass: the map under its spec name, bound to its tensor.
  const auto k = spec_text::load(std::string(kTensors), "abi.toml");
  const auto params = lower::kernel_params(*k);
  REQUIRE(params.size() == 3);
  CHECK(params[2].kind == lower::ParamBinding::Kind::tensor_map);
  CHECK(params[2].name == "A.map");
  CHECK(params[2].ptx_name == "map_A");
  CHECK(params[2].tensor == "A");
  assembles(m);
}

TEST_CASE("abi may place the map: \"A.map\" first; a map a tensor does not have is refused" *
          doctest::test_suite("ptxas")) {
  std::string spec(kTensors);
  spec.insert(spec.find("block = 32\n"), "abi = [\"A.map\", \"B\", \"A\"]\n");
  const ptx::Module m = lowered(
      spec + op("tensor_store", "tensor = \"A\"\ncoords = [0, 0]\nsrc = 'S'\n"), unchecked_sm90());
  CHECK(ptx::print(m).find("(\n\t.param .align 128 .b8 map_A[128],\n\t.param .u64 arg_B,\n"
                           "\t.param .u64 arg_A\n)") != std::string::npos);
  assembles(m);

  std::string bad(kTensors);
  bad.insert(bad.find("block = 32\n"), "abi = [\"A\", \"B\", \"A.map\", \"B.map\"]\n");
  auto k = driver::load_spec_text(bad, "abi.toml");
  CHECK_FALSE(k.value.has_value());
  const std::string text = k.diagnostics.format_all();
  CHECK(text.find("[spec_abi_unknown_name]") != std::string::npos);
  CHECK(text.find("names the tensor map of 'B', which has no [tensor.B.map] table") !=
        std::string::npos);

  std::string missing(kTensors);
  missing.insert(missing.find("block = 32\n"), "abi = [\"A\", \"B\"]\n");
  auto m2 = driver::load_spec_text(missing, "abi.toml");
  CHECK_FALSE(m2.value.has_value());
  CHECK(m2.diagnostics.format_all().find("[spec_abi_missing_name]") != std::string::npos);
}

TEST_CASE("in a loop: the map's address and the bases hoisted, the coordinate the counter" *
          doctest::test_suite("ptxas")) {
  const std::string spec =
      std::string(kTensors) + "\n[param.n]\ndtype = \"u32\"\nvalue = 2\nrange = [0, 2]\n" +
      op("for", "var = \"k\"\nstart = 0\nstop = \"n\"\n") +
      op("tensor_store", "tensor = \"A\"\ncoords = [\"k * 32\", 0]\nsrc = 'S'\n"
                         "pred = \"tid == 0\"\n") +
      op("end");
  const ptx::Module m = lowered(spec, unchecked_sm90());
  const std::string body = instructions(m);
  INFO(body);
  // Before the loop's head: the map's address, the base, the elected thread's predicate.
  const auto head = body.find("$L_");
  REQUIRE(head != std::string::npos);
  CHECK(body.find("cvta.param.u64") < head);
  CHECK(body.find(", smem_S;") < head);
  CHECK(body.find("setp.eq.u32") < head);
  CHECK(body.find("cvta.param.u64", head) == std::string::npos);
  // The coordinate in the loop: k * 32 from the counter, innermost first.
  CHECK(body.find("[%rd2, {0, %r") > head);
  assembles(m);
}

TEST_CASE("the example kernels of tests/data/bulk lower and assemble for sm_90" *
          doctest::test_suite("ptxas")) {
  struct Example {
    const char* file;
    const char* line; ///< one line the kernel's PTX must hold
  };
  const Example examples[] = {
      {"bulk_round_trip.toml",
       "@%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd4], [%r3], 4096;"},
      {"tensor_2d.toml", "@%p1 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group "
                         "[%rd4, {64, 32}], [%r3];"},
      {"swizzle_128b_copy.toml", "and.b32 %r"},
      {"tensor_loop.toml", "cvta.param.u64 %rd4, %rd3;"},
  };
  for (const auto& e : examples) {
    CAPTURE(e.file);
    const ptx::Module m = lowered(ptxgen::test::read_test_data("bulk", e.file), unchecked_sm90());
    const std::string text = ptx::print(m);
    INFO(text);
    CHECK(text.find(".version 8.0\n.target sm_90\n") != std::string::npos);
    CHECK(text.find(e.line) != std::string::npos);
    assembles(m);
  }
}

} // namespace unit_lower_bulk
