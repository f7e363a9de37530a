// The mbarrier spec ops end to end but the simulator: the contract's phase accounting
// (arrival counts with and without .noinc, reuse, parity), the reference's exact phases and
// hazards, and the lowering's wait loop per target, assembled by ptxas where it is found.
// The kernels are spec texts; every expectation is worked out from PTX's mbarrier rules.
#include "driver/ptxas/ptxas.hpp"
#include "driver/reference/reference.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/lower/lower.hpp"
#include "emitter/ptx/printer.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/mbarrier_contract.hpp"
#include "spec_text.hpp"

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_mbarrier_spec {

namespace {

using ptxgen::DiagId;
namespace tile = ptxgen::tile;

/// One CTA of `block` threads: thread t copies row t of A into s, makes the barrier track
/// it (copy_arrive, noinc as given), arrives (unless `explicit_arrive` is false), waits on
/// parity `parity` and copies the mirrored row out. `before_wait` goes between the arrive
/// and the wait.
std::string one_phase(int count, bool noinc, bool explicit_arrive, const std::string& parity,
                      const std::string& before_wait = "") {
  using namespace ptxgen::spec_text;
  std::string s = kernel("k", "1", "64") +
                  tensor("A", "global", "[64, 16]", "uint8", "init = \"arange % 251\"\n") +
                  tensor("B", "global", "[64, 16]", "uint8", "output = true\n") +
                  tensor("s", "shared", "[64, 16]", "uint8") + barriers() +
                  mbarrier_init(std::to_string(count)) +
                  R"(

[[op]]
op = "cta_sync"

[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = 's.sub[tid, :]'
src = 'A.sub[tid, :]'
chunk_bytes = 16

[[op]]
op = "copy_arrive"
barrier = 'bar.sub[0]'
noinc = )" + std::string(noinc ? "true" : "false") +
                  "\n";
  if (explicit_arrive)
    s += "\n[[op]]\nop = \"mbarrier_arrive\"\nbarrier = 'bar.sub[0]'\n";
  s += before_wait;
  s += "\n[[op]]\nop = \"mbarrier_wait\"\nbarrier = 'bar.sub[0]'\nparity = " + parity + "\n";
  s += "\n[[op]]\nop = \"copy\"\ndst = 'B.sub[tid, :]'\nsrc = 's.sub[63 - tid, :]'\n";
  return s;
}

std::unique_ptr<tile::Kernel> load(const std::string& text) {
  return ptxgen::spec_text::load(text, "mbarrier.toml");
}

ptxgen::Diagnostics contract(const std::string& text) {
  return tile::check_contract(*load(text));
}

ptxgen::driver::ReferenceOutput reference(const tile::Kernel& k) {
  ptxgen::driver::ReferenceInput in;
  in.kernel = &k;
  std::vector<std::uint8_t> a(64 * 16);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<std::uint8_t>(i % 251);
  in.global["A"] = a;
  in.global["B"] = std::vector<std::uint8_t>(64 * 16, 0);
  return ptxgen::driver::evaluate_reference(in);
}

bool found(const ptxgen::driver::ReferenceOutput& out, DiagId id) {
  return std::any_of(out.findings.begin(), out.findings.end(),
                     [id](const auto& f) { return f.id == id; });
}

/// A 2-stage ring of 6 tiles over one barrier per stage, waiting on `parity`; with
/// `one_barrier`, both stages use bar[0].
std::string ring(const std::string& parity, bool one_barrier = false) {
  const std::string next = one_barrier ? "0" : "(k + 1) % 2";
  const std::string cur = one_barrier ? "0" : "k % 2";
  using namespace ptxgen::spec_text;
  return kernel("ring", "1", "32") + tensor("A", "global", "[6, 32, 16]", "uint8") +
         tensor("B", "global", "[6, 32, 16]", "uint8", "output = true\n") +
         tensor("r", "shared", "[2, 32, 16]", "uint8") + barriers("2") + mbarrier_init("32") +
         "\n" + mbarrier_init("32", "1") + R"(

[[op]]
op = "cta_sync"

[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = 'r.sub[0, tid, :]'
src = 'A.sub[0, tid, :]'
chunk_bytes = 16

[[op]]
op = "copy_arrive"
barrier = 'bar.sub[0]'

[[op]]
op = "mbarrier_arrive"
barrier = 'bar.sub[0]'

[[op]]
op = "for"
var = "k"
start = 0
stop = 6

[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = 'r.sub[(k + 1) % 2, tid, :]'
src = 'A.sub[min(k + 1, 5), tid, :]'
chunk_bytes = 16
pred = "k + 1 < 6"

[[op]]
op = "copy_arrive"
barrier = 'bar.sub[)" +
         next + R"(]'

[[op]]
op = "mbarrier_arrive"
barrier = 'bar.sub[)" +
         next + R"(]'

[[op]]
op = "mbarrier_wait"
barrier = 'bar.sub[)" +
         cur + R"(]'
parity = ")" +
         parity + R"("

[[op]]
op = "copy"
dst = 'B.sub[k, tid, :]'
src = 'r.sub[k % 2, 31 - tid, :]'

[[op]]
op = "cta_sync"

[[op]]
op = "end"
)";
}

} // namespace

TEST_CASE("contract: each phase gets exactly its count of arrivals") {
  // 64 threads arrive once each.
  CHECK_FALSE(contract(one_phase(64, false, true, "0")).has_errors());
  CHECK(contract(one_phase(32, false, true, "0")).has(DiagId::contract_mbarrier_count));
  CHECK(contract(one_phase(128, false, true, "0")).has(DiagId::contract_mbarrier_count));
}

TEST_CASE("contract: .noinc's deferred arrival counts; without it the increment nets zero") {
  // noinc + explicit arrive: two arrivals per thread, count 2 x 64.
  CHECK_FALSE(contract(one_phase(128, true, true, "0")).has_errors());
  // Counted once, the 64 deferred arrivals complete the phase and each explicit arrival is
  // a second arrival of its thread before it waited: reported as such.
  CHECK(contract(one_phase(64, true, true, "0")).has(DiagId::contract_mbarrier_reuse));
  // noinc alone: one arrival per thread.
  CHECK_FALSE(contract(one_phase(64, true, false, "0")).has_errors());
  // Without noinc and without an explicit arrive nothing arrives: the wait hangs.
  CHECK(contract(one_phase(64, false, false, "0")).has(DiagId::contract_mbarrier_count));
}

TEST_CASE("contract: a walk longer than its budget is refused, never accepted unseen") {
  // 7 ops of 64 threads each: 448 thread-op steps, the budget checked before each op.
  const auto k = load(one_phase(64, false, true, "0"));
  const auto walk = [&](std::int64_t steps) {
    ptxgen::Diagnostics out;
    tile::check_mbarrier_phases(*k, out, steps);
    return out;
  };
  CHECK_FALSE(walk(tile::default_mbarrier_steps).has_errors());
  CHECK_FALSE(walk(448).has_errors());
  CHECK_FALSE(walk(385).has_errors()); // one step left before the last op: it runs
  const auto cut = walk(384);          // none left before the last op (the copy out)
  REQUIRE(cut.items().size() == 1);
  CHECK(cut.items()[0].id == DiagId::contract_mbarrier_too_long);
  CHECK(cut.items()[0].line == k->ops.back().pos.line);
  CHECK(walk(1).has(DiagId::contract_mbarrier_too_long));
}

TEST_CASE("contract: a copy_arrive without noinc must precede its thread's own arrival") {
  // Only warp 0 arrives: the others' increments may come after warp 0 completed the phase.
  const std::string warp0 =
      "\n[[op]]\nop = \"mbarrier_arrive\"\nbarrier = 'bar.sub[0]'\npred = \"tid < 32\"\n";
  CHECK(contract(one_phase(32, false, false, "0", warp0)).has(DiagId::contract_mbarrier_count));
  // With noinc the 64 deferred arrivals are counted: 64 + 32.
  CHECK_FALSE(contract(one_phase(96, true, false, "0", warp0)).has_errors());
}

TEST_CASE("contract: waits name the parity of the phase the thread arrived in") {
  CHECK(contract(one_phase(64, false, true, "1")).has(DiagId::contract_mbarrier_parity));
  CHECK(contract(one_phase(64, false, true, "2")).has(DiagId::contract_mbarrier_parity));
  CHECK_FALSE(contract(ring("(k / 2) % 2")).has_errors());
  CHECK(contract(ring("k % 2")).has(DiagId::contract_mbarrier_parity));
  CHECK(contract(ring("0")).has(DiagId::contract_mbarrier_parity));
}

TEST_CASE("contract: no reuse before the phase completes, no use before init and sync") {
  CHECK(contract(ring("k % 2", true)).has(DiagId::contract_mbarrier_reuse));
  // Re-initialised while the phase holds 32 of its 64 arrivals.
  const std::string half = "\n[[op]]\nop = \"mbarrier_arrive\"\nbarrier = 'bar.sub[0]'\n";
  std::string reinit = one_phase(64, false, false, "0",
                                 "\n[[op]]\nop = \"mbarrier_arrive\"\nbarrier = 'bar.sub[0]'\n"
                                 "pred = \"tid < 32\"\n\n[[op]]\nop = \"cta_sync\"\n\n[[op]]\n"
                                 "op = \"mbarrier_init\"\nbarrier = 'bar.sub[0]'\ncount = 32\n\n"
                                 "[[op]]\nop = \"cta_sync\"\n" +
                                     half);
  CHECK(contract(reinit).has(DiagId::contract_mbarrier_reuse));
  std::string no_sync = one_phase(64, false, true, "0");
  no_sync.erase(no_sync.find("[[op]]\nop = \"cta_sync\"\n"), 23);
  CHECK(contract(no_sync).has(DiagId::contract_mbarrier_uninit));
}

TEST_CASE("contract: a first arrival in phase P > 0 knows that phase P - 1 completed") {
  // Threads 0..31 complete phase 0 (count 32) and wait for it; threads 32..63 arrive for
  // phase 1. `first_wait` is the pred of the wait for phase 0.
  const auto halves = [](const std::string& first_wait) {
    std::string s = one_phase(32, false, false, "0");
    s.erase(s.find("\n[[op]]\nop = \"apply\""));
    const std::string on = "\n[[op]]\nbarrier = 'bar.sub[0]'\n";
    return s + on + "op = \"mbarrier_arrive\"\npred = \"tid < 32\"\n" + on +
           "op = \"mbarrier_wait\"\nparity = 0\n" + first_wait + on +
           "op = \"mbarrier_arrive\"\npred = \"tid >= 32\"\n" + on +
           "op = \"mbarrier_wait\"\nparity = 1\npred = \"tid >= 32\"\n";
  };
  // Threads 32..63 did not wait for phase 0: arriving first, they would complete it.
  const auto ds = contract(halves("pred = \"tid < 32\"\n"));
  INFO(ds.format_all());
  REQUIRE(ds.items().size() == 1);
  CHECK(ds.items()[0].id == DiagId::contract_mbarrier_reuse);
  CHECK(ds.items()[0].message.find("CTA 0, thread 32: the thread's first arrival on barrier "
                                   "'bar.sub[0]' comes in phase 1, but it does not know that "
                                   "phase 0 completed") != std::string::npos);
  // Every thread waits for phase 0 first.
  const auto ok = contract(halves(""));
  INFO(ok.format_all());
  CHECK(ok.empty());
}

TEST_CASE("reference: the phases complete exactly and the copies land through them") {
  auto k = load(one_phase(64, false, true, "0"));
  const auto out = reference(*k);
  INFO(out.problems.size());
  CHECK(out.problems.empty());
  // B row t = s row 63 - t = A row 63 - t... copied back to B row t from the mirrored row:
  // the kernel writes B[t] = s[63 - t] = A[63 - t].
  const auto& b = out.global.at("B");
  for (std::size_t t = 0; t < 64; ++t)
    for (std::size_t c = 0; c < 16; ++c)
      CHECK(b[t * 16 + c] == static_cast<std::uint8_t>(((63 - t) * 16 + c) % 251));
  // noinc with the doubled count completes; noinc with the single count completes phase 0
  // on the explicit arrivals, and the deferred ones then complete phase 1: a wait on
  // parity 0 finds phase 2 in progress, parity 0: it hangs.
  CHECK(reference(*load(one_phase(128, true, true, "0"))).problems.empty());
  CHECK(found(reference(*load(one_phase(64, true, true, "0"))), DiagId::check_mbarrier_hang));
  // Without noinc a doubled count never completes.
  CHECK(found(reference(*load(one_phase(128, false, true, "0"))), DiagId::check_mbarrier_hang));
}

TEST_CASE("reference: reads before the wait, or after a wait that did not wait, are hazards") {
  // The mirrored row read before the wait: its copy is still pending.
  const std::string early =
      "\n[[op]]\nop = \"copy\"\ndst = 'B.sub[tid, :]'\nsrc = 's.sub[63 - tid, :]'\n";
  CHECK(
      found(reference(*load(one_phase(64, false, true, "0", early))), DiagId::check_read_pending));
  // Parity 1 on a fresh barrier passes at once: the copies land (the wait lands what the
  // barrier tracks) but no thread has waited for their phase.
  const auto out = reference(*load(one_phase(64, false, true, "1")));
  CHECK(found(out, DiagId::check_mbarrier_unwaited_read));
  CHECK_FALSE(found(out, DiagId::check_read_without_sync));
}

/// The ring spec lowered for sm_`sm`, printed.
std::string lowered_ring(int sm) {
  auto k = load(ring("(k / 2) % 2"));
  ptxgen::lower::LowerOptions o;
  o.target = {sm, false};
  auto m = ptxgen::lower::lower(*k, o);
  INFO(m.diagnostics.format_all());
  REQUIRE(m);
  return ptxgen::ptx::print(*m);
}

TEST_CASE("lowering: a test_wait loop on sm_80, a try_wait loop on sm_90") {
  for (int sm : {80, 90}) {
    CAPTURE(sm);
    const std::string text = lowered_ring(sm);
    const bool try_wait = text.find("mbarrier.try_wait.parity.shared.b64") != std::string::npos;
    const bool test_wait = text.find("mbarrier.test_wait.parity.shared.b64") != std::string::npos;
    CHECK(try_wait == (sm >= 90));
    CHECK(test_wait == (sm < 90));
    CHECK(text.find("mbarrier.arrive.shared.b64 _, [") != std::string::npos);
    CHECK(text.find("cp.async.mbarrier.arrive.shared.b64 [") != std::string::npos);
    CHECK(text.find("mbarrier.init.shared.b64 [") != std::string::npos);
  }
}

TEST_CASE("ptxas assembles the test_wait and the try_wait loop" * doctest::test_suite("ptxas")) {
  auto ptxas = ptxgen::driver::locate_ptxas("");
  REQUIRE_MESSAGE(ptxas, "no ptxas: " << ptxas.error());
  for (int sm : {80, 90}) {
    CAPTURE(sm);
    const std::string text = lowered_ring(sm);
    ptxgen::driver::AssembleOptions a;
    a.target = {sm, false};
    a.verbose = false;
    a.keep_cubin = false;
    auto r = ptxgen::driver::assemble(ptxas->path, text, a);
    INFO(text << r.describe());
    CHECK(r.ok());
  }
}

} // namespace unit_mbarrier_spec
