// The simulator's atomics, strong accesses, fences, spin loops, warp queries and reserved
// shared memory, on the PTX files of tests/data/sim_sync/ (ptxas checks each: tests
// ptxas.sim_sync_input.*). Expected values come from the PTX ISA's definitions of each
// instruction and from the layout documented in simulator.hpp, not from the simulator.
// Mutants replace one tagged line (`// M: tag`). Checks key on FaultKind / RaceKind.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_sync {

using namespace ptxgen::sim;

namespace {

constexpr std::uint64_t out_base = 0x20000;
constexpr std::uint32_t sentinel = 0xEEEEEEEEu;

std::string read_data(const std::string& name) {
  return ptxgen::test::read_test_data("sim_sync", name);
}

std::string mutate(const std::string& text, const std::string& tag, const std::string& line) {
  return ptxgen::test::replace_tagged_line(text, tag, line);
}

/// Runs `entry` with one u64 parameter, the output buffer of `words` 32-bit words.
SimResult launch(const std::string& ptx, const std::string& entry, std::uint32_t threads,
                 std::vector<std::uint32_t>& out, std::uint64_t max_instructions = 1'000'000) {
  std::vector<std::uint8_t> bytes(out.size() * 4, 0xEE);
  std::vector<GlobalBuffer> buffers = {{out_base, &bytes, "out"}};
  Launch l;
  l.block_dim = {threads, 1, 1};
  l.params = {out_base};
  l.max_instructions = max_instructions;
  SimResult r = run(ptx, entry, l, buffers);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return r;
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

} // namespace

TEST_CASE("atom and red on shared memory: 64 threads count, or and max") {
  std::vector<std::uint32_t> out(64 * 4);
  require_ok(launch(read_data("atomics.ptx"), "shared_counter", 64, out));
  std::vector<std::uint32_t> olds;
  for (std::uint32_t t = 0; t < 64; ++t) {
    INFO("thread " << t);
    olds.push_back(out[4 * t]);
    CHECK(out[4 * t + 1] == 64u);         // 64 increments
    CHECK(out[4 * t + 2] == 0xffffffffu); // every bit 0..31 or-ed in
    CHECK(out[4 * t + 3] == 63u);         // the largest tid
  }
  // Each thread saw a distinct old value: the values 0..63 in some order.
  std::sort(olds.begin(), olds.end());
  std::vector<std::uint32_t> all(64);
  std::iota(all.begin(), all.end(), 0u);
  CHECK(olds == all);
}

TEST_CASE("atom's operations, each on a global word: old value and result") {
  std::vector<std::uint32_t> out(20);
  require_ok(launch(read_data("atomics.ptx"), "each_op", 1, out));
  const std::vector<std::uint32_t> want = {
      5,          0,          // inc: old 5 >= bound 5 -> 0
      0,          7,          // dec: old 0 -> the bound 7
      42,         99,         // cas hit: 42 == 42 -> 99
      42,         42,         // cas miss: 42 != 41 -> unchanged
      3,          0xfffffffe, // min.s32(3, -2) = -2
      3,          0xfffffffe, // max.u32(3, 0xfffffffe)
      7,          1234,       // exch
      0xf0f0,     0xf000,     // and 0xff00
      0xf0f0,     0x0ff0,     // xor 0xff00
      0xffffffff, 1,          // add 2 wraps mod 2^32
  };
  CHECK(out == want);
}

TEST_CASE("a flag spin loop on ld.acquire yields to the thread that sets it") {
  const std::string ptx = read_data("atomics.ptx");
  std::vector<std::uint32_t> out(1);
  // Thread 0 polls before thread 1 has run: without yielding it would spin to the limit.
  require_ok(launch(ptx, "flag_spin", 2, out, 10'000));
  CHECK(out[0] == 77u);

  SUBCASE("a flag nobody sets: the instruction limit is the backstop") {
    require_fault(launch(mutate(ptx, "release", "  // no release"), "flag_spin", 2, out, 10'000),
                  FaultKind::instruction_limit);
  }
}

TEST_CASE("atomics on one word never race with each other; a plain store among them does") {
  const std::string ptx = read_data("atomics.ptx");
  std::vector<std::uint32_t> out(1);
  require_ok(launch(ptx, "plain_vs_atomic", 64, out));

  SUBCASE("thread 0's plain store, then thread 1's atomic without a barrier") {
    const SimResult r =
        launch(mutate(ptx, "plain", "  st.shared.u32 [w], 5;"), "plain_vs_atomic", 64, out);
    require_fault(r, FaultKind::race);
    REQUIRE(r.fault->race.has_value());
    CHECK(r.fault->race->kind == RaceKind::read_after_write);
    CHECK(r.fault->race->other.tid == 0);
  }
}

TEST_CASE("activemask, match.any.sync and bfind") {
  std::vector<std::uint32_t> out(64 * 4);
  require_ok(launch(read_data("warp.ptx"), "warp_queries", 64, out));
  for (std::uint32_t t = 0; t < 64; ++t) {
    INFO("thread " << t);
    const std::uint32_t lane = t % 32;
    // activemask: lanes of the same parity that reached it; lanes 16..31 of warp 1 exited.
    const std::uint32_t parity = lane % 2 == 0 ? 0x55555555u : 0xaaaaaaaau;
    CHECK(out[4 * t] == (t >= 48 ? sentinel : t >= 32 ? (parity & 0xffffu) : parity));
    CHECK(out[4 * t + 1] == 0xfu << (lane / 4 * 4)); // the 4 lanes of the same lane / 4
    std::uint32_t same = 0;                          // lanes j of the warp with tid % 3 equal
    for (std::uint32_t j = 0; j < 32; ++j)
      same |= static_cast<std::uint32_t>((t - lane + j) % 3 == t % 3) << j;
    CHECK(out[4 * t + 2] == same);
    // bfind 0x00f00000 = 23, .shiftamt = 31 - 23 = 8, bfind.s32 -8 = 2 (its top 0 bit),
    // packed 23 | 8 << 8 | 2 << 16, xor bfind.u64 0 = 0xffffffff.
    CHECK(out[4 * t + 3] == (0x00020817u ^ 0xffffffffu));
  }
}

TEST_CASE("the reserved shared region follows the kernel's own shared memory") {
  // 20 bytes of .shared: the region starts at the next 16-byte boundary, 32 (simulator.hpp).
  std::vector<std::uint32_t> out(6);
  require_ok(launch(read_data("warp.ptx"), "reserved", 1, out));
  const std::vector<std::uint32_t> want = {32, 32 + 1024, 1024, 32, 40, 0x5eed};
  CHECK(out == want);
}

TEST_CASE("an indirect call through a function's address, with an aligned callee frame") {
  const std::string ptx = read_data("indirect.ptx");
  std::vector<std::uint32_t> out(1);
  require_ok(launch(ptx, "indirect", 1, out));
  CHECK(out[0] == 42u);

  SUBCASE("a call through an address that is no function: illegal_address") {
    require_fault(launch(mutate(ptx, "target", "  mov.u64 %rd3, 8;"), "indirect", 1, out),
                  FaultKind::illegal_address);
  }
}

} // namespace unit_sim_sync
