// The simulator's races on global bytes within a CTA, on tests/data/sim_mbarrier/bulk_global.ptx
// (ptxas checks it): another thread's access after a bulk wait (a wait covers its own thread's
// groups), a generic write under a pending bulk store, and the global side of the async proxy
// (fence.proxy.async{.global}). Mutants replace one tagged line (`// M: tag`). Expected bytes
// come from the kernels' stated semantics, the expected lines from the tags. Checks key on
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
namespace unit_sim_bulk_global {

using namespace ptxgen::sim;
using ptxgen::test::tagged_line;
using ptxgen::test::word_at;

namespace {

constexpr std::uint64_t a_base = 0x10000;
constexpr std::uint64_t b_base = 0x40000;
constexpr std::uint32_t threads = 32;

struct Memory {
  std::vector<std::uint8_t> a, b;
  std::vector<GlobalBuffer> buffers;
  Memory() : a(512), b(1024, 0xEE) {
    for (std::size_t i = 0; i < a.size(); ++i)
      a[i] = static_cast<std::uint8_t>(i * 7 + 3);
    buffers = {{a_base, &a, "A"}, {b_base, &b, "B"}};
  }
};

SimResult launch(const std::string& ptx, const std::string& entry, Memory& m,
                 std::uint32_t ctas = 1) {
  Launch l;
  l.grid_dim = {ctas, 1, 1};
  l.block_dim = {threads, 1, 1};
  l.params = entry == "gproxy" ? std::vector<std::uint64_t>{a_base, b_base}
                               : std::vector<std::uint64_t>{b_base};
  l.max_instructions = 10'000'000;
  l.workers = 1;
  return run(ptx, entry, l, m.buffers);
}

std::string data() {
  return ptxgen::test::read_test_data("sim_mbarrier", "bulk_global.ptx");
}

std::string with(const std::string& text, const std::string& tag, const std::string& line) {
  return ptxgen::test::replace_tagged_line(text, tag, line);
}

/// A race of `kind` at the line tagged `at` by thread `tid`, against the line tagged `other`
/// of thread `other_tid`, on a byte of `symbol`.
void require_race(const SimResult& r, RaceKind kind, const std::string& text, const std::string& at,
                  std::int64_t tid, const std::string& other, std::int64_t other_tid,
                  const std::string& symbol = "B") {
  REQUIRE_MESSAGE(r.fault.has_value(), "expected a " << name(kind) << " race");
  ptxgen::test::require_race_at(*r.fault, kind, text, at, other);
  CHECK(r.fault->tid == tid);
  CHECK(r.fault->race->symbol == symbol);
  CHECK(r.fault->race->other.tid == other_tid);
  CHECK(r.fault->race->access.iteration == 1);
}

void require_clean(const SimResult& r) {
  INFO((r.fault ? r.fault->message : std::string()));
  REQUIRE_FALSE(r.fault.has_value());
}

} // namespace

TEST_CASE("bulk_global.ptx readback: a bulk wait covers only the waiting thread's groups") {
  const std::string base = data();
  SUBCASE("a barrier after thread 0's wait: every thread reads B back") {
    Memory m;
    require_clean(launch(base, "readback", m));
    for (std::uint32_t i = 0; i < threads; ++i) {
      INFO("thread " << i);
      CHECK(word_at(m.b, 4 * i) == i);
      CHECK(word_at(m.b, 4 * i + 3) == i);
      CHECK(word_at(m.b, 128 + i) == i);
    }
  }
  SUBCASE("no barrier after the wait: thread 1 reads B, which only thread 0's wait covers") {
    Memory m;
    require_race(launch(with(base, "sync", "\t// (removed)"), "readback", m),
                 RaceKind::bulk_wait_scope, base, "gread", 1, "store", 0);
  }
  SUBCASE("no barrier after the wait: thread 1 writes B, which only thread 0's wait covers") {
    Memory m;
    const std::string text =
        with(with(base, "sync", "\t// (removed)"), "late", "\tst.global.u32 [%rd2+20], %r1;");
    require_race(launch(text, "readback", m), RaceKind::bulk_wait_scope, base, "late", 1, "store",
                 0);
  }
  SUBCASE("an mbarrier phase instead of the barrier: thread 0 arrives after its wait") {
    const std::string handoff = "\t@%p1 bra $L_arrived;\n"
                                "\tmbarrier.arrive.shared::cta.b64 %rd7, [%r12];\n"
                                "$L_arrived:\n"
                                "\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [%r12], 0;\n"
                                "\t@!%p3 bra $L_arrived;";
    Memory m;
    require_clean(launch(with(base, "sync", handoff), "readback", m));
    CHECK(word_at(m.b, 128 + 31) == 31);
    // an arrival before the wait orders only what came before it: not the store's write
    const std::string early =
        with(with(base, "wait",
                  "\tmbarrier.arrive.shared::cta.b64 %rd7, [%r12];\n"
                  "\tcp.async.bulk.wait_group 0;"),
             "sync",
             "$L_arrived:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [%r12], 0;\n"
             "\t@!%p3 bra $L_arrived;");
    Memory e;
    const SimResult r = launch(early, "readback", e);
    REQUIRE(r.fault.has_value());
    INFO(r.fault->message);
    REQUIRE(r.fault->race);
    CHECK(r.fault->race->kind == RaceKind::bulk_wait_scope);
    CHECK(r.fault->tid == 1);
  }
  SUBCASE("wait_group.read only, with the barrier: the write is still pending") {
    Memory m;
    require_race(launch(with(base, "wait", "\tcp.async.bulk.wait_group.read 0;"), "readback", m),
                 RaceKind::read_before_bulk_write, base, "gread", 0, "store", 0);
  }
  SUBCASE("the shared side: another thread's refill after the wait, with no barrier") {
    // gread left out: with only the .read wait, thread 0's own read-back comes first
    const std::string refill =
        with(with(base, "late", "\tst.shared.u32 [%r7], %r1;"), "gread", "\tmov.u32 %r10, 0;");
    for (const char* wait :
         {"\tcp.async.bulk.wait_group 0;", "\tcp.async.bulk.wait_group.read 0;"}) {
      INFO(wait);
      Memory m;
      const std::string text = with(with(refill, "wait", wait), "sync", "\t// (removed)");
      require_race(launch(text, "readback", m), RaceKind::write_after_read, base, "late", 1,
                   "store", 0, "obuf");
      Memory fixed;
      require_clean(launch(with(refill, "wait", wait), "readback", fixed));
    }
  }
}

TEST_CASE("bulk_global.ptx overwrite: a generic write under a pending bulk store") {
  const std::string base = data();
  SUBCASE("thread 0 waits before the barrier: the generic stores land last") {
    Memory m;
    require_clean(launch(base, "overwrite", m));
    for (std::uint32_t i = 0; i < threads; ++i) {
      INFO("thread " << i);
      CHECK(word_at(m.b, 4 * i) == 0xffffffffu);
      CHECK(word_at(m.b, 4 * i + 1) == i);
    }
  }
  SUBCASE("no wait before the barrier: the two writes' order is undefined") {
    Memory m;
    require_race(launch(with(base, "wait_early", "\t// (removed)"), "overwrite", m),
                 RaceKind::write_before_bulk_write, base, "gwrite", 0, "ostore", 0);
  }
  SUBCASE("wait_group.read does not complete the write") {
    Memory m;
    require_race(
        launch(with(base, "wait_early", "\tcp.async.bulk.wait_group.read 0;"), "overwrite", m),
        RaceKind::write_before_bulk_write, base, "gwrite", 0, "ostore", 0);
  }
}

TEST_CASE("bulk_global.ptx gproxy: a bulk load of generic-written global bytes needs a fence") {
  const std::string base = data();
  SUBCASE("fence.proxy.async.global before the barrier: B word 128 + i = A word i + 1") {
    Memory m;
    require_clean(launch(base, "gproxy", m));
    for (std::size_t i = 0; i < 128; ++i) {
      INFO("word " << i);
      REQUIRE(word_at(m.b, 128 + i) == word_at(m.a, i) + 1);
    }
  }
  SUBCASE("fence.proxy.async (every state space) is as good") {
    Memory m;
    require_clean(launch(with(base, "gfence", "\tfence.proxy.async;"), "gproxy", m));
  }
  SUBCASE("no fence: the async proxy may read stale bytes") {
    Memory m;
    require_race(launch(with(base, "gfence", "\t// (removed)"), "gproxy", m),
                 RaceKind::missing_global_proxy_fence, base, "gload", 0, "gst", 0);
  }
  SUBCASE("fence.proxy.async.shared::cta orders no global bytes") {
    Memory m;
    require_race(launch(with(base, "gfence", "\tfence.proxy.async.shared::cta;"), "gproxy", m),
                 RaceKind::missing_global_proxy_fence, base, "gload", 0, "gst", 0);
  }
  SUBCASE("fences after the barrier: thread 1's is not ordered before thread 0's load") {
    Memory m;
    const std::string text =
        with(with(base, "gfence", "\t// (moved)"), "glate", "\tfence.proxy.async.global;");
    require_race(launch(text, "gproxy", m), RaceKind::missing_global_proxy_fence, base, "gload", 0,
                 "gst", 1);
  }
}

} // namespace unit_sim_bulk_global
