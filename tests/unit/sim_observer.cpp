// The simulator's hooks for `ptxgen lint` (simulator.hpp: Launch::observer, schedule_seed,
// shared_fill, Fault::address), on a hand-written kernel: each thread copies its 16 bytes
// into `tile` with cp.async, commits, then reads its partner's (tid ^ 1) 16 bytes before any
// wait or barrier and stores them to `out`; it waits for its copy last. In linear order
// thread 2j reads bytes 2j+1 has not copied yet (never written), waits (its copy lands),
// then thread 2j+1's copy overwrites what 2j read (write after read, at its issue and again
// when it lands) and 2j+1 reads 2j's landed bytes (read after write). Expected counts are
// worked out from that text; checks key on kinds, never on message text.

#include "driver/sim/simulator.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace unit_sim_observer {

using namespace ptxgen::sim;

namespace {

const char* const racy_ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry racy(.param .u64 src, .param .u64 dst)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.shared .align 16 .b8 tile[1024];
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [dst];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 4;
	mov.u32 %r3, tile;
	add.s32 %r4, %r3, %r2;
	cvt.u64.u32 %rd3, %r2;
	add.s64 %rd4, %rd1, %rd3;
	cp.async.cg.shared.global [%r4], [%rd4], 16;
	cp.async.commit_group;
	xor.b32 %r5, %r2, 16;
	add.s32 %r6, %r3, %r5;
	ld.shared.v4.u32 {%r1, %r2, %r5, %r7}, [%r6];
	add.s64 %rd5, %rd2, %rd3;
	st.global.v4.u32 [%rd5], {%r1, %r2, %r5, %r7};
	cp.async.wait_all;
	ret;
}
)";
constexpr std::uint32_t copy_line = 17; // the cp.async
constexpr std::uint32_t read_line = 21; // the ld.shared
constexpr std::uint32_t threads = 64;
constexpr std::uint64_t src_base = 0x10000;
constexpr std::uint64_t dst_base = 0x20000;

struct Memory {
  std::vector<std::uint8_t> src = std::vector<std::uint8_t>(threads * 16, 0x11);
  std::vector<std::uint8_t> dst = std::vector<std::uint8_t>(threads * 16, 0);
  std::vector<GlobalBuffer> buffers{{src_base, &src, "src"}, {dst_base, &dst, "dst"}};
};

SimResult run_racy(Memory& m, Observer* o, std::uint64_t seed = 0,
                   std::uint8_t fill = poison_byte) {
  Launch l;
  l.block_dim = {threads, 1, 1};
  l.params = {src_base, dst_base};
  l.observer = o;
  l.schedule_seed = seed;
  l.shared_fill = fill;
  return run(racy_ptx, "racy", l, m.buffers);
}

const Fault* find_race(const Observer& o, RaceKind k, std::size_t* index = nullptr) {
  for (std::size_t i = 0; i < o.races.size(); ++i) {
    if (o.races[i].race->kind == k) {
      if (index != nullptr)
        *index = i;
      return &o.races[i];
    }
  }
  return nullptr;
}

} // namespace

TEST_CASE("sim observer: without one the first race stops the launch") {
  Memory m;
  const SimResult r = run_racy(m, nullptr);
  REQUIRE(r.fault);
  CHECK(r.fault->kind == FaultKind::race);
}

TEST_CASE("sim observer: races are recorded once per kind and line pair, and counted") {
  Memory m;
  Observer o;
  const SimResult r = run_racy(m, &o);
  CHECK_FALSE(r.fault);
  CHECK(o.races.size() == 2);
  std::size_t war = 0, raw = 0;
  const Fault* w = find_race(o, RaceKind::write_after_read, &war);
  const Fault* a = find_race(o, RaceKind::read_after_write, &raw);
  REQUIRE(w != nullptr);
  REQUIRE(a != nullptr);
  CHECK(w->race->access.ptx_line == copy_line);
  CHECK(w->race->other.ptx_line == read_line);
  CHECK(w->race->access.tid == 1);
  CHECK(w->race->other.tid == 0);
  CHECK(a->race->access.ptx_line == read_line);
  CHECK(a->race->other.ptx_line == copy_line);
  // 32 pairs, 16 bytes each; the write after read at the copy's issue and at its landing.
  CHECK(o.race_hits[war] == 32 * 16 * 2);
  CHECK(o.race_hits[raw] == 32 * 16);
  // Every thread ran every instruction once (the ret included).
  REQUIRE(o.executed.size() == 17);
  for (const std::uint64_t n : o.executed)
    CHECK(n == threads);
  // The even threads read bytes nobody wrote: recorded once, at the ld.shared.
  REQUIRE(o.unwritten_reads.size() == 1);
  CHECK(o.unwritten_reads[0].ptx_line == read_line);
  CHECK(o.unwritten_reads[0].tid == 0);
  CHECK(o.unwritten_reads[0].symbol == "tile");
  CHECK(o.unwritten_reads[0].offset == 16);
}

TEST_CASE("sim observer: the shared fill is what a never-written byte reads") {
  for (const std::uint8_t fill : {std::uint8_t{0x00}, std::uint8_t{0x5A}}) {
    Memory m;
    Observer o;
    CHECK_FALSE(run_racy(m, &o, 0, fill).fault);
    // thread 0 stores thread 1's bytes, which were never written when it read them
    for (std::size_t b = 0; b < 16; ++b)
      CHECK(m.dst[b] == fill);
    // thread 1 stores thread 0's, landed from src
    for (std::size_t b = 16; b < 32; ++b)
      CHECK(m.dst[b] == 0x11);
  }
}

TEST_CASE("sim observer: another schedule seed runs the threads in another order") {
  std::set<std::int64_t> firsts; // the thread that first reads unwritten bytes, per seed
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    Memory m, again;
    Observer o, o2;
    run_racy(m, &o, seed);
    run_racy(again, &o2, seed);
    CHECK(m.dst == again.dst); // the same seed, the same run
    REQUIRE_FALSE(o.unwritten_reads.empty());
    REQUIRE_FALSE(o2.unwritten_reads.empty());
    CHECK(o.unwritten_reads[0].tid == o2.unwritten_reads[0].tid);
    firsts.insert(o.unwritten_reads[0].tid);
  }
  // Linear order would make thread 0 the first to read unwritten bytes in every run.
  CHECK(firsts.size() > 1);
}

TEST_CASE("sim observer: an illegal global access names its address") {
  Memory m;
  m.src.resize(16 * 4); // threads 4.. read past it
  Observer o;           // so that the races of threads 0..3 do not stop the launch first
  const SimResult r = run_racy(m, &o);
  REQUIRE(r.fault);
  CHECK(r.fault->kind == FaultKind::illegal_address);
  REQUIRE(r.fault->address);
  CHECK(*r.fault->address == src_base + 16 * 4);
}

} // namespace unit_sim_observer
