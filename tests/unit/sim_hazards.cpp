// The simulator's hazards and 3-D launches, on the hand-written PTX files
// tests/data/sim/hazard_*.ptx and launch_3d.ptx (ptxas checks each of them:
// tests named ptxas.sim_input.*). Each file's header comment says what each
// parameter setting does; the expected thread, line, iteration and byte of
// every race are worked out by hand from that text and from the simulator's
// documented order (CTAs, then threads, in linear order, each up to its
// next bar.sync). Lines are found by the `// @name` markers in the files.
// Checks key on FaultKind and RaceKind, never on message text.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_hazards {

using namespace ptxgen::sim;

namespace {

constexpr std::uint64_t in_base = 0x10000;
constexpr std::uint64_t out_base = 0x20000;
constexpr std::uint8_t out_sentinel = 0xEE;

std::string read_data(const std::string& name) {
  return ptxgen::test::read_test_data("sim", name);
}

/// The 1-based line of `text` holding `// @marker` (exactly one line does).
std::uint32_t line_of(const std::string& text, const std::string& marker) {
  const std::string needle = "// @" + marker;
  auto at = text.find(needle);
  REQUIRE_MESSAGE(at != std::string::npos, "no marker " << needle);
  REQUIRE_MESSAGE(text.find(needle, at + 1) == std::string::npos, "two markers " << needle);
  std::uint32_t line = 1;
  for (std::size_t i = 0; i < at; ++i)
    line += text[i] == '\n';
  return line;
}

/// Input bytes in[i] = i * 7 + 3 (mod 256), output filled with the sentinel.
struct Memory {
  std::vector<std::uint8_t> in, out;
  std::vector<GlobalBuffer> buffers;
  Memory(std::size_t in_bytes, std::size_t out_bytes) : in(in_bytes), out(out_bytes, out_sentinel) {
    for (std::size_t i = 0; i < in.size(); ++i)
      in[i] = in_byte(i);
    buffers = {{in_base, &in, "in"}, {out_base, &out, "out"}};
  }
  static std::uint8_t in_byte(std::size_t i) { return static_cast<std::uint8_t>(i * 7 + 3); }
};

/// Runs entry `entry` of `ptx` on one CTA of `threads` threads with params (in, out, extra...).
SimResult run_one_cta(const std::string& ptx, const std::string& entry, Memory& m,
                      std::uint32_t threads, std::vector<std::uint64_t> extra) {
  Launch l;
  l.block_dim = {threads, 1, 1};
  l.params = {in_base, out_base};
  l.params.insert(l.params.end(), extra.begin(), extra.end());
  return run(ptx, entry, l, m.buffers);
}

/// Requires a race fault of `kind` and returns its detail.
Race require_race(const SimResult& r, RaceKind kind) {
  REQUIRE(r.fault);
  INFO(name(r.fault->kind) << ": " << r.fault->message);
  REQUIRE(r.fault->kind == FaultKind::race);
  REQUIRE(r.fault->race);
  CHECK(r.fault->race->kind == kind);
  CHECK(r.fault->race->access.tid == r.fault->tid);
  CHECK(r.fault->race->access.ptx_line == r.fault->ptx_line);
  return *r.fault->race;
}

} // namespace

TEST_CASE("a refill without a barrier after another thread's read is a write-after-read race") {
  const std::string ptx = read_data("hazard_refill.ptx");
  constexpr std::uint32_t threads = 4, rounds = 3;
  Memory m(threads * rounds * 16, threads * rounds * 16);
  SUBCASE("with the barrier: no race, every round reads the neighbour's chunk") {
    SimResult r = run_one_cta(ptx, "refill", m, threads, {1});
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    for (std::uint32_t i = 0; i < rounds; ++i)
      for (std::uint32_t t = 0; t < threads; ++t)
        for (std::uint32_t b = 0; b < 16; ++b)
          CHECK(m.out[(i * threads + t) * 16 + b] ==
                Memory::in_byte((i * threads + (t + 1) % threads) * 16 + b));
  }
  SUBCASE("without it: thread 1's second refill of row 1, which thread 0 read in round 1") {
    // Round 1 ends at the barrier after the waits; then thread 0 reads row 1
    // and, with no barrier, issues its round-2 refill (row 0, unread as yet)
    // and stops at the next barrier; thread 1 then refills row 1.
    Race race =
        require_race(run_one_cta(ptx, "refill", m, threads, {0}), RaceKind::write_after_read);
    CHECK(race.access.tid == 1);
    CHECK(race.access.ptx_line == line_of(ptx, "refill"));
    CHECK(race.access.iteration == 2);
    CHECK(race.symbol == "ring");
    CHECK(race.offset == 16);
    CHECK(race.other.tid == 0);
    CHECK(race.other.ptx_line == line_of(ptx, "read"));
    CHECK(race.other.iteration == 1);
  }
}

TEST_CASE("two pending cp.async copies to the same bytes are a race, in one thread or two") {
  const std::string ptx = read_data("hazard_pending.ptx");
  constexpr std::uint32_t threads = 4;
  Memory m(2 * threads * 16, threads * 16);
  SUBCASE("one thread's two pending copies") {
    Race race =
        require_race(run_one_cta(ptx, "pending", m, threads, {0, 0}), RaceKind::pending_copies);
    CHECK(race.access.tid == 0);
    CHECK(race.access.ptx_line == line_of(ptx, "second"));
    CHECK(race.symbol == "ring");
    CHECK(race.offset == 0);
    CHECK(race.other.tid == 0);
    CHECK(race.other.ptx_line == line_of(ptx, "first"));
  }
  SUBCASE("thread 0's second copy, pending at the barrier, and thread 1's first") {
    Race race =
        require_race(run_one_cta(ptx, "pending", m, threads, {1, 0}), RaceKind::pending_copies);
    CHECK(race.access.tid == 1);
    CHECK(race.access.ptx_line == line_of(ptx, "first"));
    CHECK(race.offset == 16);
    CHECK(race.other.tid == 0);
    CHECK(race.other.ptx_line == line_of(ptx, "second"));
    CHECK(race.other.iteration == 1);
  }
  SUBCASE("a wait between the two copies: no race, the second copy's bytes win") {
    SimResult r = run_one_cta(ptx, "pending", m, threads, {0, 1});
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    for (std::uint32_t t = 0; t < threads; ++t)
      for (std::uint32_t b = 0; b < 16; ++b)
        CHECK(m.out[t * 16 + b] == Memory::in_byte((threads + t) * 16 + b));
  }
}

TEST_CASE("reads of pending or unsynchronised bytes are races; the synchronised read is not") {
  const std::string ptx = read_data("hazard_read.ptx");
  constexpr std::uint32_t threads = 4;
  Memory m(threads * 16, threads * 16);
  const std::uint32_t copy = line_of(ptx, "copy"), read = line_of(ptx, "read");
  SUBCASE("its own copy before any wait") {
    Race race = require_race(run_one_cta(ptx, "readback", m, threads, {0, 0, 0}),
                             RaceKind::read_before_wait);
    CHECK(race.access.tid == 0);
    CHECK(race.access.ptx_line == read);
    CHECK(race.symbol == "ring"); // `pad` comes first: offsets are within `ring`
    CHECK(race.offset == 0);
    CHECK(race.other.tid == 0);
    CHECK(race.other.ptx_line == copy);
  }
  SUBCASE("another thread's waited copy with no barrier since") {
    Race race = require_race(run_one_cta(ptx, "readback", m, threads, {threads - 1, 1, 0}),
                             RaceKind::read_after_write);
    CHECK(race.access.tid == 1);
    CHECK(race.offset == 0); // thread 1 reads row 0
    CHECK(race.other.tid == 0);
    CHECK(race.other.ptx_line == copy);
  }
  SUBCASE("another thread's copy issued after the read, with no barrier between") {
    Race race = require_race(run_one_cta(ptx, "readback", m, threads, {1, 1, 0}),
                             RaceKind::write_after_read);
    CHECK(race.access.tid == 1);
    CHECK(race.access.ptx_line == copy);
    CHECK(race.offset == 16);
    CHECK(race.other.tid == 0);
    CHECK(race.other.ptx_line == read);
  }
  SUBCASE("another thread's copy still pending after a barrier") {
    Race race =
        require_race(run_one_cta(ptx, "readback", m, threads, {1, 0, 1}), RaceKind::read_in_flight);
    CHECK(race.access.tid == 0);
    CHECK(race.offset == 16);
    CHECK(race.other.tid == 1);
    CHECK(race.other.ptx_line == copy);
  }
  SUBCASE("wait and barrier: no race, row t is chunk t - 1") {
    SimResult r = run_one_cta(ptx, "readback", m, threads, {threads - 1, 1, 1});
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    for (std::uint32_t t = 0; t < threads; ++t)
      for (std::uint32_t b = 0; b < 16; ++b)
        CHECK(m.out[t * 16 + b] == Memory::in_byte(((t + threads - 1) % threads) * 16 + b));
  }
}

TEST_CASE("an empty commit_group is a real group: wait_group 2 leaves exactly the 2 newest") {
  // An implementation that skipped empty groups would find both copies
  // pending in all three cases (and fault at @read0 in each).
  const std::string ptx = read_data("hazard_groups.ptx");
  constexpr std::uint32_t threads = 4;
  Memory m(threads * 32, threads * 32);
  SUBCASE("no empty group: both copies pending") {
    Race race =
        require_race(run_one_cta(ptx, "groups", m, threads, {0}), RaceKind::read_before_wait);
    CHECK(race.access.ptx_line == line_of(ptx, "read0"));
    CHECK(race.other.ptx_line == line_of(ptx, "copy0"));
  }
  SUBCASE("one empty group: the first copy is done, the second pending") {
    Race race =
        require_race(run_one_cta(ptx, "groups", m, threads, {1}), RaceKind::read_before_wait);
    CHECK(race.access.tid == 0);
    CHECK(race.access.ptx_line == line_of(ptx, "read1"));
    CHECK(race.offset == 16);
    CHECK(race.other.ptx_line == line_of(ptx, "copy1"));
  }
  SUBCASE("two empty groups: both copies done") {
    SimResult r = run_one_cta(ptx, "groups", m, threads, {2});
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    CHECK(m.out == m.in);
  }
}

TEST_CASE("3-D launches: special registers, linear indices and warps as on the hardware") {
  const std::string ptx = read_data("launch_3d.ptx");
  constexpr Dim3 grid = {2, 1, 2}, block = {8, 2, 3};
  constexpr std::uint32_t per_block = 8 * 2 * 3, ctas = 2 * 1 * 2, words = 14,
                          stride = 64; // bytes per thread
  std::vector<std::uint8_t> out(std::size_t{ctas} * per_block * stride, out_sentinel);
  std::vector<GlobalBuffer> mem = {{out_base, &out, "out"}};
  Launch l;
  l.grid_dim = grid;
  l.block_dim = block;
  SUBCASE("every thread's registers, at the slot its own linear indices name") {
    l.params = {out_base, 0};
    SimResult r = run(ptx, "specials", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    for (std::uint32_t slot = 0; slot < ctas * per_block; ++slot) {
      const std::uint32_t bid = slot / per_block, tid = slot % per_block;
      const std::uint32_t expected[words] = {tid % 8, tid / 8 % 2, tid / 16, 8,       2,
                                             3,       bid % 2,     0,        bid / 2, 2,
                                             1,       2,           tid % 32, tid / 32};
      std::uint32_t got[words];
      std::memcpy(got, out.data() + std::size_t{slot} * stride, sizeof got);
      CAPTURE(slot);
      for (std::uint32_t k = 0; k < words; ++k)
        CHECK(got[k] == expected[k]);
    }
  }
  SUBCASE("a fault names the linear CTA and thread") {
    l.params = {out_base, 1};
    SimResult r = run(ptx, "specials", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::misaligned_address);
    CHECK(r.fault->bid == 1 + 0 * 2 + 1 * 2 * 1); // ctaid (1,0,1) in a (2,1,2) grid
    CHECK(r.fault->tid == 3 + 1 * 8 + 0 * 8 * 2); // tid (3,1,0) in an (8,2,3) block
    CHECK(r.fault->ptx_line == line_of(ptx, "bad"));
  }
  SUBCASE(".reqntid x, y, z must equal the block") {
    std::string with = ptx;
    with.insert(with.find("\n{\n"), "\n.reqntid 8, 2, 3");
    l.params = {out_base, 0};
    SimResult ok = run(with, "specials", l, mem);
    CHECK_MESSAGE(!ok.fault, ok.fault->message);
    l.block_dim = {8, 3, 2};
    SimResult bad = run(with, "specials", l, mem);
    REQUIRE(bad.fault);
    CHECK(bad.fault->kind == FaultKind::invalid_launch);
    for (const char* wrong : {"\n.reqntid 8, 2, 3, 1", "\n.reqntid 8, 0, 3"}) {
      std::string text = ptx;
      text.insert(text.find("\n{\n"), wrong);
      auto p = Program::parse(text);
      CAPTURE(wrong);
      REQUIRE(!p);
      CHECK(p.diagnostics.items().front().id == ptxgen::DiagId::sim_entry);
    }
  }
}

TEST_CASE("3-D launch limits: 1..1024 threads per block, per-axis maxima, no empty axis") {
  const std::string ptx = read_data("launch_3d.ptx");
  std::vector<std::uint8_t> out(64 * 1024, out_sentinel);
  std::vector<GlobalBuffer> mem = {{out_base, &out, "out"}};
  struct Case {
    Dim3 grid, block;
    bool valid;
  };
  for (const Case& c : {Case{{1, 1, 1}, {32, 32, 1}, true}, Case{{1, 1, 1}, {32, 16, 2}, true},
                        Case{{1, 1, 1}, {32, 32, 2}, false}, Case{{1, 1, 1}, {1, 1, 65}, false},
                        Case{{1, 1, 1}, {1, 0, 1}, false}, Case{{0, 1, 1}, {32, 1, 1}, false},
                        Case{{1, 65536, 1}, {1, 1, 1}, false}}) {
    Launch l;
    l.grid_dim = c.grid;
    l.block_dim = c.block;
    l.params = {out_base, 0};
    SimResult r = run(ptx, "specials", l, mem);
    CAPTURE(c.block[0]);
    CAPTURE(c.block[1]);
    CAPTURE(c.block[2]);
    CAPTURE(c.grid[1]);
    if (c.valid)
      CHECK_MESSAGE(!r.fault, r.fault->message);
    else
      CHECK((r.fault && r.fault->kind == FaultKind::invalid_launch));
  }
}

} // namespace unit_sim_hazards
