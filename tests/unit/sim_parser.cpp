// The simulator's PTX parser, integer semantics, launch checks and speed.

#include "driver/sim/ir.hpp"
#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_parser {

using namespace ptxgen::sim;

namespace {

std::string read_data(const std::string& name) {
  return ptxgen::test::read_test_data("sim", name);
}

/// One entry `k(.param .u64 k_out)` with `body` after the register declarations.
std::string one_thread(const std::string& body) {
  return ".version 8.0\n.target sm_80\n.address_size 64\n" // 1-3
         ".visible .entry k(\n\t.param .u64 k_out\n)\n{\n" // 4-7
         "\t.reg .pred %p<4>;\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n" // 8-11
         "\t.shared .align 8 .b8 s[64];\n"   // 12
         "\tld.param.u64 %rd1, [k_out];\n" + // 13
         body +
         "\tret;\n}\n";
}

constexpr std::uint32_t first_body_line = 14;

} // namespace

TEST_CASE("nvcc's own PTX for a rotate kernel runs: src-size n from a parameter") {
  auto prog = Program::parse(read_data("nvcc_rotate.ptx"));
  REQUIRE_MESSAGE(prog, prog.diagnostics.format_all());
  CHECK(prog->version() == "9.0");
  CHECK(prog->target() == "sm_80");
  REQUIRE(prog->entries() == std::vector<std::string>{"k"});
  std::vector<std::uint8_t> a(128 * 16), b(128 * 16, 0xEE);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<std::uint8_t>(i % 251);
  std::vector<GlobalBuffer> mem = {{0x7f0000000000ull, &a, "a"}, {0x7f0000100000ull, &b, "b"}};
  for (std::uint64_t n : {16u, 4u}) {
    Launch l;
    l.block_dim = {128, 1, 1};
    l.params = {0x7f0000000000ull, 0x7f0000100000ull, n};
    SimResult r = run(*prog, "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    for (std::size_t t = 0; t < 128; ++t)
      for (std::size_t k = 0; k < 16; ++k)
        CHECK(b[t * 16 + k] == (k < n ? a[((t + 1) % 128) * 16 + k] : 0));
  }
}

TEST_CASE("ptxgen-style seed kernel: B row t equals A row 127-t") {
  std::vector<std::uint8_t> a(128 * 64), b(128 * 64, 0);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<std::uint8_t>((i / 2) % 97); // f16 "arange % 97", low byte, roughly
  std::vector<GlobalBuffer> mem = {{0x100000, &a, "A"}, {0x200000, &b, "B"}};
  Launch l;
  l.block_dim = {128, 1, 1};
  l.params = {0x100000, 0x200000};
  SimResult r = run(read_data("seed_copy_async.ptx"), "copy_async", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  for (std::size_t t = 0; t < 128; ++t)
    for (std::size_t k = 0; k < 64; ++k)
      CHECK(b[t * 64 + k] == a[(127 - t) * 64 + k]);
  SUBCASE(".reqntid must match the block") {
    l.block_dim = {64, 1, 1};
    SimResult bad = run(read_data("seed_copy_async.ptx"), "copy_async", l, mem);
    REQUIRE(bad.fault);
    CHECK(bad.fault->kind == FaultKind::invalid_launch);
    CHECK(bad.fault->message.find(".reqntid 128") != std::string::npos);
  }
}

TEST_CASE("integer semantics, worked out by hand") {
  // Each result is stored as a u64 at out + 8*k.
  std::string body = "\tmov.u32 %r1, -16;\n"
                     "\tshr.s32 %r2, %r1, 2;\n" // -4
                     "\tcvt.s64.s32 %rd2, %r2;\n"
                     "\tst.global.u64 [%rd1], %rd2;\n" // [0] = -4
                     "\tshr.u32 %r3, %r1, 28;\n"       // 0xFFFFFFF0 >> 28 = 15
                     "\tcvt.u64.u32 %rd3, %r3;\n"
                     "\tst.global.u64 [%rd1+8], %rd3;\n" // [1] = 15
                     "\tmov.u32 %r4, -7;\n"
                     "\tdiv.s32 %r5, %r4, 2;\n"           // -3
                     "\trem.s32 %r6, %r4, 2;\n"           // -1
                     "\tmul.wide.s32 %rd4, %r5, %r6;\n"   // 3
                     "\tst.global.u64 [%rd1+16], %rd4;\n" // [2] = 3
                     "\tmin.u32 %r7, %r4, 5;\n"           // 5 (0xFFFFFFF9 is large unsigned)
                     "\tmin.s32 %r8, %r4, 5;\n"           // -7
                     "\tadd.s32 %r9, %r7, %r8;\n"         // -2
                     "\tcvt.s64.s32 %rd5, %r9;\n"
                     "\tst.global.u64 [%rd1+24], %rd5;\n" // [3] = -2
                     "\tmov.u32 %r10, 0x80000000;\n"
                     "\tmul.hi.u32 %r11, %r10, 6;\n"         // 3
                     "\tmul.lo.u32 %r12, %r10, 6;\n"         // 0
                     "\tsetp.lt.s32 %p1, %r4, 0;\n"          // true
                     "\tsetp.lo.u32 %p2, %r4, 0;\n"          // false
                     "\tselp.u32 %r13, %r11, 99, %p1;\n"     // 3
                     "\tselp.u32 %r14, 99, %r12, %p2;\n"     // 0
                     "\tmad.lo.s32 %r15, %r13, 100, %r14;\n" // 300
                     "\tcvt.u64.u32 %rd6, %r15;\n"
                     "\tst.global.u64 [%rd1+32], %rd6;\n" // [4] = 300
                     "\tmov.u64 %rd7, 0x00000000FFFFFFFF;\n"
                     "\tnot.b64 %rd8, %rd7;\n"            // 0xFFFFFFFF00000000
                     "\txor.b64 %rd9, %rd8, 0xF;\n"       // 0xFFFFFFFF0000000F
                     "\tst.global.u64 [%rd1+40], %rd9;\n" // [5]
                     "\tmov.u16 %rs1, 300;\n"
                     "\tneg.s16 %rs2, %rs1;\n"                        // -300 = 0xFED4
                     "\tcvt.u64.u16 %rd10, %rs2;\n"                   // 0xFED4 = 65236
                     "\tst.global.u64 [%rd1+48], %rd10;\n"            // [6]
                     "\tcvt.u32.u64 %r1, %rd9;\n"                     // 15
                     "\tmad.wide.u32 %rd11, %r1, 0x10000000, %rd7;\n" // 15<<28 + 0xFFFFFFFF
                     "\tst.global.u64 [%rd1+56], %rd11;\n";           // [7]
  std::vector<std::uint8_t> out(64, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  SimResult r = run(one_thread(body), "k", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  std::uint64_t v[8];
  std::memcpy(v, out.data(), 64);
  CHECK(static_cast<std::int64_t>(v[0]) == -4);
  CHECK(v[1] == 15);
  CHECK(v[2] == 3);
  CHECK(static_cast<std::int64_t>(v[3]) == -2);
  CHECK(v[4] == 300);
  CHECK(v[5] == 0xFFFFFFFF0000000Full);
  CHECK(v[6] == 65236);
  CHECK(v[7] == 15ull * 0x10000000ull + 0xFFFFFFFFull);
}

TEST_CASE("bfe: bit field extract, worked out by hand from the PTX ISA's definition") {
  // Each result is stored as a u64 at out + 8*k.
  std::string body = "\tmov.u32 %r1, 0xF0F01234;\n"
                     "\tbfe.u32 %r2, %r1, 4, 8;\n" // bits 4..11 = 0x23
                     "\tcvt.u64.u32 %rd2, %r2;\n"
                     "\tst.global.u64 [%rd1], %rd2;\n"
                     "\tmov.u32 %r3, 0x00000F00;\n"
                     "\tbfe.s32 %r4, %r3, 8, 4;\n" // 0xF, top bit of the field set: -1
                     "\tcvt.s64.s32 %rd3, %r4;\n"
                     "\tst.global.u64 [%rd1+8], %rd3;\n"
                     "\tmov.u32 %r5, 0x00000700;\n"
                     "\tbfe.s32 %r6, %r5, 8, 4;\n" // 0x7, top bit clear: 7
                     "\tcvt.s64.s32 %rd4, %r6;\n"
                     "\tst.global.u64 [%rd1+16], %rd4;\n"
                     "\tbfe.u32 %r7, %r1, 4, 0;\n" // zero length: 0
                     "\tcvt.u64.u32 %rd5, %r7;\n"
                     "\tst.global.u64 [%rd1+24], %rd5;\n"
                     "\tmov.u32 %r8, 0x80000000;\n"
                     "\tbfe.s32 %r9, %r8, 40, 4;\n" // past the msb: a[31] = 1 everywhere: -1
                     "\tcvt.s64.s32 %rd6, %r9;\n"
                     "\tst.global.u64 [%rd1+32], %rd6;\n"
                     "\tmov.u64 %rd7, 0xF000000000000000;\n"
                     "\tbfe.u64 %rd8, %rd7, 60, 8;\n" // bits 60..63, zeros past the msb: 0xF
                     "\tst.global.u64 [%rd1+40], %rd8;\n"
                     "\tbfe.s64 %rd9, %rd7, 60, 8;\n" // the same, a[63] = 1 above: -1
                     "\tst.global.u64 [%rd1+48], %rd9;\n"
                     "\tmov.u32 %r10, 0x12345678;\n"
                     "\tbfe.u32 %r11, %r10, 0x104, 8;\n" // pos = 0x104 & 0xff = 4: 0x67
                     "\tcvt.u64.u32 %rd10, %r11;\n"
                     "\tst.global.u64 [%rd1+56], %rd10;\n";
  std::vector<std::uint8_t> out(64, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  SimResult r = run(one_thread(body), "k", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  std::uint64_t v[8];
  std::memcpy(v, out.data(), 64);
  CHECK(v[0] == 0x23);
  CHECK(static_cast<std::int64_t>(v[1]) == -1);
  CHECK(v[2] == 7);
  CHECK(v[3] == 0);
  CHECK(static_cast<std::int64_t>(v[4]) == -1);
  CHECK(v[5] == 0xF);
  CHECK(static_cast<std::int64_t>(v[6]) == -1);
  CHECK(v[7] == 0x67);
}

TEST_CASE("generic addressing through cvta.shared and a branch loop") {
  // Sum 0..9 with a loop; store it through a generic pointer to shared, read back.
  std::string body = "\tmov.u32 %r1, 0;\n"
                     "\tmov.u32 %r2, 0;\n"
                     "$L_loop:\n"
                     "\tadd.s32 %r2, %r2, %r1;\n"
                     "\tadd.s32 %r1, %r1, 1;\n"
                     "\tsetp.lt.u32 %p1, %r1, 10;\n"
                     "\t@%p1 bra $L_loop;\n"
                     "\tmov.u64 %rd2, s;\n"
                     "\tcvta.shared.u64 %rd3, %rd2;\n"
                     "\tst.u32 [%rd3+8], %r2;\n"
                     "\tld.shared.u32 %r3, [s+8];\n"
                     "\tst.global.u32 [%rd1], %r3;\n";
  std::vector<std::uint8_t> out(4, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  SimResult r = run(one_thread(body), "k", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  CHECK(out[0] == 45);
  CHECK(out[1] == 0);
}

TEST_CASE("a loop with bar.sync inside: every thread runs to its next barrier, each iteration") {
  // 4 threads, 3 iterations: thread t writes 10*t + i to s[t], syncs, adds its
  // neighbour's s[(t+1)%4] to an accumulator, syncs again. By hand:
  // acc(t) = 3 * 10 * ((t+1)%4) + (0+1+2) = 33, 63, 93, 3.
  auto kernel = [](bool second_barrier) {
    return one_thread(std::string("\tmov.u32 %r1, %tid.x;\n"
                                  "\tmov.u32 %r2, s;\n"
                                  "\tshl.b32 %r3, %r1, 2;\n"
                                  "\tadd.u32 %r4, %r2, %r3;\n" // &s[t]
                                  "\tadd.u32 %r7, %r1, 1;\n"
                                  "\tand.b32 %r7, %r7, 3;\n"
                                  "\tshl.b32 %r7, %r7, 2;\n"
                                  "\tadd.u32 %r7, %r2, %r7;\n" // &s[(t+1)%4]
                                  "\tmov.u32 %r5, 0;\n"        // acc
                                  "\tmov.u32 %r6, 0;\n"        // i
                                  "$L_loop:\n"
                                  "\tmad.lo.u32 %r8, %r1, 10, %r6;\n" // 10*t + i
                                  "\tst.shared.u32 [%r4], %r8;\n"
                                  "\tbar.sync 0;\n"
                                  "\tld.shared.u32 %r9, [%r7];\n"
                                  "\tadd.u32 %r5, %r5, %r9;\n") +
                      (second_barrier ? "\tbar.sync 0;\n" : "") +
                      "\tadd.u32 %r6, %r6, 1;\n"
                      "\tsetp.lt.u32 %p1, %r6, 3;\n"
                      "\t@%p1 bra.uni $L_loop;\n"
                      "\tmul.wide.u32 %rd2, %r1, 4;\n"
                      "\tadd.u64 %rd3, %rd1, %rd2;\n"
                      "\tst.global.u32 [%rd3], %r5;\n");
  };
  std::vector<std::uint8_t> out(16, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.block_dim = {4, 1, 1};
  l.params = {0x1000};
  SimResult r = run(kernel(true), "k", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  std::uint32_t acc[4];
  std::memcpy(acc, out.data(), 16);
  CHECK(acc[0] == 33);
  CHECK(acc[1] == 63);
  CHECK(acc[2] == 93);
  CHECK(acc[3] == 3);
  SUBCASE(
      "without the second bar.sync, the next iteration's store races with the neighbour's load") {
    SimResult bad = run(kernel(false), "k", l, mem);
    REQUIRE(bad.fault);
    CHECK(bad.fault->kind == FaultKind::race);
  }
}

TEST_CASE("an unsupported instruction is a clean error naming its line") {
  std::vector<std::uint8_t> out(4, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  SUBCASE("testp") {
    SimResult r = run(one_thread("\tmov.u32 %r1, 7;\n\ttestp.finite.f32 %p1, %r1;\n"), "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::unsupported);
    CHECK(r.fault->ptx_line == first_body_line + 1);
    CHECK(r.fault->message.find("testp.finite.f32 %p1, %r1;") != std::string::npos);
    CHECK(r.instructions_executed == 0); // refused before anything ran
  }
  SUBCASE("cp.async.bulk.tensor.3d ... .im2col::w (sm_100; .im2col itself is simulated)") {
    SimResult r =
        run(one_thread("\tcp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::"
                       "complete_tx::bytes [%r1], [%rd1, {%r1, %r2, %r3}], [%r2], "
                       "{%rs1};\n"),
            "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::unsupported);
    CHECK(r.fault->ptx_line == first_body_line);
  }
  SUBCASE("float arithmetic with .relu") {
    SimResult r = run(one_thread("\tfma.rn.relu.bf16 %rs1, %rs2, %rs3, %rs1;\n"), "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::unsupported);
  }
}

TEST_CASE("malformed PTX: diagnostics with line and column") {
  SUBCASE("register width mismatch") {
    auto p = Program::parse(one_thread("\tadd.u32 %r1, %rd2, 1;\n"));
    REQUIRE(!p);
    REQUIRE(!p.diagnostics.items().empty());
    const auto& d = p.diagnostics.items().front();
    CHECK(d.line == first_body_line);
    CHECK(d.column == 15); // tab + "add.u32 %r1, " = 14 bytes before %rd2
    CHECK(d.id == ptxgen::DiagId::sim_operand_width);
  }
  SUBCASE("undeclared register") {
    auto p = Program::parse(one_thread("\tmov.u32 %r99, 1;\n"));
    REQUIRE(!p);
    CHECK(p.diagnostics.items().front().id == ptxgen::DiagId::sim_undeclared);
  }
  SUBCASE("[reg-16] is rejected as ptxas does") {
    auto p = Program::parse(one_thread("\tld.global.u32 %r1, [%rd1-16];\n"));
    REQUIRE(!p);
    CHECK(p.diagnostics.items().front().id == ptxgen::DiagId::sim_syntax);
  }
  SUBCASE("[reg+-16] is accepted") {
    auto p = Program::parse(one_thread("\tld.global.u32 %r1, [%rd1+-16];\n"));
    CHECK_MESSAGE(p, p.diagnostics.format_all());
  }
  SUBCASE(".cg with 8 bytes") {
    auto p = Program::parse(one_thread("\tcp.async.cg.shared.global [s], [%rd1], 8;\n"));
    REQUIRE(!p);
    CHECK(p.diagnostics.items().front().id == ptxgen::DiagId::sim_operand_range);
  }
  SUBCASE("cache hint without a policy") {
    auto p =
        Program::parse(one_thread("\tcp.async.cg.shared.global.L2::cache_hint [s], [%rd1], 16;\n"));
    REQUIRE(!p);
    CHECK(p.diagnostics.items().front().id == ptxgen::DiagId::sim_operand_count);
  }
  SUBCASE("several errors are all reported") {
    auto p = Program::parse(one_thread("\tmov.u32 %r99, 1;\n\tmov.u32 %r98, 1;\n"));
    REQUIRE(!p);
    REQUIRE(p.diagnostics.items().size() == 2);
    CHECK(p.diagnostics.items()[1].line == first_body_line + 1);
  }
  SUBCASE("run() on bad text reports invalid_ptx with the line") {
    std::vector<GlobalBuffer> mem;
    Launch l;
    l.params = {0};
    SimResult r = run(one_thread("\tbogus %r1;\n\tmov.u32 %r1, %r77;\n"), "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::invalid_ptx);
    CHECK(r.fault->ptx_line == first_body_line + 1);
  }
}

TEST_CASE("launch checks") {
  std::vector<std::uint8_t> out(4, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  auto prog = Program::parse(one_thread(""));
  REQUIRE(prog);
  Launch l;
  SimResult r = run(*prog, "k", l, mem); // no params given, one declared
  REQUIRE(r.fault);
  CHECK(r.fault->kind == FaultKind::invalid_launch);
  l.params = {0x1000};
  SimResult missing = run(*prog, "nope", l, mem);
  REQUIRE(missing.fault);
  CHECK(missing.fault->message.find("`k`") != std::string::npos);
  SimResult ok = run(*prog, "k", l, mem);
  CHECK(!ok.fault);
  CHECK(ok.instructions_executed == 2);
}

TEST_CASE("8 CTAs x 256 threads x ~50 instructions each run to the end") {
  std::string body;
  body += "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %r1;\n";
  for (int k = 0; k < 40; ++k)
    body += "\tmad.lo.s32 %r3, %r3, 3, %r2;\n";
  body += "\tshl.b32 %r4, %r1, 2;\n\tmov.u32 %r5, s;\n"
          "\tand.b32 %r4, %r4, 60;\n\tadd.u32 %r6, %r5, %r4;\n"
          "\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 st.shared.u32 [%r6], %r3;\n\tbar.sync 0;\n";
  std::vector<std::uint8_t> out(4, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.grid_dim = {8, 1, 1};
  l.block_dim = {256, 1, 1};
  l.params = {0x1000};
  auto prog = Program::parse(one_thread(body));
  REQUIRE_MESSAGE(prog, prog.diagnostics.format_all());
  SimResult r = run(*prog, "k", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  CHECK(r.instructions_executed == 8u * 256u * 52u);
}

namespace {

/// One thread; `.extern .shared .align 1024 .b8 dyn[]` at module scope (where
/// ptxas takes it); stores dyn's address to out[0..3], writes 0x5A to
/// dyn+`offset` and reads it back into out[4].
std::string extern_shared_kernel(int offset) {
  return ".version 8.0\n.target sm_80\n.address_size 64\n"
         ".extern .shared .align 1024 .b8 dyn[];\n"
         ".visible .entry k(\n\t.param .u64 k_out\n)\n{\n"
         "\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n"
         "\tld.param.u64 %rd1, [k_out];\n"
         "\tcvta.to.global.u64 %rd2, %rd1;\n"
         "\tmov.u32 %r1, dyn;\n"
         "\tst.global.u32 [%rd2], %r1;\n"
         "\tmov.u16 %rs1, 90;\n"
         "\tst.shared.u8 [%r1+" +
         std::to_string(offset) +
         "], %rs1;\n"
         "\tld.shared.u8 %rs2, [%r1+" +
         std::to_string(offset) +
         "];\n"
         "\tst.global.u8 [%rd2+4], %rs2;\n"
         "\tret;\n}\n";
}

} // namespace

TEST_CASE(".extern .shared: at module scope, sized by the launch") {
  std::vector<std::uint8_t> out(8, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  SUBCASE("the last byte of the launch's dynamic bytes is usable") {
    l.dynamic_shared_bytes = 4096;
    SimResult r = run(extern_shared_kernel(4095), "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    std::uint32_t address = 0;
    std::memcpy(&address, out.data(), 4);
    CHECK(address == 0u); // the entry has no static array before it
    CHECK(out[4] == 0x5A);
  }
  SUBCASE("one byte beyond them is an illegal address") {
    l.dynamic_shared_bytes = 4095;
    SimResult r = run(extern_shared_kernel(4095), "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::illegal_address);
  }
  SUBCASE("no dynamic bytes at all: dyn has none") {
    SimResult r = run(extern_shared_kernel(0), "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::illegal_address);
  }
  SUBCASE("more shared memory than any target has is refused at launch") {
    l.dynamic_shared_bytes = 232449; // one byte more than sm_90, the largest
    SimResult r = run(extern_shared_kernel(0), "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::invalid_launch);
  }
}

TEST_CASE("an unsized shared array must be .extern; a sized .extern one is static (ptxas drops "
          "the qualifier); static arrays precede the .extern one") {
  const std::string head = ".version 8.0\n.target sm_80\n.address_size 64\n";
  const std::string entry = ".visible .entry k()\n{\n";
  auto unsized = Program::parse(head + entry + "\t.shared .align 16 .b8 d[];\n\tret;\n}\n");
  CHECK(!unsized);
  CHECK(unsized.diagnostics.has(ptxgen::DiagId::sim_declaration));
  // `ptxas -v` (both read): "ignoring extern qualifier", then "21 bytes smem" for d[20] and s[1]: a
  // sized .extern array is a static one, laid out with the entry's (d at 0, s after it)
  auto sized = Program::parse(head + ".extern .shared .align 16 .b8 d[20];\n" + entry +
                              "\t.shared .align 4 .b8 s[1];\n\tret;\n}\n");
  REQUIRE_MESSAGE(sized, sized.diagnostics.format_all());
  const auto& statics = sized.value->module().entries.at(0).shared;
  REQUIRE(statics.size() == 2);
  CHECK(!statics[0].is_extern);
  CHECK(statics[0].bytes == 20u);
  CHECK(statics[1].offset == 20u);
  CHECK(sized.value->module().entries.at(0).shared_bytes == 21u);
  // nvcc's order: the module's `.extern .shared`, then the entry's static arrays,
  // which come first in shared memory (the dynamic bytes follow them all).
  auto after = Program::parse(head + ".extern .shared .align 16 .b8 d[];\n" + entry +
                              "\t.shared .align 4 .b8 e[20];\n\tret;\n}\n");
  REQUIRE_MESSAGE(after, after.diagnostics.format_all());
  const auto& shared = after.value->module().entries.at(0).shared;
  REQUIRE(shared.size() == 2);
  CHECK(shared[0].name == "e");
  CHECK(shared[0].offset == 0u);
  CHECK(shared[1].name == "d");
  CHECK(shared[1].offset == 32u); // 20 bytes, then d's 16-byte alignment
  CHECK(after.value->module().entries.at(0).shared_bytes == 32u);
  auto fine = Program::parse(head + ".extern .shared .align 16 .b8 d[];\n" + entry + "\tret;\n}\n");
  CHECK_MESSAGE(fine, fine.diagnostics.format_all());
}

} // namespace unit_sim_parser
