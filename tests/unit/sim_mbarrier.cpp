// The simulator's mbarrier family and bulk copies, on the PTX files of tests/data/sim_mbarrier/
// (ptxas checks each: tests ptxas.sim_mbarrier_input.*): nvcc's own output, verbatim, for
// cuda::barrier + cuda::memcpy_async and the cuda::ptx wrappers on sm_80 and sm_90 (the .cu
// sources are beside them), ptxgen's own lowering (ptxgen_ring3_sm80.ptx), the forms that
// lowering emits in a hand-written ring (ring.ptx), the accounting rules (counts.ptx,
// noinc.ptx).
// Mutants are made here by replacing one tagged line (`// M: tag`) of a file.
// Expected bytes come from the kernels' stated semantics (B[t] = A[(t+1) % T] ...), not from
// the simulator. Checks key on FaultKind / RaceKind, never on message text.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_mbarrier {

using namespace ptxgen::sim;
using ptxgen::test::tagged_line;

namespace {

constexpr std::uint64_t a_base = 0x10000;
constexpr std::uint64_t b_base = 0x40000;
constexpr std::uint8_t b_sentinel = 0xEE;

std::string read_data(const std::string& name) {
  return ptxgen::test::read_test_data("sim_mbarrier", name);
}

std::string mutate(const std::string& text, const std::string& tag, const std::string& line) {
  return ptxgen::test::replace_tagged_line(text, tag, line);
}

/// The 1-based line of the line tagged `// M: tag`.
std::uint8_t a_byte(std::size_t i) {
  return static_cast<std::uint8_t>(i * 7 + 3);
}

struct Memory {
  std::vector<std::uint8_t> a, b;
  std::vector<GlobalBuffer> buffers;
  Memory(std::size_t a_bytes, std::size_t b_bytes) : a(a_bytes), b(b_bytes, b_sentinel) {
    for (std::size_t i = 0; i < a.size(); ++i)
      a[i] = a_byte(i);
    buffers = {{a_base, &a, "A"}, {b_base, &b, "B"}};
  }
};

SimResult launch(const std::string& ptx, const std::string& entry, Memory& m, std::uint32_t threads,
                 std::vector<std::uint64_t> params, std::uint64_t max_instructions = 200'000'000) {
  Launch l;
  l.block_dim = {threads, 1, 1};
  l.params = std::move(params);
  l.max_instructions = max_instructions;
  return run(ptx, entry, l, m.buffers);
}

void require_ok(const SimResult& r) {
  INFO((r.fault ? std::string(name(r.fault->kind)) + ": " + r.fault->message : std::string()));
  REQUIRE_FALSE(r.fault.has_value());
}

void require_fault(const SimResult& r, FaultKind k) {
  REQUIRE_MESSAGE(r.fault.has_value(), "expected a " << name(k) << " fault");
  INFO(r.fault->message);
  CHECK(r.fault->kind == k);
}

/// B holds, per element of 16 bytes, A's element (t+1) % T of the same row of T elements.
void check_rotated(const Memory& m, std::uint32_t threads, std::uint32_t rows) {
  for (std::uint32_t i = 0; i < rows; ++i) {
    for (std::uint32_t t = 0; t < threads; ++t) {
      for (std::uint32_t k = 0; k < 16; ++k) {
        const std::size_t out = (static_cast<std::size_t>(i) * threads + t) * 16 + k;
        const std::size_t in = (static_cast<std::size_t>(i) * threads + (t + 1) % threads) * 16 + k;
        INFO("row " << i << " thread " << t << " byte " << k);
        REQUIRE(m.b[out] == a_byte(in));
      }
    }
  }
}

} // namespace

TEST_CASE("nvcc's cuda::barrier + cuda::memcpy_async PTX, verbatim, sm_80 and sm_90") {
  // sm_80: cp.async + cp.async.mbarrier.arrive + mbarrier.arrive (state), a test_wait loop
  // with a %globaltimer back-off; sm_90: per-thread cp.async.bulk with expect_tx and an
  // arrive count, a try_wait loop. Per thread (k_barrier) or cooperative (k_barrier_block).
  constexpr std::uint32_t threads = 128;
  for (const char* file : {"nvcc_barrier_sm80_full.ptx", "nvcc_barrier_sm90_full.ptx"}) {
    for (const char* entry : {"_Z9k_barrierPK4int4PS_", "_Z15k_barrier_blockPK4int4PS_"}) {
      INFO(file << " " << entry);
      Memory m(threads * 16, threads * 16);
      // The spin loop must cost a few instructions per thread, not run into the limit.
      require_ok(launch(read_data(file), entry, m, threads, {a_base, b_base}, threads * 100));
      check_rotated(m, threads, 1);
    }
  }
}

TEST_CASE("nvcc's bulk copies, verbatim, sm_90: cuda::barrier and cuda::ptx wrappers") {
  // k_bulk: thread 0's cuda::memcpy_async of 2048 bytes (bulk copy before expect_tx), every
  // thread's arrive + try_wait on the state; k_ptx: cuda::ptx::mbarrier_init,
  // fence_mbarrier_init, arrive_expect_tx, cp_async_bulk (.shared::cta), try_wait_parity in
  // a scoped-register block, fence_proxy_async.
  const std::string ptx = read_data("nvcc_bulk_sm90_full.ptx");
  constexpr std::uint32_t threads = 128;
  for (const char* entry : {"_Z6k_bulkPK4int4PS_", "_Z5k_ptxPK4int4PS_"}) {
    INFO(entry);
    Memory m(threads * 16, threads * 16);
    require_ok(launch(ptx, entry, m, threads, {a_base, b_base}, threads * 100));
    check_rotated(m, threads, 1);
  }

  SUBCASE("reading the bulk copy's bytes without waiting: read_before_wait") {
    // k_ptx's wait replaced by `P_OUT = true`: thread 0, which issued the copy, reads its
    // bytes (thread 1's 16) while the copy is still pending on the incomplete phase.
    const std::string bad = [&] {
      std::string s = ptx;
      const std::string wait = "mbarrier.try_wait.parity.shared::cta.b64  P_OUT, [%r10], %r11;";
      auto at = s.find(wait);
      REQUIRE(at != std::string::npos);
      return s.replace(at, wait.size(), "setp.eq.u32 P_OUT, %r11, 0;");
    }();
    Memory m2(threads * 16, threads * 16);
    const SimResult r = launch(bad, "_Z5k_ptxPK4int4PS_", m2, threads, {a_base, b_base});
    require_fault(r, FaultKind::race);
    CHECK(r.fault->tid == 0);
    CHECK(r.fault->race->kind == RaceKind::read_before_wait);
  }
}

TEST_CASE("ring.ptx: ptxgen's lowering forms, a 2-stage ring on full/empty mbarriers") {
  const std::string ptx = read_data("ring.ptx");
  constexpr std::uint32_t threads = 32, rows = 7;
  const std::vector<std::uint64_t> params = {a_base, b_base, rows};

  SUBCASE("correct") {
    Memory m(threads * rows * 16, threads * rows * 16);
    require_ok(launch(ptx, "ring", m, threads, params, 200'000));
    check_rotated(m, threads, rows);
  }
  SUBCASE("a missing arrival: the phase never completes, deadlock at the full wait") {
    Memory m(threads * rows * 16, threads * rows * 16);
    const SimResult r =
        launch(mutate(ptx, "full arrive", "\t// dropped"), "ring", m, threads, params, 200'000);
    require_fault(r, FaultKind::deadlock);
    CHECK(r.fault->ptx_line == tagged_line(ptx, "full wait"));
    CHECK(r.fault->tid >= 0);
  }
  SUBCASE("waiting for the empty barrier on the wrong parity: deadlock") {
    Memory m(threads * rows * 16, threads * rows * 16);
    const SimResult r =
        launch(mutate(ptx, "empty parity", "\tmov.u32 %r21, %r13;"), "ring", m, threads, params);
    require_fault(r, FaultKind::deadlock);
  }
  SUBCASE("waiting for the full barrier on the wrong parity: the wait passes, a race") {
    // Thread 0's wait on parity 1 of phase 0 passes at once: it reads thread 1's slot before
    // thread 1 has even issued its copy, which then writes bytes thread 0 read, unordered.
    Memory m(threads * rows * 16, threads * rows * 16);
    const SimResult r =
        launch(mutate(ptx, "full parity", "\txor.b32 %r24, %r13, 1;"), "ring", m, threads, params);
    require_fault(r, FaultKind::race);
    CHECK(r.fault->race->kind == RaceKind::write_after_read);
    CHECK(r.fault->tid == 1);
    CHECK(r.fault->race->other.tid == 0);
  }
  SUBCASE("reading one's own bytes before the wait: read_before_wait") {
    std::string bad = mutate(ptx, "full wait", "\t// dropped");
    bad = mutate(bad, "full wait loop", "\t// dropped");
    bad = mutate(bad, "read address", "\tadd.u32 %r25, %r14, %r5;");
    Memory m(threads * rows * 16, threads * rows * 16);
    const SimResult r = launch(bad, "ring", m, threads, params);
    require_fault(r, FaultKind::race);
    CHECK(r.fault->race->kind == RaceKind::read_before_wait);
    CHECK(r.fault->tid == 0);
  }
}

TEST_CASE("ptxgen_ring3_sm80.ptx: ptxgen's own lowering of a 3-stage mbarrier ring, B == A") {
  const std::string ptx = read_data("ptxgen_ring3_sm80.ptx");
  constexpr std::uint32_t threads = 128, tiles = 9;
  Memory m(tiles * threads * 16, tiles * threads * 16);
  require_ok(launch(ptx, "mbarrier_ring3", m, threads, {a_base, b_base}, 200'000));
  for (std::size_t i = 0; i < m.b.size(); ++i) {
    INFO("byte " << i);
    REQUIRE(m.b[i] == a_byte(i));
  }
}

TEST_CASE("counts.ptx: arrival counts, arrive_drop, pending_count, states, parity, inval") {
  const std::string ptx = read_data("counts.ptx");
  Memory m(0, 7 * 4);
  require_ok(launch(ptx, "counts", m, 1, {b_base}));
  const std::uint32_t expected[] = {3, 0, 1, 1, 0, 1, 7};
  for (std::size_t k = 0; k < 7; ++k) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i)
      v |= static_cast<std::uint32_t>(m.b[k * 4 + i]) << (8 * i);
    INFO("B[" << k << "]");
    CHECK(v == expected[k]);
  }
}

TEST_CASE("counts.ptx: a plain store to a valid mbarrier object is undefined behaviour") {
  Memory m(0, 4);
  require_fault(launch(read_data("counts.ptx"), "store_on_barrier", m, 1, {b_base}),
                FaultKind::undefined_behavior);
}

TEST_CASE("counts.ptx: mbarrier instructions on generic addresses") {
  const std::string ptx = read_data("counts.ptx");
  SUBCASE("a generic address of shared memory") {
    Memory m(0, 4);
    require_ok(launch(ptx, "generic", m, 1, {b_base, 0}));
    CHECK(m.b[0] == 1);
  }
  SUBCASE("a generic address outside shared memory") {
    Memory m(0, 4);
    require_fault(launch(ptx, "generic", m, 1, {b_base, 1}), FaultKind::illegal_address);
  }
}

TEST_CASE("counts.ptx: expect_tx accounting of a bulk copy") {
  const std::string ptx = read_data("counts.ptx");
  SUBCASE("tx = bytes copied: the phase completes, the bytes land") {
    Memory m(64, 16);
    require_ok(launch(ptx, "tx", m, 1, {a_base, b_base, 64}));
    for (std::size_t k = 0; k < 16; ++k)
      CHECK(m.b[k] == a_byte(48 + k));
  }
  SUBCASE("tx = fewer bytes than copied: deadlock") {
    Memory m(64, 16);
    require_fault(launch(ptx, "tx", m, 1, {a_base, b_base, 48}), FaultKind::deadlock);
  }
  SUBCASE("tx = more bytes than copied: deadlock") {
    Memory m(64, 16);
    require_fault(launch(ptx, "tx", m, 1, {a_base, b_base, 80}), FaultKind::deadlock);
  }
}

TEST_CASE("counts.ptx: a test_wait that can only be false returns false instead of blocking") {
  Memory m(0, 8);
  require_ok(launch(read_data("counts.ptx"), "false_once", m, 2, {b_base}));
  CHECK(m.b[0] == 1);
  CHECK(m.b[4] == 1);
}

TEST_CASE("noinc.ptx: cp.async.mbarrier.arrive accounting with and without .noinc") {
  const std::string ptx = read_data("noinc.ptx");
  constexpr std::uint32_t threads = 64;
  SUBCASE("noinc only: correct") {
    Memory m(threads * 16, threads * 16);
    require_ok(launch(ptx, "noinc_only", m, threads, {a_base, b_base}));
    check_rotated(m, threads, 1);
  }
  SUBCASE("without .noinc, plus an arrive: correct (nvcc's form)") {
    Memory m(threads * 16, threads * 16);
    require_ok(launch(ptx, "inc_and_arrive", m, threads, {a_base, b_base}));
    check_rotated(m, threads, 1);
  }
  SUBCASE(".noinc plus an arrive: 2T arrivals for T, phase 0 completes early, a race") {
    // Threads 0 .. T/2-1 make two arrivals each: the T expected for phase 0. Thread T/2-1's
    // wait completes the phase and passes; it reads thread T/2's slot before that thread has
    // issued its copy, which then writes bytes thread T/2-1 read, unordered.
    Memory m(threads * 16, threads * 16);
    const SimResult r = launch(ptx, "noinc_and_arrive", m, threads, {a_base, b_base});
    require_fault(r, FaultKind::race);
    CHECK(r.fault->race->kind == RaceKind::write_after_read);
    CHECK(r.fault->tid == threads / 2);
    CHECK(r.fault->race->other.tid == threads / 2 - 1);
  }
  SUBCASE("without .noinc and no arrive: the count never drops, deadlock") {
    Memory m(threads * 16, threads * 16);
    require_fault(launch(ptx, "inc_only", m, threads, {a_base, b_base}), FaultKind::deadlock);
  }
}

} // namespace unit_sim_mbarrier
