// Dynamic shared memory (tile::SharedLayout, the lowering, the contract's
// per-target limit): beyond 48 KiB the shared tensors share one `.extern
// .shared` array and sit at constant offsets that fold into [reg+imm].
//
// Expected offsets and sequences are worked out by hand from the layout rule
// (declaration order, each tensor at its alignment, at least 16) and from the
// address rule of lower_addresses.cpp (base register + one mad per atom).

#include "emitter/lower/abi.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/tile/contract.hpp"
#include "lower_harness.hpp"

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_lower_dynamic_shared {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

/// One warp; `Big` (49152 bytes, declared first) pushes the kernel past
/// 48 KiB; S (32 rows of 64 bytes, align 128) follows it at 49152.
constexpr std::string_view kBigFirst = R"TOML([kernel]
name = "k"
block = 32

[tensor.A]
space = "global"
shape = [32, 64]
dtype = "uint8"

[tensor.Big]
space = "shared"
shape = [49152]
dtype = "uint8"

[tensor.S]
space = "shared"
shape = [32, 64]
dtype = "uint8"
)TOML";

std::string copy_spec(std::string_view head) {
  return std::string(head) +
         apply("cp.async.ca.shared.global", "S.sub[tid, 16:32]", "A.sub[tid, 32:48]", 16) +
         std::string(kCommitWait);
}

std::unique_ptr<tile::Kernel> load(std::string_view text) {
  auto k = driver::load_spec_text(std::string(text), "dsmem_test.toml");
  INFO(k.diagnostics.format_all());
  REQUIRE(k.value.has_value());
  return std::move(*k.value);
}

} // namespace

TEST_CASE("opt-in shared memory per block, per target (docs/ptx-rules.md)") {
  CHECK(ptx::max_static_shared_bytes == 49152);
  CHECK(ptx::max_dynamic_shared_bytes(*ptx::Target::parse("sm_80")) == 166912);
  CHECK(ptx::max_dynamic_shared_bytes(*ptx::Target::parse("sm_86")) == 101376);
  CHECK(ptx::max_dynamic_shared_bytes(*ptx::Target::parse("sm_87")) == 166912);
  CHECK(ptx::max_dynamic_shared_bytes(*ptx::Target::parse("sm_89")) == 101376);
  CHECK(ptx::max_dynamic_shared_bytes(*ptx::Target::parse("sm_90")) == 232448);
  CHECK(ptx::max_dynamic_shared_bytes(*ptx::Target::parse("sm_90a")) == 232448);
  CHECK(ptx::max_dynamic_shared_bytes(*ptx::Target::parse("sm_100a")) == 232448);
  CHECK(ptx::max_dynamic_shared_bytes(*ptx::Target::parse("sm_120")) == 101376);
  CHECK(ptx::max_dynamic_shared_bytes_any_target() == 232448);
}

TEST_CASE("the layout: declaration order, alignment, dynamic beyond 48 KiB") {
  auto k = load(kBigFirst);
  const tile::SharedLayout l = tile::shared_layout(*k);
  REQUIRE(l.entries.size() == 2);
  CHECK(l.find("Big")->offset == 0);
  CHECK(l.find("S")->offset == 49152);
  CHECK(l.total == 49152 + 2048);
  CHECK(l.dynamic);
  CHECK(l.find("A") == nullptr);
  CHECK(lower::dynamic_shared_bytes(*k) == 51200u);
  // Without Big, S alone is static: no dynamic bytes at launch.
  auto small = load(std::string(kWarp));
  CHECK_FALSE(tile::shared_layout(*small).dynamic);
  CHECK(lower::dynamic_shared_bytes(*small) == 0u);
}

TEST_CASE("a dynamic tensor's offset folds into the immediate of [reg+imm]") {
  // S.sub[tid, 16:32] is smem_dynamic + 49152 + 64*tid + 16.
  CHECK(body(copy_spec(kBigFirst)) == "mov.u32 %r1, smem_dynamic;\n"
                                      "mov.u32 %r2, %tid.x;\n"
                                      "mad.lo.u32 %r3, %r2, 64, %r1;\n"
                                      "ld.param.u64 %rd1, [arg_A];\n"
                                      "cvta.to.global.u64 %rd2, %rd1;\n"
                                      "mad.wide.u32 %rd3, %r2, 64, %rd2;\n"
                                      "cp.async.ca.shared.global [%r3+49168], [%rd3+32], 16;\n"
                                      "cp.async.commit_group;\n"
                                      "cp.async.wait_group 0;\n"
                                      "ret;\n");
}

TEST_CASE("the module declares one .extern .shared array and the entry no static ones") {
  auto m = lower_text(copy_spec(kBigFirst));
  INFO(m.diagnostics.format_all());
  REQUIRE(m.value.has_value());
  const std::string text = ptx::print(*m.value);
  // At module scope, just before the entry: ptxas refuses `.extern` inside it.
  CHECK(text.find("\n.extern .shared .align 1024 .b8 smem_dynamic[];\n.visible .entry k(") !=
        std::string::npos);
  CHECK(text.find("\t.shared") == std::string::npos);
  // Up to 48 KiB: the static declaration, as before.
  auto s =
      lower_text(std::string(kWarp) +
                 apply("cp.async.ca.shared.global", "S.sub[tid, 16:32]", "A.sub[tid, 32:48]", 16) +
                 std::string(kCommitWait));
  REQUIRE(s.value.has_value());
  const std::string small = ptx::print(*s.value);
  CHECK(small.find("\t.shared .align 128 .b8 smem_S[2048];\n") != std::string::npos);
  CHECK(small.find(".extern") == std::string::npos);
}

TEST_CASE("the contract holds the shared total to the target's opt-in limit") {
  // 1024 x 163 = 166912 bytes: exactly sm_80's limit; one more row of 163 is over it.
  auto spec = [](int rows) {
    return "[kernel]\nname = \"k\"\nblock = 32\n\n[tensor.S]\nspace = \"shared\"\nshape = [" +
           std::to_string(rows) + ", 163]\ndtype = \"uint8\"\n";
  };
  const ptx::Target sm80 = *ptx::Target::parse("sm_80");
  const ptx::Target sm86 = *ptx::Target::parse("sm_86");
  const ptx::Target sm90 = *ptx::Target::parse("sm_90");
  CHECK_FALSE(tile::check_contract(*load(spec(1024)), sm80).has_errors());
  const Diagnostics over = tile::check_contract(*load(spec(1025)), sm80);
  CHECK(over.has(DiagId::contract_shared_target_limit));
  CHECK(tile::check_contract(*load(spec(1024)), sm86).has(DiagId::contract_shared_target_limit));
  // 200 KiB (204800 bytes): sm_90 takes it, sm_80 does not.
  auto k200 = load("[kernel]\nname = \"k\"\nblock = 32\n\n[tensor.S]\nspace = \"shared\"\n"
                   "shape = [200, 1024]\ndtype = \"uint8\"\n");
  CHECK_FALSE(tile::check_contract(*k200, sm90).has_errors());
  CHECK(tile::check_contract(*k200, sm80).has(DiagId::contract_shared_target_limit));
  // The lowering checks for its own target.
  lower::LowerOptions o;
  o.target = sm90;
  auto k = driver::load_spec_text("[kernel]\nname = \"k\"\nblock = 32\n\n[tensor.S]\nspace = "
                                  "\"shared\"\nshape = [200, 1024]\ndtype = \"uint8\"\n",
                                  "k.toml");
  REQUIRE(k.value.has_value());
  CHECK(lower::lower(**k, o).value.has_value());
  o.target = sm80;
  CHECK(lower::lower(**k, o).diagnostics.has(DiagId::contract_shared_target_limit));
  // sm_80 PTX assembled for sm_90 (`ptxgen run` on an H200): sm_90's limit holds.
  o.run_target = sm90;
  CHECK(lower::lower(**k, o).value.has_value());
}

} // namespace unit_lower_dynamic_shared
