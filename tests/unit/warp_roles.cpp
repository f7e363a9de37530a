// Warp specialization (named_barrier, setmaxnreg, a copy guarded by its warp) through the
// layers: the contract's rules about the roles (warp_roles.hpp) on the corpus's specs, the
// lowering's bar.sync / bar.arrive with a thread count and setmaxnreg, the validator's sm_90a
// gate, the C++ builder and the printer's round trip.

#include "emitter/tile/warp_roles.hpp"

#include "driver/run/to_toml.hpp"
#include "emitter/api/kernel_builder.hpp"
#include "emitter/ptx/validator.hpp"
#include "lower_harness.hpp"
#include "spec_text.hpp"

#include <string>
#include <vector>

namespace unit_warp_roles {

using namespace ptxgen;
using namespace ptxgen::lower_test;
using spec_text::corpus;
using spec_text::edited;

namespace {

constexpr const char* kNamed = "ws/named_barrier_consumers.toml";
constexpr const char* kRegs = "ws/setmaxnreg_ring.toml";

/// The contract's errors for `text`, loaded, on sm_90a (setmaxnreg needs it).
std::vector<DiagId> contract_errors(const std::string& text) {
  return spec_text::contract_errors(text, ptx::sm_a(90));
}

/// The first contract error's message with `id` (empty when none).
std::string message(const std::string& text, DiagId id) {
  return spec_text::contract_message(text, id, ptx::sm_a(90));
}

} // namespace

TEST_CASE("warp roles: a named barrier's users are whole warps and exactly its count") {
  const std::string text = corpus(kNamed);
  CHECK(contract_errors(text).empty());
  const std::string more = edited(text, "id = 1\ncount = 64", "id = 1\ncount = 96");
  CHECK(contract_errors(more) == std::vector<DiagId>{DiagId::contract_named_barrier_users});
  CHECK(message(more, DiagId::contract_named_barrier_users)
            .find("holds for 64 (warps 1, 2): it never completes") != std::string::npos);
  const std::string fewer = edited(text, "id = 1\ncount = 64", "id = 1\ncount = 32");
  CHECK(message(fewer, DiagId::contract_named_barrier_users)
            .find("waits for 32 threads, but its pred holds for 64 (warps 1, 2): it completes "
                  "before all of them arrive") != std::string::npos);
  const std::string split = edited(text, "id = 1\ncount = 64\npred = \"warp >= 1\"",
                                   "id = 1\ncount = 64\npred = \"tid >= 16 && tid < 80\"");
  CHECK(contract_errors(split) == std::vector<DiagId>{DiagId::contract_named_barrier_warp});
  CHECK(contract_errors(edited(text, "id = 1\ncount = 64", "id = 16\ncount = 64")) ==
        std::vector<DiagId>{DiagId::contract_named_barrier_id});
  CHECK(contract_errors(edited(text, "id = 1\ncount = 64", "id = 1\ncount = 0")) ==
        std::vector<DiagId>{DiagId::contract_named_barrier_count});
  CHECK(contract_errors(edited(text, "id = 2\ncount = 64\npred = \"warp >= 1\"",
                               "id = 1\ncount = 32\npred = \"warp == 1\"")) ==
        std::vector<DiagId>{DiagId::contract_named_barrier_counts_differ});
  CHECK(contract_errors(edited(text, "id = 1\ncount = 64\npred = \"warp >= 1\"",
                               "id = 1\ncount = 64\npred = \"warp >= 1 && bid == 0\"")) ==
        std::vector<DiagId>{DiagId::contract_role_pred});
}

TEST_CASE("warp roles: a bar.arrive and a bar.sync of different warps make one phase") {
  const std::string text = corpus("ws/named_barrier_arrive.toml");
  CHECK(contract_errors(text).empty());
  // Without warp 1's bar.sync, warp 0's bar.arrive brings 32 of the 64 threads.
  const std::string alone = edited(
      text, "[[op]]\nop = \"named_barrier\"\nid = 1\ncount = 64\npred = \"warp == 1\"\n", "");
  CHECK(message(alone, DiagId::contract_named_barrier_users)
            .find("holds for 32 (warp 0): it never completes") != std::string::npos);
  // Two partial uses of one phase must not share a thread.
  const std::string twice = edited(text, "id = 2\ncount = 64\npred = \"warp == 0\"",
                                   "id = 2\ncount = 64\npred = \"warp == 1\"");
  CHECK(message(twice, DiagId::contract_named_barrier_users)
            .find("thread 32 arrives on named barrier 2 here and at an earlier") !=
        std::string::npos);
}

TEST_CASE("warp roles: setmaxnreg's counts, warpgroups and register budget") {
  const std::string text = corpus(kRegs);
  CHECK(contract_errors(text).empty());
  CHECK(contract_errors(edited(text, "regs = 232", "regs = 260")) ==
        std::vector<DiagId>{DiagId::contract_setmaxnreg_regs});
  // An inc below the warpgroup's count at entry (168) lowers it: refused.
  CHECK(message(edited(text, "regs = 232", "regs = 160"), DiagId::contract_setmaxnreg_regs)
            .find("warpgroup 1 has 168 there") != std::string::npos);
  CHECK(contract_errors(
            edited(text, "regs = 40\npred = \"warp < 4\"", "regs = 40\npred = \"warp < 6\"")) ==
        std::vector<DiagId>{DiagId::contract_setmaxnreg_warpgroup});
  // 40 + 2 x 232 = 504 = 3 x 168 fits exactly; 2 x 240 does not.
  CHECK(contract_errors(edited(text, "regs = 232", "regs = 240")) ==
        std::vector<DiagId>{DiagId::contract_setmaxnreg_budget});
  CHECK(contract_errors(edited(text, "ctas_per_sm = 1\n", "")) ==
        std::vector<DiagId>{DiagId::contract_setmaxnreg_budget});
  auto k = spec_text::load(text, "k.toml");
  CHECK(tile::entry_registers(*k) == 168); // ptxas 13.0 -v: 168 registers at 384 threads
  CHECK(tile::min_target(*k) == ptx::sm_a(90));
}

TEST_CASE("warp roles: lowered to bar.sync id, count, a branch over the copy, setmaxnreg") {
  const std::string named = body(corpus(kNamed), own_target());
  CHECK(named.find("bar.sync 1, 64;") != std::string::npos);
  CHECK(named.find("bar.sync 2, 64;") != std::string::npos);
  CHECK(named.find("bra $L_cp_0;") != std::string::npos);
  const std::string arrive =
      body(edited(corpus(kNamed), "id = 2\ncount = 64", "id = 2\ncount = 64\narrive = true"),
           own_target());
  CHECK(arrive.find("bar.arrive 2, 64;") != std::string::npos);
  const std::string regs = body(corpus(kRegs), own_target());
  CHECK(regs.find("setmaxnreg.dec.sync.aligned.u32 40;") != std::string::npos);
  CHECK(regs.find("setmaxnreg.inc.sync.aligned.u32 232;") != std::string::npos);
}

TEST_CASE("warp roles: the validator gates setmaxnreg to sm_90a and its count") {
  const ptx::Instruction ok{std::nullopt, ptx::Setmaxnreg{false, 40}, {}};
  CHECK(ptx::validate(ok, ptx::sm_a(90), {8, 0}).empty());
  const Diagnostics plain = ptx::validate(ok, ptx::sm(90), {8, 0});
  REQUIRE_FALSE(plain.empty());
  CHECK(plain.items().front().id == DiagId::ptx_feature_target);
  const Diagnostics odd = ptx::validate(
      ptx::Instruction{std::nullopt, ptx::Setmaxnreg{true, 36}, {}}, ptx::sm_a(90), {8, 0});
  REQUIRE_FALSE(odd.empty());
  CHECK(odd.items().front().id == DiagId::ptx_setmaxnreg_range);
  const Diagnostics count = ptx::validate(
      ptx::Instruction{std::nullopt, ptx::NamedBarrier{1, 48, false}, {}}, ptx::sm(90), {7, 8});
  REQUIRE_FALSE(count.empty());
  CHECK(count.items().front().id == DiagId::ptx_barrier_range);
}

TEST_CASE("warp roles: the C++ builder takes the roles and the printer reads them back") {
  api::KernelBuilder k("k");
  k.launch({1, 1, 1}, {256, 1, 1});
  k.ctas_per_sm(1);
  auto a = k.global("A", {256}, tile::DType::uint32);
  auto b = k.global("B", {256}, tile::DType::uint32);
  k.setmaxnreg(api::RegAction::dec, 40, api::warp() < 4);
  k.named_barrier(3, 128, false, api::warp() >= 4);
  k.copy(b.sub({api::tid() % 128}), a.sub({api::tid() % 128}), api::warp() >= 4);
  auto r = std::move(k).finish();
  INFO(r.diagnostics.format_all());
  REQUIRE(r.value.has_value());
  const std::string toml = api::to_spec_toml(**r.value);
  INFO(toml);
  CHECK(toml.find("op = \"setmaxnreg\"\naction = \"dec\"\nregs = 40\npred = 'warp < 4'") !=
        std::string::npos);
  CHECK(toml.find("op = \"named_barrier\"\nid = 3\ncount = 128\narrive = false") !=
        std::string::npos);
  const auto back = spec_text::load(toml, "back.toml");
  const auto& ops = back->ops;
  REQUIRE(ops.size() == 3);
  const auto* c = std::get_if<tile::CopyOp>(&ops[2].body);
  REQUIRE(c != nullptr);
  REQUIRE(c->pred.has_value());
  CHECK(c->pred->text == "warp >= 4");
}

} // namespace unit_warp_roles
