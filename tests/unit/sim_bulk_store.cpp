// The simulator's bulk stores (cp.async.bulk.global.shared::cta.bulk_group), bulk groups and
// the async-proxy rule, on tests/data/sim_mbarrier/bulk_store.ptx (ptxas checks it). Mutants
// replace one tagged line (`// M: tag`). Expected bytes come from the kernel's stated
// semantics (B word i = A word i + 1), the expected lines from the tags. Checks key on
// FaultKind / RaceKind, never on message text.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_bulk_store {

using namespace ptxgen::sim;
using ptxgen::test::tagged_line;
using ptxgen::test::word_at;

namespace {

constexpr std::uint64_t a_base = 0x10000;
constexpr std::uint64_t b_base = 0x40000;
constexpr std::uint32_t threads = 32;
constexpr std::size_t bytes = 512;

struct Memory {
  std::vector<std::uint8_t> a, b;
  std::vector<GlobalBuffer> buffers;
  Memory() : a(bytes), b(bytes + 4, 0xEE) {
    for (std::size_t i = 0; i < a.size(); ++i)
      a[i] = static_cast<std::uint8_t>(i * 7 + 3);
    buffers = {{a_base, &a, "A"}, {b_base, &b, "B"}};
  }
};

SimResult launch(const std::string& ptx, Memory& m, const std::string& entry = "roundtrip") {
  Launch l;
  l.block_dim = {threads, 1, 1};
  l.params = {a_base, b_base};
  l.max_instructions = 10'000'000;
  return run(ptx, entry, l, m.buffers);
}

std::string data() {
  return ptxgen::test::read_test_data("sim_mbarrier", "bulk_store.ptx");
}

std::string without(std::string text, std::initializer_list<const char*> tags) {
  for (const char* tag : tags)
    text = ptxgen::test::replace_tagged_line(text, tag, "\t// (removed)");
  return text;
}

/// A race of `kind` at the line tagged `at`, against the line tagged `other` (thread `tid`).
void require_race(const SimResult& r, RaceKind kind, const std::string& text, const std::string& at,
                  const std::string& other, std::int64_t tid) {
  REQUIRE_MESSAGE(r.fault.has_value(), "expected a " << name(kind) << " race");
  ptxgen::test::require_race_at(*r.fault, kind, text, at, other);
  CHECK(r.fault->race->other.tid == tid);
}

} // namespace

TEST_CASE("bulk_store.ptx: load, compute, proxy fence, bulk store, read wait, refill, wait") {
  Memory m;
  const SimResult r = launch(data(), m);
  INFO((r.fault ? r.fault->message : std::string()));
  REQUIRE_FALSE(r.fault.has_value());
  for (std::size_t i = 0; i < bytes / 4; ++i) {
    INFO("word " << i);
    REQUIRE(word_at(m.b, i) == word_at(m.a, i) + 1);
  }
  CHECK(word_at(m.b, bytes / 4) == word_at(m.a, 0) + 1);
}

TEST_CASE("bulk_store.ptx: the async proxy needs fence.proxy.async after generic writes") {
  const std::string base = data();
  SUBCASE("no fence before the bulk store: it reads bytes thread 0 stored") {
    const std::string text = without(base, {"fence"});
    Memory m;
    require_race(launch(text, m), RaceKind::missing_proxy_fence, base, "store", "st", 0);
  }
  SUBCASE("no fence before the bulk load: it overwrites bytes thread 0 stored") {
    const std::string text = without(base, {"fence0"});
    Memory m;
    require_race(launch(text, m), RaceKind::missing_proxy_fence, base, "load", "prefill", 0);
  }
  SUBCASE("thread 31 elected: the same bytes") {
    const std::string text =
        ptxgen::test::replace_tagged_line(base, "elect", "\tsetp.ne.u32 %p1, %r1, 31;");
    Memory m;
    const SimResult r = launch(text, m);
    INFO((r.fault ? r.fault->message : std::string()));
    REQUIRE_FALSE(r.fault.has_value());
    CHECK(word_at(m.b, 7) == word_at(m.a, 7) + 1);
  }
  SUBCASE("thread 31 elected, fences after the barrier: not ordered before the bulk store") {
    // Threads 0..30 run their fence before thread 31 issues (simulation order), but no barrier
    // orders those fences before the issue.
    std::string text =
        ptxgen::test::replace_tagged_line(base, "elect", "\tsetp.ne.u32 %p1, %r1, 31;");
    text = ptxgen::test::replace_tagged_line(text, "fence", "\t// (moved)");
    text = ptxgen::test::replace_tagged_line(text, "late", "\tfence.proxy.async.shared::cta;");
    Memory m;
    require_race(launch(text, m), RaceKind::missing_proxy_fence, base, "store", "st", 0);
  }
  SUBCASE("fence.proxy.async.global orders no shared bytes") {
    const std::string text =
        ptxgen::test::replace_tagged_line(base, "fence", "\tfence.proxy.async.global;");
    Memory m;
    require_race(launch(text, m), RaceKind::missing_proxy_fence, base, "store", "st", 0);
  }
}

TEST_CASE("bulk_store.ptx: bulk group waits") {
  const std::string base = data();
  SUBCASE("wait_group.read 1 leaves the only group's read pending: the refill races") {
    const std::string text =
        ptxgen::test::replace_tagged_line(base, "wait_read", "\tcp.async.bulk.wait_group.read 1;");
    Memory m;
    require_race(launch(text, m), RaceKind::refill_before_bulk_read, base, "refill", "store", 0);
  }
  SUBCASE("a store not committed is not covered by wait_group.read 0") {
    Memory m;
    require_race(launch(without(base, {"commit"}), m), RaceKind::refill_before_bulk_read, base,
                 "refill", "store", 0);
  }
  SUBCASE("reading B after wait_group.read only: the write may not have happened") {
    Memory m;
    require_race(launch(without(base, {"wait"}), m), RaceKind::read_before_bulk_write, base,
                 "gread", "store", 0);
  }
  SUBCASE("wait_group.read is enough before exit; B is written") {
    Memory m;
    const SimResult r = launch(without(base, {"wait", "gread", "gwrite"}), m);
    INFO((r.fault ? r.fault->message : std::string()));
    REQUIRE_FALSE(r.fault.has_value());
    CHECK(word_at(m.b, 5) == word_at(m.a, 5) + 1);
  }
  SUBCASE("never waited: exit with the group's read pending is undefined") {
    Memory m;
    const SimResult r = launch(without(base, {"wait_read", "refill", "wait", "gread"}), m);
    REQUIRE(r.fault.has_value());
    INFO(r.fault->message);
    CHECK(r.fault->kind == FaultKind::undefined_behavior);
    CHECK(r.fault->ptx_line == tagged_line(base, "store"));
  }
}

TEST_CASE("bulk_store.ptx late_wait: another thread's refill must be ordered after the wait") {
  const std::string base = data();
  SUBCASE("a barrier after wait_group.read: B word i = i / 4") {
    Memory m;
    const SimResult r = launch(base, m, "late_wait");
    INFO((r.fault ? r.fault->message : std::string()));
    REQUIRE_FALSE(r.fault.has_value());
    for (std::size_t i = 0; i < bytes / 4; ++i) {
      INFO("word " << i);
      REQUIRE(word_at(m.b, i) == i / 4);
    }
  }
  SUBCASE("no barrier after it: thread 1 refills bytes the store may still read") {
    // The issue and the wait lie in different barrier phases, so only the wait orders the read.
    Memory m;
    const SimResult r = launch(without(base, {"sync"}), m, "late_wait");
    REQUIRE(r.fault.has_value());
    INFO(r.fault->message);
    REQUIRE(r.fault->race);
    CHECK(r.fault->race->kind == RaceKind::write_after_read);
    CHECK(r.fault->tid == 1);
    CHECK(r.fault->race->access.ptx_line == tagged_line(base, "late_refill"));
    CHECK(r.fault->race->other.tid == 0);
  }
}

TEST_CASE("bulk_store.ptx: transaction counts and parity") {
  const std::string base = data();
  SUBCASE("expect_tx of half the bytes: the phase never completes") {
    const std::string text = ptxgen::test::replace_tagged_line(
        base, "expect", "\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 256;");
    Memory m;
    const SimResult r = launch(text, m);
    REQUIRE(r.fault.has_value());
    CHECK(r.fault->kind == FaultKind::deadlock);
  }
  SUBCASE("waiting on parity 1 first: once the bytes land, it names phase 1, a hang") {
    // The simulator completes phase 0 as soon as it can (the bytes may land at once); parity 1
    // then names the current phase 1, which no thread completes.
    const std::string text = ptxgen::test::replace_tagged_line(
        base, "parity", "\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 1;");
    Memory m;
    const SimResult r = launch(text, m);
    REQUIRE(r.fault.has_value());
    CHECK(r.fault->kind == FaultKind::deadlock);
  }
}

} // namespace unit_sim_bulk_store
