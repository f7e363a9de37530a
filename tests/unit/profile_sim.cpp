// `run --profile`'s collection in the simulator, on a hand-written kernel whose
// requests are costed by hand (banks of 4 bytes, 32 of them; 32-byte sectors).

#include "driver/sim/profile.hpp"
#include "driver/sim/simulator.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_profile_sim {

using namespace ptxgen::sim;

namespace {

constexpr std::uint64_t a_base = 0x10000;

// Per thread t: a row store (word t of the region at byte 12288, 128-byte aligned), a
// column store (word 32 t), a 16-byte row load, a coalesced and a strided global load,
// a 16-byte cp.async to byte 8192 + 16 t.
const std::string ptx = ".version 8.0\n"
                        ".target sm_80\n"
                        ".address_size 64\n"
                        ".visible .entry k(\n"
                        "\t.param .u64 k_A\n"
                        ")\n"
                        "{\n"
                        "\t.reg .b32 %r<20>;\n"
                        "\t.reg .b64 %rd<10>;\n"
                        "\t.shared .align 16 .b8 smem[16384];\n"
                        "\tld.param.u64 %rd1, [k_A];\n"
                        "\tmov.u32 %r1, %tid.x;\n"
                        "\tmov.u32 %r2, smem;\n"
                        "\tshl.b32 %r3, %r1, 2;\n"
                        "\tadd.s32 %r17, %r3, 12288;\n"
                        "\tadd.s32 %r4, %r2, %r17;\n"
                        "\tst.shared.u32 [%r4], %r1;\n"
                        "\tshl.b32 %r5, %r1, 7;\n"
                        "\tadd.s32 %r6, %r2, %r5;\n"
                        "\tst.shared.u32 [%r6], %r1;\n"
                        "\tbar.sync 0;\n"
                        "\tshl.b32 %r7, %r1, 4;\n"
                        "\tadd.s32 %r8, %r2, %r7;\n"
                        "\tld.shared.v4.u32 {%r9, %r10, %r11, %r12}, [%r8];\n"
                        "\tmul.wide.u32 %rd2, %r1, 4;\n"
                        "\tadd.s64 %rd3, %rd1, %rd2;\n"
                        "\tld.global.u32 %r13, [%rd3];\n"
                        "\tmul.wide.u32 %rd4, %r1, 128;\n"
                        "\tadd.s64 %rd5, %rd1, %rd4;\n"
                        "\tld.global.u32 %r14, [%rd5];\n"
                        "\tmul.wide.u32 %rd6, %r1, 16;\n"
                        "\tadd.s64 %rd7, %rd1, %rd6;\n"
                        "\tadd.s32 %r15, %r2, 8192;\n"
                        "\tadd.s32 %r16, %r15, %r7;\n"
                        "\tcp.async.cg.shared.global [%r16], [%rd7], 16;\n"
                        "\tcp.async.wait_all;\n"
                        "\tret;\n"
                        "}\n";

ProfileReport profile(std::uint32_t block, std::uint32_t grid = 1) {
  std::vector<std::uint8_t> a(16384, 1);
  std::vector<GlobalBuffer> memory{{a_base, &a, "A"}};
  Launch l;
  l.grid_dim = {grid, 1, 1};
  l.block_dim = {block, 1, 1};
  l.params = {a_base};
  Profile p;
  l.profile = &p;
  auto r = run(ptx, "k", l, memory);
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  return p.report();
}

/// The row of the instruction whose text contains `operand`, of kind `kind`.
const ProfileRow& row(const ProfileReport& r, const std::string& operand, AccessKind kind) {
  for (const auto& x : r.rows)
    if (x.kind == kind && x.instruction.find(operand) != std::string::npos)
      return x;
  FAIL("no row for " << operand);
  return r.rows.front();
}

} // namespace

TEST_CASE("one warp: each instruction is one request, costed by the models") {
  const auto r = profile(32);
  CHECK(r.rows.size() == 7); // 2 stores, 1 shared load, 2 global loads, cp.async's two sides
  const auto& st_row = row(r, "[%r4]", AccessKind::shared_store);
  CHECK(st_row.requests == 1);
  CHECK(st_row.lanes == 32);
  CHECK(st_row.units == 1);
  const auto& st_col = row(r, "[%r6]", AccessKind::shared_store);
  CHECK(st_col.units == 32);
  CHECK(st_col.ideal == 1);
  CHECK(st_col.worst == 32);
  const auto& v4 = row(r, "[%r8]", AccessKind::shared_load);
  CHECK(v4.units == 4);
  CHECK(v4.ideal == 4);
  CHECK(row(r, "[%rd3]", AccessKind::global_load).units == 4);
  const auto& strided = row(r, "[%rd5]", AccessKind::global_load);
  CHECK(strided.units == 32);
  CHECK(strided.ideal == 4);
  CHECK(row(r, "cp.async", AccessKind::shared_async).units == 4);
  CHECK(row(r, "cp.async", AccessKind::global_async).units == 16);
  const auto s = r.totals(true);
  CHECK(s.requests == 4);
  CHECK(s.units == 1 + 32 + 4 + 4);
  CHECK(s.ideal == 1 + 1 + 4 + 4);
  CHECK(r.totals(false).units == 4 + 32 + 16);
}

TEST_CASE("a partial last warp and several CTAs: lanes that do not exist are inactive") {
  // 40 threads: warp 1 has lanes 0..7. Its column store hits bank 0 eight times.
  const auto r = profile(40, 2);
  const auto& st_col = row(r, "[%r6]", AccessKind::shared_store);
  CHECK(st_col.requests == 4); // 2 warps x 2 CTAs
  CHECK(st_col.lanes == 80);
  CHECK(st_col.units == 2 * (32 + 8));
  const auto& v4 = row(r, "[%r8]", AccessKind::shared_load);
  CHECK(v4.units == 2 * (4 + 1)); // 8 lanes of 16 bytes: one quarter-warp phase
  // warp 1's coalesced global load: lanes 32..39, bytes 128..159 of A: one sector.
  CHECK(row(r, "[%rd3]", AccessKind::global_load).units == 2 * (4 + 1));
}

TEST_CASE("without a profile the launch records nothing and runs as before") {
  std::vector<std::uint8_t> a(16384, 1);
  std::vector<GlobalBuffer> memory{{a_base, &a, "A"}};
  Launch l;
  l.block_dim = {32, 1, 1};
  l.params = {a_base};
  CHECK_FALSE(run(ptx, "k", l, memory).fault);
}

TEST_CASE("the JSON and the table carry the totals") {
  const auto r = profile(32);
  const std::string j = profile_json(r);
  CHECK(j.find("\"shared\": {\"requests\": 4, \"wavefronts\": 41, \"ideal\": 10, "
               "\"conflicts\": 31}") != std::string::npos);
  CHECK(j.find("\"global\": {\"requests\": 3, \"sectors\": 52, \"ideal\": 24}") !=
        std::string::npos);
}

} // namespace unit_profile_sim
