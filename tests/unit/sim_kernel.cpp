// What real kernels contain beyond the copy pipeline, on the PTX files of
// tests/data/sim_kernel/ (ptxas checks each: tests ptxas.sim_kernel_input.*): non-.aligned
// .sync instructions that lanes reach at different times or places, named barriers with
// thread counts, bar.red, replicated shared stores, the math functions, cvt's packed forms and
// the warp reductions. Every expected value is worked out by hand from the PTX ISA and IEEE 754
// (next to each), never taken from the simulator. Mutants replace one tagged line.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_kernel {

using namespace ptxgen::sim;

namespace {

constexpr std::uint64_t out_base = 0x20000;

std::string data(const std::string& name) {
  return ptxgen::test::read_test_data("sim_kernel", name);
}

std::string mutate(const std::string& text, const std::string& tag, const std::string& line) {
  return ptxgen::test::replace_tagged_line(text, tag, line);
}

/// The 1-based line of the line tagged `// M: tag`.
std::uint32_t line_of(const std::string& text, const std::string& tag) {
  const auto at = text.find("// M: " + tag + "\n");
  REQUIRE(at != std::string::npos);
  std::uint32_t line = 1;
  for (std::size_t k = 0; k < at; ++k)
    line += text[k] == '\n' ? 1 : 0;
  return line;
}

struct Run {
  SimResult r;
  std::vector<std::uint8_t> bytes;
  std::uint32_t word(std::size_t k) const {
    std::uint32_t v = 0;
    std::memcpy(&v, bytes.data() + 4 * k, 4);
    return v;
  }
  std::uint64_t dword(std::size_t byte) const {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes.data() + byte, 8);
    return v;
  }
};

Run launch(const std::string& ptx, const std::string& entry, std::uint32_t threads,
           std::size_t out_bytes, std::uint64_t seed = 0, Observer* o = nullptr) {
  Run result;
  result.bytes.assign(out_bytes, 0xEE);
  std::vector<GlobalBuffer> buffers = {{out_base, &result.bytes, "out"}};
  Launch l;
  l.block_dim = {threads, 1, 1};
  l.params = {out_base};
  l.schedule_seed = seed;
  l.observer = o;
  result.r = run(ptx, entry, l, buffers);
  return result;
}

void require_ok(const SimResult& r) {
  INFO((r.fault ? std::string(name(r.fault->kind)) + ": " + r.fault->message : std::string()));
  REQUIRE_FALSE(r.fault.has_value());
}

} // namespace

TEST_CASE("non-.aligned .sync instructions: the lanes of the membermask wait for each other") {
  const std::string text = data("warp_sync.ptx");
  // Every schedule: the lanes leave lane 0's mbarrier spin and the workers' exchange at
  // different passes (the false barrier divergence came with --seeds >= 1).
  for (std::uint64_t seed : {0, 1, 2, 3, 7}) {
    CAPTURE(seed);
    const Run out = launch(text, "spin_then_shuffle", 32, 32 * 16, seed);
    require_ok(out.r);
    for (std::uint32_t l = 0; l < 32; ++l) {
      CAPTURE(l);
      // shfl.down by 1 among lanes 1..31; lane 31 has no lane below it in range: its own
      const std::uint32_t shuffled = l == 0 ? 0 : l == 31 ? 3100 : 100 * (l + 1);
      CHECK(out.word(4 * l) == shuffled);
      CHECK(out.word(4 * l + 1) == (l == 0 ? 0u : 0x55555554u)); // even lanes of 1..31
      CHECK(out.word(4 * l + 2) == 100);                         // lane 0's %r5
      CHECK(out.word(4 * l + 3) == 49600);                       // 100 (0 + ... + 31)
    }
  }
}

TEST_CASE("non-.aligned .sync: exited lanes of the membermask are not waited for") {
  const Run out = launch(data("warp_sync.ptx"), "exited_lanes", 32, 32 * 4);
  require_ok(out.r);
  for (std::uint32_t l = 0; l < 16; ++l)
    CHECK(out.word(l) == 7 * (l ^ 1));
}

TEST_CASE("non-.aligned .sync: two shfl.sync sites with one membermask exchange as one") {
  const Run out = launch(data("warp_sync.ptx"), "two_sites", 32, 32 * 4, 5);
  require_ok(out.r);
  for (std::uint32_t l = 0; l < 32; ++l) {
    CAPTURE(l);
    CHECK(out.word(l) == (l % 2 == 0 ? 3 * (l ^ 1) + 1000 : 3 * (l ^ 1)));
  }
}

TEST_CASE("non-.aligned .sync: a lane of the membermask that never arrives is a divergence") {
  // Lanes 1..31 shuffle down with lane 0 in the membermask; lane 0 reaches a shfl.sync.idx.
  const std::string original = data("warp_sync.ptx");
  const std::string text =
      mutate(original, "subset_shfl", "  shfl.sync.down.b32 %r10, %r2, 1, 0x1f, -1;");
  const Run out = launch(text, "spin_then_shuffle", 32, 32 * 16);
  REQUIRE(out.r.fault.has_value());
  INFO(out.r.fault->message);
  CHECK(out.r.fault->kind == FaultKind::barrier_divergence);
  CHECK(out.r.fault->tid == 0); // in the shfl.sync.idx, while lanes 1..31 wait in the .down
  CHECK(out.r.fault->ptx_line == line_of(text, "meet_shfl"));
  CHECK(out.r.fault->message.find("PTX line " + std::to_string(line_of(original, "subset_shfl"))) !=
        std::string::npos);
}

TEST_CASE("bar.warp.sync orders memory among its lanes: one lane releases for the warp") {
  const std::string text = data("warp_sync.ptx");
  SUBCASE("the consumer warp's reads, __syncwarp(), lane 0's arrival: the refill is ordered") {
    const Run out = launch(text, "warp_release", 64, 64 * 4);
    require_ok(out.r);
    for (std::uint32_t l = 0; l < 32; ++l) {
      CHECK(out.word(l) == 7 * l);         // warp 0 read the first fill
      CHECK(out.word(32 + l) == 1000 + l); // warp 1 read back its refill
    }
  }
  SUBCASE("without the consumer's __syncwarp(), lanes 1..31's reads race with the refill") {
    const Run out =
        launch(mutate(text, "consumer_sync", "  mov.u32 %r11, 0;"), "warp_release", 64, 64 * 4);
    REQUIRE(out.r.fault.has_value());
    CHECK(out.r.fault->kind == FaultKind::race);
    REQUIRE(out.r.fault->race);
    CHECK(out.r.fault->race->kind == RaceKind::write_after_read);
  }
}

TEST_CASE("bar.warp.sync orders memory among its lanes in a kernel with no mbarrier") {
  const std::string text = data("warp_sync.ptx");
  const Run out = launch(text, "warp_exchange", 32, 32 * 4);
  require_ok(out.r);
  for (std::uint32_t l = 0; l < 32; ++l)
    CHECK(out.word(l) == (l ^ 1u)); // the neighbour's index
  const Run cut =
      launch(mutate(text, "exchange_sync", "  mov.u32 %r10, 0;"), "warp_exchange", 32, 32 * 4);
  REQUIRE(cut.r.fault.has_value());
  REQUIRE(cut.r.fault->race);
  CHECK(cut.r.fault->race->kind == RaceKind::write_after_read); // lane 0 reads buf[1] first
}

TEST_CASE("named barriers: producers arrive, consumers wait, over three rounds") {
  const std::string text = data("barriers.ptx");
  for (std::uint64_t seed : {0, 3}) {
    CAPTURE(seed);
    const Run out = launch(text, "producer_consumer", 128, 64 * 4, seed);
    require_ok(out.r);
    for (std::uint32_t k = 0; k < 64; ++k)
      CHECK(out.word(k) == 3000 + 15 * k + 3); // sum over i of 1000 i + 5 k + 1
  }
}

TEST_CASE("named barriers: counts that differ across the users are a deadlock, with both lines") {
  const std::string original = data("barriers.ptx");
  const std::string text = mutate(original, "sync", "  bar.sync 1, 64;");
  const Run out = launch(text, "producer_consumer", 128, 64 * 4);
  REQUIRE(out.r.fault.has_value());
  INFO(out.r.fault->message);
  CHECK(out.r.fault->kind == FaultKind::deadlock);
  CHECK(out.r.fault->ptx_line == line_of(original, "sync"));
  CHECK(out.r.fault->tid == 64); // the first consumer
  CHECK(out.r.fault->message.find("PTX line " + std::to_string(line_of(text, "arrive"))) !=
        std::string::npos);
}

TEST_CASE("named barriers: a barrier that never completes is a deadlock, with both lines") {
  const std::string text = mutate(data("barriers.ptx"), "arrive", "  add.u32 %r19, %r3, 0;");
  const Run out = launch(text, "producer_consumer", 128, 64 * 4);
  REQUIRE(out.r.fault.has_value());
  INFO(out.r.fault->message);
  CHECK(out.r.fault->kind == FaultKind::deadlock);
  // thread 0 waits at barrier 2 (64 of 128 arrived); the consumers wait at barrier 1
  CHECK(out.r.fault->tid == 0);
  CHECK(out.r.fault->ptx_line == line_of(text, "back"));
  CHECK(out.r.fault->message.find("PTX line " + std::to_string(line_of(text, "sync"))) !=
        std::string::npos);
}

TEST_CASE("named barriers order only what came before an arrival") {
  SUBCASE("a store after the producer's arrival races with the consumer's read") {
    const std::string text = mutate(mutate(data("barriers.ptx"), "store", "  bar.arrive 1, 128;"),
                                    "arrive", "  st.shared.u32 [%r5], %r7;");
    const Run out = launch(text, "producer_consumer", 128, 64 * 4);
    REQUIRE(out.r.fault.has_value());
    CHECK(out.r.fault->kind == FaultKind::race);
    REQUIRE(out.r.fault->race);
    CHECK(out.r.fault->race->kind == RaceKind::read_after_write);
    CHECK(out.r.fault->ptx_line == line_of(text, "load"));
  }
  SUBCASE("a refill without waiting for the consumers' release races") {
    const std::string text = mutate(data("barriers.ptx"), "back", "  add.u32 %r19, %r3, 0;");
    const Run out = launch(text, "producer_consumer", 128, 64 * 4);
    REQUIRE(out.r.fault.has_value());
    CHECK(out.r.fault->kind == FaultKind::race);
  }
}

TEST_CASE("bar.red: popc, and, or over the waiting threads, with and without a count") {
  const Run out = launch(data("barriers.ptx"), "reductions", 96, 96 * 16);
  require_ok(out.r);
  for (std::uint32_t t = 0; t < 96; ++t) {
    CAPTURE(t);
    CHECK(out.word(4 * t) == 32);     // t % 3 == 0 for t in 0..95: 0, 3, ..., 93
    CHECK(out.word(4 * t + 1) == 64); // the others
    CHECK(out.word(4 * t + 2) == 2);  // and: false (0); or: true (2)
    CHECK(out.word(4 * t + 3) == (t < 64 ? 22u : 0xffffffffu)); // 0, 3, ..., 63
  }
}

TEST_CASE("a named barrier counts a partial last warp as a whole warp") {
  const Run out = launch(data("barriers.ptx"), "partial_warp", 48, 48 * 4);
  require_ok(out.r);
  for (std::uint32_t t = 0; t < 48; ++t)
    CHECK(out.word(t) == 9 * ((t + 1) % 48));
}

TEST_CASE("identical values stored by several threads: a note, not a race") {
  const std::string text = data("replicated.ptx");
  const Run out = launch(text, "replicated", 64, 64 * 4);
  require_ok(out.r);
  for (std::uint32_t t = 0; t < 64; ++t)
    CHECK(out.word(t) == 7 * (t % 16));
  Observer o;
  require_ok(launch(text, "replicated", 64, 64 * 4, 0, &o).r);
  REQUIRE(o.races.size() == 1);
  CHECK(o.races[0].race->kind == RaceKind::write_after_write_same_value);
  CHECK(o.races[0].ptx_line == line_of(text, "store"));
  // A different value from each thread stays a race.
  const Run racy =
      launch(mutate(text, "value", "  mul.lo.u32 %r6, %r1, 7;"), "replicated", 64, 64 * 4);
  REQUIRE(racy.r.fault.has_value());
  REQUIRE(racy.r.fault->race);
  CHECK(racy.r.fault->race->kind == RaceKind::write_after_write);
}

TEST_CASE("ex2, lg2, rcp, sqrt, rsqrt, sin, cos, tanh (f32): exact values and the ISA's specials") {
  const Run out = launch(data("math.ptx"), "math_f32", 1, 28 * 4);
  require_ok(out.r);
  const std::uint32_t want[] = {
      0x41000000, // ex2(3) = 8
      0x3F000000, // ex2(-1) = 0.5
      0x00000000, // ex2(-inf) = +0
      0x7FFFFFFF, // ex2(NaN) = the canonical NaN
      0x40400000, // lg2(8) = 3
      0xFF800000, // lg2(+0) = -inf
      0x7FFFFFFF, // lg2(-1) = NaN
      0xC3150000, // lg2(2^-149) = -149
      0xFF800000, // lg2.ftz(2^-149) = lg2(+0) = -inf
      0x3E800000, // rcp(4) = 0.25
      0x3EAAAAAB, // rcp.rn(3): 1/3 = 0x3EAAAAAA.AA..: up
      0x3EAAAAAA, // rcp.rz(3)
      0xFF800000, // rcp.rn(-0) = -inf
      0x3FB504F3, // sqrt.rn(2): 1.41421356.. = 0x3FB504F3.33..: down
      0x3FB504F4, // sqrt.rp(2)
      0x40800000, // sqrt(16) = 4
      0x80000000, // sqrt(-0) = -0
      0x7FFFFFFF, // sqrt(-4) = NaN
      0x40000000, // rsqrt(0.25) = 2
      0x7F800000, // rsqrt(+0) = +inf
      0xFF800000, // rsqrt(-0) = -inf
      0x00000000, // sin(+0) = +0
      0x80000000, // sin(-0) = -0
      0x7FFFFFFF, // sin(+inf) = NaN
      0x3F800000, // cos(+0) = 1
      0x00000000, // tanh(+0) = +0
      0x3F800000, // tanh(+inf) = 1
      0xBF800000, // tanh(-inf) = -1
  };
  for (std::size_t k = 0; k < std::size(want); ++k) {
    CAPTURE(k);
    CHECK(out.word(k) == want[k]);
  }
}

TEST_CASE("the math functions in f16, bf16, their pairs and f64") {
  const Run out = launch(data("math.ptx"), "math_narrow", 1, 104);
  require_ok(out.r);
  CHECK(out.word(0) == 0x4400);                  // ex2.f16(2) = 4
  CHECK(out.word(1) == 0x3C000000);              // tanh.f16x2 {+inf, 0} = {1, 0}
  CHECK(out.word(2) == 0x4000);                  // ex2.bf16(1) = 2
  CHECK(out.word(3) == 0x3F004100);              // ex2.bf16x2 {-1, 3} = {0.5, 8}
  CHECK(out.dword(64) == 0x3FF6A09E667F3BCDull); // sqrt.rn(2): above the root, to nearest
  CHECK(out.dword(72) == 0x3FF6A09E667F3BCCull); // sqrt.rz(2): one below
  CHECK(out.dword(80) == 0x3FD5555555555555ull); // rcp.rn(3): below 1/3
  CHECK(out.dword(88) == 0x3FD5555555555556ull); // rcp.rp(3)
  CHECK(out.dword(96) == 0x3FE0000000000000ull); // rsqrt(4) = 0.5
}

TEST_CASE("div: IEEE-rounded f32 and f64 in every mode, .ftz, .approx's range rule, .full") {
  const Run out = launch(data("math.ptx"), "division", 1, 88);
  require_ok(out.r);
  const std::uint32_t want[] = {
      0x3EAAAAAB, // div.rn 1/3: 0x3EAAAAAA.AA..: up
      0x3EAAAAAA, // div.rz 1/3
      0xBF2AAAAB, // div.rm -2/3 = -0x3F2AAAAA.AA..: away from zero
      0xBF2AAAAA, // div.rp -2/3: toward zero
      0xFF800000, // -2 / +0 = -inf
      0x7FFFFFFF, // 0 / 0 = the canonical NaN
      0x00400000, // 2^-126 / 2 = 2^-127, a subnormal
      0x00000000, // the same with .ftz: flushed
      0x3EAAAAAB, // div.approx 1/3: the nearest value (within the ISA's 2 ulp)
      0x00000000, // div.approx 1 / 2^127: |b| in (2^126, 2^128) gives 0 (PTX ISA, div)
      0x00400000, // div.full 1 / 2^127 = 2^-127: full range
      0x80000000, // div.approx.ftz -2 / 2^127 = -0
  };
  for (std::size_t k = 0; k < std::size(want); ++k) {
    CAPTURE(k);
    CHECK(out.word(k) == want[k]);
  }
  CHECK(out.dword(64) == 0x3FB999999999999Aull); // div.rn 1/10: 0x3FB9999999999999.99..: up
  CHECK(out.dword(72) == 0x3FB9999999999999ull); // div.rz
  CHECK(out.dword(80) == 0x3FB9999999999999ull); // div.rm
}

TEST_CASE("cvt's packed forms: e4m3x2, e5m2x2 and back, .relu, .satfinite, ties to even") {
  const Run out = launch(data("math.ptx"), "packing", 1, 11 * 4);
  require_ok(out.r);
  // e4m3: bias 7, 3 fraction bits; e5m2: bias 15, 2 fraction bits; a in the upper byte
  CHECK(out.word(0) == 0x38C2);      // {1 = 0.0111.000, -2.5 = 1.1000.010}
  CHECK(out.word(1) == 0x3CC1);      // {1 = 0.01111.00, -2.5 = 1.10000.01}
  CHECK(out.word(2) == 0x7E7F);      // {1000: saturated to 448, NaN}
  CHECK(out.word(3) == 0x383A);      // {1.0625: tie to 1.000, 1.1875: tie to 1.010}
  CHECK(out.word(4) == 0x0001);      // relu {-2.5: 0, 0.0017: 2^-9 (subnormal 1)}
  CHECK(out.word(5) == 0x7BFB);      // {+inf, -70000}: saturated to +-57344
  CHECK(out.word(6) == 0x38C2);      // from f16x2 {1, -2.5}
  CHECK(out.word(7) == 0x3C00C100);  // f16x2 from e4m3x2 {1, -2.5}
  CHECK(out.word(8) == 0x3C000000);  // relu f16x2 from e5m2x2 {1, -2.5}: {1, 0}
  CHECK(out.word(9) == 0x00004000);  // relu f16x2 from f32 {-1, 2}: {0, 2}
  CHECK(out.word(10) == 0x40400000); // relu bf16x2 from f32 {3, -3}: {3, 0}
}

TEST_CASE("redux.sync, setmaxnreg, bar.warp.sync") {
  const Run out = launch(data("math.ptx"), "warp_reductions", 32, 32 * 20);
  require_ok(out.r);
  for (std::uint32_t l = 0; l < 32; ++l) {
    CAPTURE(l);
    CHECK(out.word(5 * l) == 0xFFFFFFF0u);     // min.s32 of l - 16: -16
    CHECK(out.word(5 * l + 1) == 31);          // max.u32 of l
    CHECK(out.word(5 * l + 2) == 0xF0);        // and of l | 0xf0
    CHECK(out.word(5 * l + 3) == 0xFFFFFFFFu); // or of 1 << l
    CHECK(out.word(5 * l + 4) == 0);           // xor of 0..31
  }
}

TEST_CASE("atom and red .add on floats: f32 and f64, shared and global") {
  const Run out = launch(data("math.ptx"), "float_atomics", 64, 16);
  require_ok(out.r);
  CHECK(out.word(0) == 0x42000000);             // 64 x 0.5 = 32
  CHECK(out.word(1) == 0x42800000);             // 64 x 1 = 64
  CHECK(out.dword(8) == 0x4060000000000000ull); // 64 x 2 = 128
}

TEST_CASE("elect.sync: the lowest non-exited lane of the membermask leads, d|p per lane") {
  const std::string ptx = data("elect.ptx");
  const Run out = launch(ptx, "elect", 64, 64 * 8);
  require_ok(out.r);
  for (std::uint32_t t = 0; t < 64; ++t) {
    CAPTURE(t);
    if (t % 32 < 4) { // exited before the election: nothing stored
      CHECK(out.word(2 * t) == 0xEEEEEEEEu);
      continue;
    }
    CHECK(out.word(2 * t) == 4);                           // lanes 0..3 exited: lane 4 leads
    CHECK(out.word(2 * t + 1) == (t % 32 == 4 ? 1u : 0u)); // p: only the leader
  }
  // The sink form: `_|p` sets p alone.
  const Run sink = launch(mutate(ptx, "elect", "\telect.sync _|%p2, -1;"), "elect", 32, 32 * 8);
  require_ok(sink.r);
  CHECK(sink.word(2 * 4 + 1) == 1);
  CHECK(sink.word(2 * 5 + 1) == 0);
}

TEST_CASE("setmaxnreg's count is a multiple of 8 in 24..256") {
  const auto kernel = [](const std::string& n) {
    return ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
           "  setmaxnreg.inc.sync.aligned.u32 " +
           n + ";\n  ret;\n}\n";
  };
  const auto good = Program::parse(kernel("240"));
  CHECK_MESSAGE(good, good.diagnostics.format_all());
  for (const char* bad : {"20", "260", "100"}) {
    CAPTURE(bad);
    const auto p = Program::parse(kernel(bad));
    REQUIRE_FALSE(p);
    CHECK(p.diagnostics.items().front().id == ptxgen::DiagId::sim_operand_range);
  }
}

} // namespace unit_sim_kernel
