// The TMA `pipeline` form (an mbarrier ring, emitter/tile/pipeline.hpp): the schedule it
// expands into, the phase walk's two rules the ring needs (a thread that knows through
// another barrier that its previous phase completed may arrive again; parity 1 on an
// untouched barrier passes at once), and the reference's ordering through mbarrier phases.
// Every expectation is worked out from the ring's shape and PTX's mbarrier rules.
#include "driver/reference/reference.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/kernel.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_pipeline_ring {

namespace {

using ptxgen::DiagId;
namespace tile = ptxgen::tile;
using Role = tile::OpOrigin::Role;

/// 32 threads, 6 tiles of 512 bytes through a ring of `stages` bulk loads; `extra` goes
/// into the pipeline table, `outer` wraps it in a loop over m (0..2) with `extra`.
std::string ring_spec(int stages, const std::string& extra = "", bool outer = false) {
  const std::string s = std::to_string(stages);
  std::string t = "[kernel]\nname = \"k\"\ngrid = 1\nblock = 32\n"
                  "[tensor.A]\nspace = \"global\"\nshape = [2, 6, 512]\ndtype = \"uint8\"\n"
                  "init = \"arange % 251\"\n"
                  "[tensor.B]\nspace = \"global\"\nshape = [2, 6, 512]\ndtype = \"uint8\"\n"
                  "output = true\n"
                  "[tensor.S]\nspace = \"shared\"\nshape = [" +
                  s +
                  ", 512]\ndtype = \"uint8\"\n"
                  "[tensor.full]\nspace = \"shared\"\nshape = [" +
                  s +
                  "]\ndtype = \"uint64\"\n"
                  "[tensor.empty]\nspace = \"shared\"\nshape = [" +
                  s + "]\ndtype = \"uint64\"\n";
  if (outer)
    t += "[[op]]\nop = \"for\"\nvar = \"m\"\nstart = 0\nstop = 2\n";
  const std::string m = outer ? "m" : "0";
  t += "[[op]]\nop = \"pipeline\"\nvar = \"k\"\nstart = 0\nstop = 6\nstages = " + s +
       "\nfull = 'full.sub[stage]'\nempty = 'empty.sub[stage]'\n" + extra +
       "\n[[op.load]]\nop = \"bulk_load\"\ndst = 'S.sub[stage, :]'\nsrc = 'A.sub[" + m +
       ", k, :]'\n"
       "[[op.body]]\nop = \"copy\"\n"
       "dst = 'B.sub[" +
       m +
       ", k, :].rearrange(\"(t e) -> t e\", t=32).sub[tid, :]'\n"
       "src = 'S.sub[stage, :].rearrange(\"(t e) -> t e\", t=32).sub[31 - tid, :]'\n";
  if (outer)
    t += "[[op]]\nop = \"end\"\n";
  return t;
}

std::unique_ptr<tile::Kernel> load(const std::string& text) {
  auto k = ptxgen::driver::load_spec_text(text, "ring.toml");
  INFO(k.diagnostics.format_all());
  REQUIRE(k);
  return std::move(*k);
}

ptxgen::driver::ReferenceOutput reference(const tile::Kernel& k) {
  ptxgen::driver::ReferenceInput in;
  in.kernel = &k;
  std::vector<std::uint8_t> a(2 * 6 * 512);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<std::uint8_t>(i % 251);
  in.global["A"] = a;
  in.global["B"] = std::vector<std::uint8_t>(a.size(), 0);
  return ptxgen::driver::evaluate_reference(in);
}

bool found(const ptxgen::driver::ReferenceOutput& out, DiagId id) {
  return std::any_of(out.findings.begin(), out.findings.end(),
                     [id](const auto& f) { return f.id == id; });
}

/// The roles of the kernel's ops, in order.
std::vector<Role> roles(const tile::Kernel& k) {
  std::vector<Role> out;
  for (const auto& op : k.ops)
    out.push_back(op.origin.role);
  return out;
}

/// A hand-written 2-stage ring over 6 tiles (the pipeline's expansion written out), with
/// `producer_wait` the producer's empty wait (empty: none) and `consumer` the consumer's
/// three ops in their order.
std::string hand_ring(const std::string& producer_wait, const std::string& consumer) {
  std::string t = "[kernel]\nname = \"k\"\ngrid = 1\nblock = 32\n"
                  "[tensor.A]\nspace = \"global\"\nshape = [2, 6, 512]\ndtype = \"uint8\"\n"
                  "[tensor.B]\nspace = \"global\"\nshape = [2, 6, 512]\ndtype = \"uint8\"\n"
                  "output = true\n"
                  "[tensor.S]\nspace = \"shared\"\nshape = [2, 512]\ndtype = \"uint8\"\n"
                  "[tensor.full]\nspace = \"shared\"\nshape = [2]\ndtype = \"uint64\"\n"
                  "[tensor.empty]\nspace = \"shared\"\nshape = [2]\ndtype = \"uint64\"\n";
  for (const char* b : {"full", "empty"})
    for (int s = 0; s < 2; ++s)
      t += "[[op]]\nop = \"mbarrier_init\"\nbarrier = '" + std::string(b) + ".sub[" +
           std::to_string(s) + "]'\ncount = " + (b[0] == 'f' ? "1" : "32") + "\n";
  t += "[[op]]\nop = \"cta_sync\"\n"
       "[[op]]\nop = \"expect_tx\"\nbarrier = 'full.sub[0]'\nbytes = 512\npred = \"tid == 0\"\n"
       "[[op]]\nop = \"bulk_load\"\ndst = 'S.sub[0, :]'\nsrc = 'A.sub[0, 0, :]'\n"
       "barrier = 'full.sub[0]'\npred = \"tid == 0\"\n"
       "[[op]]\nop = \"for\"\nvar = \"k\"\nstart = 0\nstop = 6\n";
  if (!producer_wait.empty())
    t += "[[op]]\nop = \"mbarrier_wait\"\nbarrier = 'empty.sub[(k + 1) % 2]'\nparity = \"" +
         producer_wait + "\"\npred = \"tid == 0 && k + 1 < 6\"\n";
  t += "[[op]]\nop = \"expect_tx\"\nbarrier = 'full.sub[(k + 1) % 2]'\nbytes = 512\n"
       "pred = \"tid == 0 && k + 1 < 6\"\n"
       "[[op]]\nop = \"bulk_load\"\ndst = 'S.sub[(k + 1) % 2, :]'\n"
       "src = 'A.sub[0, min(k + 1, 5), :]'\nbarrier = 'full.sub[(k + 1) % 2]'\n"
       "pred = \"tid == 0 && k + 1 < 6\"\n";
  const std::string wait =
      "[[op]]\nop = \"mbarrier_wait\"\nbarrier = 'full.sub[k % 2]'\nparity = \"(k / 2) % 2\"\n";
  const std::string copy = "[[op]]\nop = \"copy\"\n"
                           "dst = 'B.sub[0, k, :].rearrange(\"(t e) -> t e\", t=32).sub[tid, :]'\n"
                           "src = 'S.sub[k % 2, :].rearrange(\"(t e) -> t e\", t=32)"
                           ".sub[31 - tid, :]'\n";
  const std::string release = "[[op]]\nop = \"mbarrier_arrive\"\nbarrier = 'empty.sub[k % 2]'\n";
  for (char c : consumer)
    t += c == 'w' ? wait : c == 'c' ? copy : release;
  return t + "[[op]]\nop = \"end\"\n";
}

const std::string kProducerParity = "((k + 1) / 2) % 2 ^ 1";

} // namespace

TEST_CASE("ring: the expansion's schedule, inits first, thread 0 producing") {
  const auto k = load(ring_spec(2));
  // 2 stages: init full[0], empty[0], full[1], empty[1], cta_sync; the prologue (tile 0,
  // use 0 < S: no producer wait) expect_tx + load; the loop: producer wait, expect_tx,
  // load, consumer wait, copy, release; end.
  const std::vector<Role> want = {
      Role::ring_init,     Role::ring_init,        Role::ring_init,     Role::ring_init,
      Role::ring_init,     Role::producer_expect,  Role::prologue_load, Role::steady_loop,
      Role::producer_wait, Role::producer_expect,  Role::steady_load,   Role::consumer_wait,
      Role::consumer,      Role::consumer_release, Role::steady_loop};
  CHECK(roles(*k) == want);
  const auto& init_empty = std::get<tile::MbarrierInitOp>(k->ops[1].body);
  CHECK(init_empty.count.value == 32); // every thread releases
  CHECK(std::get<tile::MbarrierInitOp>(k->ops[0].body).count.value == 1);
  const auto& expect = std::get<tile::ExpectTxOp>(k->ops[5].body);
  CHECK(tile::print(*expect.bytes.value) == "512");
  CHECK(tile::print(*expect.pred->value) == "tid == 0");
  const auto& wait = std::get<tile::MbarrierWaitOp>(k->ops[8].body);
  CHECK(wait.barrier.text == "empty.sub[stage]");
  CHECK(tile::print(*wait.pred->value) == "tid == 0 && k + 1 < 6");
  CHECK(tile::print(*wait.parity.value) == "(k + 1) / 2 % 2 ^ 1");
  CHECK_FALSE(std::get<tile::MbarrierWaitOp>(k->ops[11].body).pred.has_value());
}

TEST_CASE("ring: every stage count passes the contract and the reference, which copies B") {
  for (int stages = 2; stages <= 4; ++stages) {
    CAPTURE(stages);
    const auto k = load(ring_spec(stages));
    CHECK_FALSE(tile::check_contract(*k).has_errors());
    const auto out = reference(*k);
    CHECK(out.findings.empty());
    // Thread j writes its chunk of tile t from thread 31 - j's chunk of the stage.
    const auto& b = out.global.at("B");
    for (std::size_t t = 0; t < 6; ++t)
      for (std::size_t j = 0; j < 32; ++j)
        for (std::size_t e = 0; e < 16; ++e)
          REQUIRE(b[t * 512 + j * 16 + e] ==
                  static_cast<std::uint8_t>((t * 512 + (31 - j) * 16 + e) % 251));
  }
}

TEST_CASE("ring: inside a loop, the inits go before it and ring_offset carries the phases") {
  const auto k = load(ring_spec(2, "ring_offset = \"m * 6\"", true));
  CHECK(k->ops.front().origin.role == Role::ring_init);
  CHECK(std::holds_alternative<tile::ForOp>(k->ops[5].body));
  const auto& outer = std::get<tile::ForOp>(k->ops[5].body);
  CHECK(std::holds_alternative<tile::EndOp>(k->ops[outer.end].body));
  CHECK(std::get<tile::EndOp>(k->ops[outer.end].body).begin == 5);
  CHECK_FALSE(tile::check_contract(*k).has_errors());
  CHECK(reference(*k).findings.empty());
  // 6 tiles a pass through 4 stages: an offset of m * 4 names the wrong phases from m = 1.
  CHECK(tile::check_contract(*load(ring_spec(4, "ring_offset = \"m * 4\"", true)))
            .has(DiagId::contract_mbarrier_parity));
  CHECK_FALSE(
      tile::check_contract(*load(ring_spec(4, "ring_offset = \"m * 6\"", true))).has_errors());
  // Without ring_offset it is refused when loaded.
  const auto r = ptxgen::driver::load_spec_text(ring_spec(2, "", true), "ring.toml");
  CHECK_FALSE(r);
  CHECK(r.diagnostics.has(DiagId::spec_pipeline_ring_offset));
}

TEST_CASE("walk: a consumer that never waits on empty may release again (learnt via full)") {
  CHECK_FALSE(tile::check_contract(*load(hand_ring(kProducerParity, "wcr"))).has_errors());
  // Without the producer's wait nobody learns that the stage's release completed: the
  // consumers' second release of a stage is a reuse.
  CHECK(tile::check_contract(*load(hand_ring("", "wcr"))).has(DiagId::contract_mbarrier_reuse));
}

TEST_CASE("walk: parity 1 on an untouched barrier passes at once; with arrivals it does not") {
  // The producer's first wait, on empty[1] in phase 0: parity 1 passes.
  CHECK_FALSE(tile::check_contract(*load(hand_ring(kProducerParity, "wcr"))).has_errors());
  // Phase 0's parity for the first wait hangs: nobody has released the stage.
  CHECK(tile::check_contract(*load(hand_ring("((k + 1) / 2) % 2", "wcr")))
            .has(DiagId::contract_mbarrier_count));
  // Parity 1 by a thread that has not arrived, on a barrier whose phase 0 has 16 of its 32
  // arrivals: refused (it passes at once, before the phase it must mean); the same wait
  // before any arrival passes and orders nothing (16 arrivals then complete phase 0).
  const auto phase0 = [](bool after_half) {
    const std::string half =
        "[[op]]\nop = \"mbarrier_arrive\"\nbarrier = 'bar.sub[0]'\npred = \"tid < 16\"\n";
    const std::string wait = "[[op]]\nop = \"mbarrier_wait\"\nbarrier = 'bar.sub[0]'\n"
                             "parity = 1\npred = \"tid == 31\"\n";
    return std::string("[kernel]\nname = \"k\"\ngrid = 1\nblock = 32\n") +
           "[tensor.bar]\nspace = \"shared\"\nshape = [1]\ndtype = \"uint64\"\n"
           "[[op]]\nop = \"mbarrier_init\"\nbarrier = 'bar.sub[0]'\ncount = " +
           (after_half ? "32" : "16") +
           "\n"
           "[[op]]\nop = \"cta_sync\"\n" +
           (after_half ? half + wait : wait + half);
  };
  CHECK_FALSE(tile::check_contract(*load(phase0(false))).has_errors());
  CHECK(tile::check_contract(*load(phase0(true))).has(DiagId::contract_mbarrier_parity));
}

TEST_CASE("reference: a refill is ordered after the reads its waited-for phase released") {
  const auto ok = reference(*load(hand_ring(kProducerParity, "wcr")));
  CHECK(ok.findings.empty());
  // The release before the read: the producer's refill writes bytes read after it.
  CHECK(found(reference(*load(hand_ring(kProducerParity, "wrc"))),
              DiagId::check_refill_without_barrier));
  // Reading before waiting on full.
  CHECK(found(reference(*load(hand_ring(kProducerParity, "cwr"))),
              DiagId::check_mbarrier_unwaited_read));
}

} // namespace unit_pipeline_ring
