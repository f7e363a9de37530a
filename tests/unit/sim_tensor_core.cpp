// The simulator's tensor cores: the nvcc-built kernels of tests/data/sim_tensor_core/
// mma_kernels.cu (mma.sync f16/bf16/tf32/s8/u8/e4m3/f64, ldmatrix + movmatrix + stmatrix, wgmma
// f16/bf16/s8 from shared-memory descriptors with and without swizzle, A from registers) run on
// the simulator and compared with a naive matmul written here (tools/tensor_core_device/
// cases.hpp: its own decoding of the element formats): hand-made inputs (identity, one-hot) and
// small integers exactly, random inputs under the declared bound, and the H200's records
// (tools/tensor_core_device.sh) when present. The hazard mutants edit one line of the wgmma
// kernel. Checks key on FaultKind / RaceKind and PTX lines, never on message text.

#include "driver/sim/simulator.hpp"
#include "tools/tensor_core_device/cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_tensor_core {

using namespace ptxgen::sim;
namespace tcd = tensor_core_device;

namespace {

std::string kernels_text() {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/tests/data/sim_tensor_core/mma_kernels.ptx");
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const Program& kernels() {
  static const Program p = [] {
    auto r = Program::parse(kernels_text());
    REQUIRE_MESSAGE(r, r.diagnostics.format_all());
    return *r;
  }();
  return p;
}

const tcd::Case& case_named(const std::string& name) {
  for (const tcd::Case& c : tcd::cases)
    if (name == c.kernel)
      return c;
  FAIL("no case " << name);
  return tcd::cases[0];
}

/// Runs case `c` on the simulator over r.a, r.b, r.c; r.d gets the result.
SimResult run_case(const Program& p, const tcd::Case& c, tcd::Record& r) {
  const bool moves = c.a == tcd::B16;
  r.d.assign((moves ? 256 : c.m * c.n) * tcd::bits(c.d) / 8, 0);
  for (auto* v : {&r.a, &r.b, &r.c})
    if (v->empty())
      v->assign(16, 0);
  std::vector<GlobalBuffer> mem = {
      {0x10000, &r.a, "A"}, {0x20000, &r.b, "B"}, {0x30000, &r.c, "C"}, {0x40000, &r.d, "D"}};
  Launch l;
  l.block_dim = {c.threads, 1, 1};
  l.params = {0x10000, 0x20000, 0x30000, 0x40000};
  l.max_instructions = 20'000'000;
  return run(p, c.kernel, l, mem);
}

void require_ok(const SimResult& r) {
  INFO((r.fault ? r.fault->message : std::string()));
  REQUIRE_FALSE(r.fault.has_value());
}

/// The bits of the small integer `v` as an element of type e (exact in every format here).
std::uint64_t encode(tcd::Elem e, int v) {
  const unsigned mag = static_cast<unsigned>(v < 0 ? -v : v);
  const std::uint64_t sign = v < 0 ? 1 : 0;
  int ex = 0;
  while (mag >> (ex + 1) != 0)
    ++ex;
  const std::uint64_t frac = mag == 0 ? 0 : mag - (1u << ex); // below the leading bit
  switch (e) {
  case tcd::F16:
    return mag == 0 ? 0
                    : sign << 15 | static_cast<std::uint64_t>(ex + 15) << 10 | frac << (10 - ex);
  case tcd::E4M3:
    return mag == 0 ? 0 : sign << 7 | static_cast<std::uint64_t>(ex + 7) << 3 | frac << (3 - ex);
  case tcd::BF16:
  case tcd::TF32:
  case tcd::F32: {
    const float f = static_cast<float>(v);
    std::uint32_t w;
    std::memcpy(&w, &f, 4);
    return e == tcd::BF16 ? w >> 16 : w;
  }
  case tcd::F64: {
    const double d = v;
    std::uint64_t w;
    std::memcpy(&w, &d, 8);
    return w;
  }
  default: // two's complement integers and raw b16
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  }
}

std::vector<std::uint8_t> elements(tcd::Elem e, std::size_t count, const auto& value_of) {
  const unsigned bytes = tcd::bits(e) / 8;
  std::vector<std::uint8_t> v(count * bytes);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t x = encode(e, value_of(i));
    for (unsigned k = 0; k < bytes; ++k)
      v[i * bytes + k] = static_cast<std::uint8_t>(x >> (8 * k));
  }
  return v;
}

/// Every D element of `r` (the simulator's) against the reference: the excess over the declared
/// bound must be 0 (s32: equal, wrapped or, with .satfinite, clamped).
void require_within_bound(const tcd::Case& c, const tcd::Record& r) {
  std::vector<double> ref, s;
  tcd::reference(c, r, ref, s);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const std::uint64_t x = tcd::element(r.d, i, tcd::bits(c.d));
    INFO(c.kernel << " element " << i << " (row " << i / c.n << ", column " << i % c.n << "): got "
                  << tcd::value(c.d, x) << ", reference " << ref[i]);
    REQUIRE(tcd::excess(c, x, ref[i], s[i]) == 0);
  }
}

std::size_t line_of(const std::string& text, const std::string& needle, std::size_t from = 0) {
  const std::size_t at = text.find(needle, from);
  REQUIRE(at != std::string::npos);
  return static_cast<std::size_t>(
             std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) +
         1;
}

} // namespace

TEST_CASE("mma.sync m16n8k16 f16: the identity times B is B; a one-hot pair hits one cell") {
  const tcd::Case& c = case_named("mma_f16_f32");
  tcd::Record r;
  r.a = elements(tcd::F16, 16 * 16, [](std::size_t i) { return i / 16 == i % 16 ? 1 : 0; });
  r.b = elements(tcd::F16, 16 * 8, [](std::size_t i) { return static_cast<int>(i % 13) - 6; });
  r.c = elements(tcd::F32, 16 * 8, [](std::size_t) { return 0; });
  require_ok(run_case(kernels(), c, r));
  for (std::size_t i = 0; i < 16 * 8; ++i) {
    INFO("D element " << i);
    // D = I B: row i of D is row i of B (B is 16 x 8 here: K = 16 rows)
    CHECK(tcd::value(tcd::F32, tcd::element(r.d, i, 32)) == static_cast<int>(i % 13) - 6);
  }
  // one-hot: A[3][5] = 2, B[5][6] = 3, C = 1 everywhere: D[3][6] = 7, every other cell 1
  r.a = elements(tcd::F16, 16 * 16, [](std::size_t i) { return i == 3 * 16 + 5 ? 2 : 0; });
  r.b = elements(tcd::F16, 16 * 8, [](std::size_t i) { return i == 5 * 8 + 6 ? 3 : 0; });
  r.c = elements(tcd::F32, 16 * 8, [](std::size_t) { return 1; });
  require_ok(run_case(kernels(), c, r));
  for (std::size_t i = 0; i < 16 * 8; ++i) {
    INFO("D element " << i);
    CHECK(tcd::value(tcd::F32, tcd::element(r.d, i, 32)) == (i == 3 * 8 + 6 ? 7 : 1));
  }
}

TEST_CASE("every tensor-core kernel equals the naive matmul exactly on small integers") {
  for (const tcd::Case& c : tcd::cases) {
    if (c.a == tcd::B16)
      continue;
    CAPTURE(c.kernel);
    tcd::Record r;
    const auto small = [](int period, int offset) {
      return [=](std::size_t i) {
        return static_cast<int>(i * 7 % static_cast<std::size_t>(period)) - offset;
      };
    };
    r.a = elements(c.a, c.m * c.k, small(c.a == tcd::U8 ? 9 : 7, c.a == tcd::U8 ? 0 : 3));
    r.b = elements(c.b, c.k * c.n, small(5, 2));
    r.c = elements(c.c, c.m * c.n, small(11, 5));
    require_ok(run_case(kernels(), c, r));
    std::vector<double> ref, s;
    tcd::reference(c, r, ref, s);
    for (std::size_t i = 0; i < ref.size(); ++i) {
      INFO("element " << i << " (row " << i / c.n << ", column " << i % c.n << ")");
      REQUIRE(tcd::value(c.d, tcd::element(r.d, i, tcd::bits(c.d))) == ref[i]);
    }
  }
}

TEST_CASE("every tensor-core kernel on random inputs: within the declared bound of the matmul") {
  for (const tcd::Case& c : tcd::cases) {
    CAPTURE(c.kernel);
    for (std::uint64_t round = 1; round <= 2; ++round) {
      std::uint64_t seed = 0x5DEECE66Dull * round + c.k;
      tcd::Record r;
      const bool moves = c.a == tcd::B16;
      auto fill = [&](tcd::Elem e, std::size_t count) {
        std::vector<std::uint8_t> v(count * tcd::bits(e) / 8);
        for (std::size_t i = 0; i < count; ++i) {
          const std::uint64_t x = tcd::random_bits(e, seed);
          for (unsigned k = 0; k < tcd::bits(e) / 8; ++k)
            v[i * (tcd::bits(e) / 8) + k] = static_cast<std::uint8_t>(x >> (8 * k));
        }
        return v;
      };
      r.a = fill(c.a, moves ? 256 : c.m * c.k);
      if (!moves) {
        r.b = fill(c.b, c.k * c.n);
        r.c = fill(c.c, c.m * c.n);
      }
      require_ok(run_case(kernels(), c, r));
      if (moves)
        CHECK(r.d == tcd::moved(r.a));
      else
        require_within_bound(c, r);
    }
  }
}

// The records are checked in: a missing file is a failure, never a skip.
TEST_CASE("the simulator against the H200's records (tools/tensor_core_device.sh)") {
  const char* env = std::getenv("PTXGEN_TENSOR_CORE_RESULTS");
  const std::string path =
      env != nullptr ? env
                     : std::string(PTXGEN_SOURCE_DIR) + "/tests/data/sim_tensor_core/h200.bin";
  REQUIRE_MESSAGE(std::ifstream(path).good(), "no records at " << path);
  const std::vector<tcd::Record> records = tcd::read_records(path);
  REQUIRE(!records.empty());
  std::size_t compared = 0;
  for (const tcd::Record& gpu : records) {
    const tcd::Case& c = case_named(gpu.kernel);
    CAPTURE(c.kernel);
    tcd::Record sim = gpu;
    require_ok(run_case(kernels(), c, sim));
    if (c.d == tcd::S32 || c.d == tcd::B16) {
      REQUIRE(sim.d == gpu.d); // bit for bit
    } else {
      std::vector<double> ref, s;
      tcd::reference(c, gpu, ref, s);
      for (std::size_t i = 0; i < ref.size(); ++i) {
        const double x = tcd::value(c.d, tcd::element(sim.d, i, tcd::bits(c.d)));
        const double y = tcd::value(c.d, tcd::element(gpu.d, i, tcd::bits(c.d)));
        INFO("element " << i << ": simulator " << x << ", GPU " << y);
        REQUIRE(std::fabs(x - y) <= tcd::bound(c, s[i]));
      }
    }
    ++compared;
  }
  MESSAGE(compared << " records compared");
}

TEST_CASE("wgmma hazards: one edited line of the wgmma kernel, each caught with both lines") {
  const std::string text = kernels_text();
  const std::size_t entry = text.find(".entry wgmma_f16_plain(");
  REQUIRE(entry != std::string::npos);
  const std::size_t wgmma_line = line_of(text, "wgmma.mma_async", entry);
  auto mutate = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const std::size_t at = t.find(from, entry);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    return t;
  };
  auto run_text = [&](const std::string& t) {
    auto p = Program::parse(t);
    REQUIRE_MESSAGE(p, p.diagnostics.format_all());
    tcd::Record r;
    r.a = elements(tcd::F16, 64 * 16, [](std::size_t i) { return static_cast<int>(i % 3); });
    r.b = elements(tcd::F16, 16 * 16, [](std::size_t i) { return static_cast<int>(i % 5); });
    r.c = elements(tcd::F32, 64 * 16, [](std::size_t) { return 1; });
    return run_case(*p, case_named("wgmma_f16_plain"), r);
  };
  auto require_race = [&](const SimResult& r, RaceKind k, std::size_t line, std::size_t other) {
    REQUIRE(r.fault.has_value());
    INFO(r.fault->message);
    REQUIRE(r.fault->kind == FaultKind::race);
    REQUIRE(r.fault->race.has_value());
    CHECK(r.fault->race->kind == k);
    CHECK(r.fault->race->access.ptx_line == line);
    CHECK(r.fault->race->other.ptx_line == other);
  };
  SUBCASE("the kernel as nvcc wrote it runs clean") {
    require_ok(run_text(text));
  }
  SUBCASE("no wgmma.wait_group: the accumulators are read while the wgmma is in flight") {
    const std::string t = mutate("wgmma.wait_group.sync.aligned 0;", "");
    const SimResult r = run_text(t);
    REQUIRE(r.fault.has_value());
    REQUIRE(r.fault->race.has_value());
    CHECK(r.fault->race->kind == RaceKind::wgmma_register_in_flight);
    CHECK(r.fault->race->other.ptx_line == wgmma_line);
    CHECK(r.fault->race->access.ptx_line > wgmma_line);
  }
  SUBCASE("no wgmma.fence before the first wgmma") {
    const SimResult r = run_text(mutate("wgmma.fence.sync.aligned;", ""));
    REQUIRE(r.fault.has_value());
    REQUIRE(r.fault->race.has_value());
    CHECK(r.fault->race->kind == RaceKind::missing_wgmma_fence);
    CHECK(r.fault->race->access.ptx_line == wgmma_line);
    CHECK(r.fault->race->other.ptx_line < wgmma_line); // the accumulator's last write
  }
  SUBCASE("no fence.proxy.async after the generic stores that fill the operands") {
    const std::string t = mutate("fence.proxy.async.shared::cta;", "");
    const SimResult r = run_text(t);
    REQUIRE(r.fault.has_value());
    REQUIRE(r.fault->race.has_value());
    CHECK(r.fault->race->kind == RaceKind::missing_proxy_fence);
    CHECK(r.fault->race->access.ptx_line == wgmma_line);
    CHECK(r.fault->race->other.ptx_line < wgmma_line);
  }
  SUBCASE("a store into an operand between the commit and the wait") {
    const std::string t =
        mutate("wgmma.commit_group.sync.aligned;",
               "wgmma.commit_group.sync.aligned; st.shared.u32 [_ZZ15wgmma_f16_plainE2sa+16], 0;");
    require_race(run_text(t), RaceKind::write_before_wgmma_read, wgmma_line + 1, wgmma_line);
  }
  SUBCASE("after its own wait, one thread may refill an operand: the group is the "
          "warpgroup's") {
    // CUTLASS's PipelineTmaAsync and fast.cu release a stage from one thread per warpgroup
    // after its wgmma.wait_group: a retiring wait orders the whole wgmma's reads, not only
    // the reads of the waiting thread's warp.
    std::string t = mutate(".reg .pred \t%p<9>;", ".reg .pred \t%p<10>;");
    const std::string wait = "wgmma.wait_group.sync.aligned 0;";
    t.replace(t.find(wait, entry), wait.size(),
              wait +
                  " setp.eq.u32 %p9, %r1, 0; @%p9 st.shared.u32 [_ZZ15wgmma_f16_plainE2sa+16], 0;");
    require_ok(run_text(t));
  }
  SUBCASE("a cp.async into an operand between the commit and the wait") {
    const std::string t = mutate("wgmma.commit_group.sync.aligned;",
                                 "wgmma.commit_group.sync.aligned; cp.async.ca.shared.global "
                                 "[_ZZ15wgmma_f16_plainE2sb+32], [%rd1], 4;");
    require_race(run_text(t), RaceKind::write_before_wgmma_read, wgmma_line + 1, wgmma_line);
  }
}

TEST_CASE("wmma: each lane's part of a load or store is its own access (races with both lines)") {
  const std::string text = kernels_text();
  const std::size_t entry = text.find(".entry wmma_f16_f32(");
  REQUIRE(entry != std::string::npos);
  const std::size_t load_a = line_of(text, "wmma.load.a.sync", entry);
  const std::size_t store_d = line_of(text, "wmma.store.d.sync", entry);
  // the lanes fill sa and sb with st.shared, __syncwarp (bar.warp.sync), then wmma.load them;
  // wmma.store puts D into sd, __syncwarp, then the lanes read sd back
  auto without_nth_warp_sync = [&](int nth) {
    std::string t = text;
    std::size_t at = entry;
    for (int k = 0; k < nth; ++k)
      at = t.find("bar.warp.sync", at + 1);
    REQUIRE(at != std::string::npos);
    t.replace(at, std::string("bar.warp.sync \t-1;").size(), "");
    return t;
  };
  auto run_text = [&](const std::string& t) {
    auto p = Program::parse(t);
    REQUIRE_MESSAGE(p, p.diagnostics.format_all());
    tcd::Record r;
    r.a = elements(tcd::F16, 256, [](std::size_t i) { return static_cast<int>(i % 3); });
    r.b = elements(tcd::F16, 256, [](std::size_t i) { return static_cast<int>(i % 5); });
    r.c = elements(tcd::F32, 256, [](std::size_t) { return 1; });
    return run_case(*p, case_named("wmma_f16_f32"), r);
  };
  SUBCASE("no barrier between the lanes' stores and wmma.load: read after write at the load") {
    const SimResult r = run_text(without_nth_warp_sync(1));
    REQUIRE(r.fault.has_value());
    INFO(r.fault->message);
    REQUIRE(r.fault->race.has_value());
    CHECK(r.fault->race->kind == RaceKind::read_after_write);
    CHECK(r.fault->race->access.ptx_line == load_a);
    CHECK(r.fault->race->other.ptx_line < load_a);
  }
  SUBCASE("no barrier between wmma.store and the lanes' reads: read after write of the store") {
    const SimResult r = run_text(without_nth_warp_sync(2));
    REQUIRE(r.fault.has_value());
    INFO(r.fault->message);
    REQUIRE(r.fault->race.has_value());
    CHECK(r.fault->race->kind == RaceKind::read_after_write);
    CHECK(r.fault->race->other.ptx_line == store_d);
    CHECK(r.fault->race->access.ptx_line > store_d);
  }
}

TEST_CASE("tensor-core forms outside the simulated set are unsupported lines, not parse errors") {
  const std::string head =
      ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n"
      "\t.reg .b32 %r<40>;\n\t.reg .f32 %f<40>;\n\t.reg .b64 %rd<8>;\n";
  auto parse = [&](const std::string& line) {
    return Program::parse(head + "\t" + line + "\n\tret;\n}\n");
  };
  // the f16 m8n8k4 form has its own quad-pair layout; sparse and b1 forms are not run
  for (const char* line :
       {"mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, "
        "{%r1, %r2}, {%r3, %r4}, {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16};",
        "mma.sync.aligned.m16n8k256.row.col.and.popc.s32.b1.b1.s32 {%r1, %r2, %r3, %r4}, {%r5, "
        "%r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};",
        "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, "
        "%r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0x0;"}) {
    CAPTURE(line);
    auto p = parse(line);
    REQUIRE_MESSAGE(p, p.diagnostics.format_all());
    REQUIRE(p.diagnostics.items().size() == 1);
    CHECK(p.diagnostics.items()[0].severity == ptxgen::Severity::warning);
    CHECK(p.diagnostics.items()[0].line == 9);
  }
  // a simulated form with the wrong number of registers is an error at its line
  auto bad = parse("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3}, {%r1, %r2, "
                   "%r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};");
  REQUIRE(!bad);
  CHECK(bad.diagnostics.items()[0].line == 9);
}

TEST_CASE("wgmma chained into its own accumulators while another tile's wgmma is in flight") {
  // Two accumulator tiles, k-blocks interleaved (CuTe issues them so): the third wgmma
  // accumulates into the first's registers, same shape, while the second (other registers) is
  // also in flight: ordered by the ISA, no race. Into the same registers in another order it is
  // not the same accumulator: a register of an in-flight wgmma, read before its wait.
  const std::string head = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                           ".visible .entry chain()\n.reqntid 128\n{\n"
                           "  .reg .f32 %f<9>;\n  .reg .b64 %rd<3>;\n"
                           "  .shared .align 1024 .b8 s[4096];\n"
                           "  mov.b64 %rd1, 0x0000001000080000;\n" // start 0, lbo 128, sbo 256
                           "  wgmma.fence.sync.aligned;\n";
  const std::string wgmma = "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 ";
  auto text = [&](const std::string& third) {
    return head + wgmma + "{%f1, %f2, %f3, %f4}, %rd1, %rd1, 0, 1, 1, 0, 0;\n" + wgmma +
           "{%f5, %f6, %f7, %f8}, %rd1, %rd1, 0, 1, 1, 0, 0;\n" + wgmma + third +
           ", %rd1, %rd1, 1, 1, 1, 0, 0;\n" +
           "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n  ret;\n}\n";
  };
  auto run_text = [](const std::string& t) {
    auto p = Program::parse(t);
    REQUIRE_MESSAGE(p, p.diagnostics.format_all());
    Launch l;
    l.block_dim = {128, 1, 1};
    std::vector<GlobalBuffer> none;
    return run(*p, "chain", l, none);
  };
  require_ok(run_text(text("{%f1, %f2, %f3, %f4}")));
  const SimResult r = run_text(text("{%f2, %f1, %f3, %f4}"));
  REQUIRE(r.fault.has_value());
  REQUIRE(r.fault->race.has_value());
  CHECK(r.fault->race->kind == RaceKind::wgmma_register_in_flight);
  CHECK(r.fault->race->access.ptx_line == 14);
  CHECK(r.fault->race->other.ptx_line == 12);
}

} // namespace unit_sim_tensor_core
