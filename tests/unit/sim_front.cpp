// The simulator's front end on what real compilers print: scoped registers,
// .func calls, 32-bit shared address wrap (from nvcc's own ring kernel),
// per-entry problems, vector mov, Triton-style declarations and operands.
// Every PTX file under tests/data/sim_front/ is checked by ptxas (sim.cmake).

#include "driver/sim/ir.hpp"
#include "driver/sim/simulator.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_front {

using namespace ptxgen::sim;

namespace {

std::string read_front(const std::string& name) {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/tests/data/sim_front/" + name);
  REQUIRE_MESSAGE(in.good(), "cannot open tests/data/sim_front/" << name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::uint32_t word(const std::vector<std::uint8_t>& bytes, std::size_t index) {
  std::uint32_t v = 0;
  std::memcpy(&v, bytes.data() + 4 * index, 4);
  return v;
}

/// The 1-based line of the first line of `text` that contains `needle`.
std::uint32_t line_of(const std::string& text, const std::string& needle) {
  std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + at, '\n') + 1);
}

Program parsed(const std::string& ptx) {
  auto p = Program::parse(ptx);
  REQUIRE_MESSAGE(p, p.diagnostics.format_all());
  return *p.value;
}

} // namespace

TEST_CASE("nvcc's 3-stage ring: 32-bit shared addresses wrap past 2^32 as in PTX") {
  // ring3_wrap.ptx (nvcc -arch=sm_80 -O3) keeps a stage base that wrapped
  // below zero (mul.lo.s32 by -6144) and reads [%r136+6128]: the sum is only
  // a shared address modulo 2^32.
  const std::string ptx = read_front("ring3_wrap.ptx");
  REQUIRE(ptx.find("-6144") != std::string::npos);
  constexpr std::uint32_t k_tiles = 7, chunks = 128, words = 4;
  std::vector<std::uint8_t> a(k_tiles * chunks * 16), b(k_tiles * chunks * 16, 0);
  for (std::size_t k = 0; k < a.size() / 4; ++k) {
    auto v = static_cast<std::uint32_t>(k * 2654435761u);
    std::memcpy(a.data() + 4 * k, &v, 4);
  }
  std::vector<GlobalBuffer> mem = {{0x10000, &a, "A"}, {0x80000, &b, "B"}};
  Launch l;
  l.block_dim = {64, 1, 1};
  l.params = {0x10000, 0x80000, k_tiles};
  SimResult r = run(parsed(ptx), "ring3_wrap", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  for (std::uint32_t k = 0; k < k_tiles; ++k) {
    for (std::uint32_t t = 0; t < 64; ++t) {
      // b[k][t] = s[k%3][127 - t] = a[k][127 - t]; b[k][t + 64] = a[k][63 - t]
      for (std::uint32_t w = 0; w < words; ++w) {
        CHECK(word(b, (k * chunks + t) * words + w) == word(a, (k * chunks + 127 - t) * words + w));
        CHECK(word(b, (k * chunks + t + 64) * words + w) ==
              word(a, (k * chunks + 63 - t) * words + w));
      }
    }
  }
}

TEST_CASE("32-bit shared address arithmetic wraps; 64-bit global addresses do not") {
  const std::string head = ".version 8.0\n.target sm_80\n.address_size 64\n"
                           ".visible .entry k(.param .u64 k_out)\n{\n"
                           "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n"
                           "\t.shared .align 4 .b8 s[64];\n"
                           "\tld.param.u64 %rd1, [k_out];\n";
  std::vector<std::uint8_t> out(8, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  SUBCASE("[%r+12288] with %r = s - 12288 (mod 2^32) is s") {
    SimResult r = run(parsed(head + "\tmov.u32 %r1, s;\n\tadd.s32 %r1, %r1, -12288;\n"
                                    "\tst.shared.u32 [%r1+12292], 77;\n"
                                    "\tld.shared.u32 %r2, [s+4];\n"
                                    "\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n"),
                      "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    CHECK(word(out, 0) == 77u);
  }
  SUBCASE("a 64-bit global address does not wrap at 2^32") {
    SimResult r = run(parsed(head + "\tadd.s64 %rd2, %rd1, -4096;\n"
                                    "\tst.global.u32 [%rd2+4096], 5;\n\tret;\n}\n"),
                      "k", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    CHECK(word(out, 0) == 5u);
    // 0xFFFFF000 + 0x2000 is 0x1'0000'1000, not `out` at 0x1000
    SimResult far = run(parsed(head + "\tmov.u64 %rd2, 0xFFFFF000;\n"
                                      "\tst.global.u32 [%rd2+8192], 5;\n\tret;\n}\n"),
                        "k", l, mem);
    REQUIRE(far.fault);
    CHECK(far.fault->kind == FaultKind::illegal_address);
  }
}

TEST_CASE("only the entry being run must be simulable") {
  const std::string ptx = read_front("lazy.ptx");
  auto p = Program::parse(ptx);
  REQUIRE_MESSAGE(p, p.diagnostics.format_all());
  CHECK(!p.diagnostics.has_errors()); // the others' problems are warnings
  CHECK(p.diagnostics.has(ptxgen::DiagId::sim_unsupported_construct));
  const Program& prog = *p.value;
  std::vector<std::uint8_t> out(64 * 4, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.block_dim = {64, 1, 1};
  l.params = {0x1000};
  SUBCASE("the good entry runs; nothing of it is unsupported") {
    SimResult r = run(prog, "good", l, mem);
    REQUIRE_MESSAGE(!r.fault, r.fault->message);
    CHECK(word(out, 63) == 63u + 1000u);
    CHECK(prog.unsupported("good").empty());
  }
  SUBCASE("an entry with a vector register is unsupported, its lines listed") {
    SimResult r = run(prog, "vector_user", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::unsupported);
    CHECK(r.instructions_executed == 0);
    auto lines = prog.unsupported("vector_user");
    REQUIRE(lines.size() == 2); // the declaration, and brkpt
    CHECK(lines[0].line == line_of(ptx, ".reg .v2 .b32 \t%vec"));
    CHECK(lines[1].line == line_of(ptx, "\tbrkpt;\n\tret"));
    CHECK(r.fault->ptx_line == lines[0].line);
  }
  SUBCASE("an entry that calls a broken .func gets the func's lines") {
    auto lines = prog.unsupported("calls_broken");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].line == line_of(ptx, ".reg .v2 .b32"));
    SimResult r = run(prog, "calls_broken", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::unsupported);
  }
  SUBCASE("unsupported instructions of the entry are listed, each with its line") {
    auto lines = prog.unsupported("brk");
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].line == line_of(ptx, "brkpt;\n\tpmevent"));
    CHECK(lines[1].line == line_of(ptx, "pmevent"));
    CHECK(lines[0].text.find("brkpt") != std::string::npos);
  }
  SUBCASE("an unknown entry lists nothing") {
    CHECK(prog.unsupported("nope").empty());
  }
}

TEST_CASE("invalid PTX in another entry does not refuse the file; in the only one it does") {
  const std::string head = ".version 8.0\n.target sm_80\n.address_size 64\n";
  const std::string good = ".visible .entry good()\n{\n\tret;\n}\n";
  const std::string bad =
      ".visible .entry bad()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r9, 1;\n\tret;\n}\n";
  auto both = Program::parse(head + good + bad);
  REQUIRE_MESSAGE(both, both.diagnostics.format_all());
  CHECK(both.diagnostics.has(ptxgen::DiagId::sim_undeclared));
  std::vector<GlobalBuffer> mem;
  SimResult r = run(*both.value, "bad", Launch{}, mem);
  REQUIRE(r.fault);
  CHECK(r.fault->kind == FaultKind::invalid_ptx);
  CHECK(r.fault->ptx_line == 11);
  CHECK(!run(*both.value, "good", Launch{}, mem).fault);
  auto header = Program::parse(head + good + ".visible .entry hdr(.param .q32 x)\n{\n\tret;\n}\n");
  REQUIRE_MESSAGE(header, header.diagnostics.format_all()); // a broken header is skipped too
  CHECK(header.value->entries().size() == 2);
  auto only = Program::parse(head + bad);
  CHECK(!only);
  CHECK(only.diagnostics.has(ptxgen::DiagId::sim_undeclared));
}

TEST_CASE("scoped registers: no `%`, sibling scopes, shadowing") {
  std::vector<std::uint8_t> out(4 * 20, 0xEE);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.block_dim = {4, 1, 1};
  l.params = {0x1000};
  SimResult r = run(parsed(read_front("scopes.ptx")), "scopes", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  for (std::uint32_t t = 0; t < 4; ++t) {
    CHECK(word(out, t * 5 + 0) == (t == 0 ? 2u : 1u)); // sibling `p`s
    CHECK(word(out, t * 5 + 1) == t);                  // %tmp as .b64
    CHECK(word(out, t * 5 + 2) == t + 40);             // %tmp as .b32
    CHECK(word(out, t * 5 + 3) == 22u);                // the inner x, not the innermost
    CHECK(word(out, t * 5 + 4) == 11u);                // the outer x, untouched
  }
  auto twice =
      Program::parse(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"
                     "\t{\n\t.reg .pred p;\n\t.reg .b32 p;\n\t}\n\tret;\n}\n");
  REQUIRE(!twice);
  CHECK(twice.diagnostics.items().front().id == ptxgen::DiagId::sim_redeclared);
  CHECK(twice.diagnostics.items().front().line == 8);
}

TEST_CASE(".func calls: parameters, results, nested calls, exit inside a call") {
  const std::string ptx = read_front("calls.ptx");
  std::vector<std::uint8_t> out(4 * 12, 0xEE);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.block_dim = {4, 1, 1};
  l.params = {0x1000};
  Program p = parsed(ptx);
  CHECK(p.entries() == std::vector<std::string>{"calls"});
  SimResult r = run(p, "calls", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  for (std::uint32_t t = 0; t < 4; ++t) {
    const std::uint32_t first = t + 100 + 3; // add3(t, 100)
    CHECK(word(out, t * 3 + 0) == first);
    CHECK(word(out, t * 3 + 1) == 2 * first + 3); // twice: add3(x, x) in its second word
    // thread 1 branches past; the others store x and then exit inside leave()
    CHECK(word(out, t * 3 + 2) == (t == 1 ? 0xEEEEEEEEu : first));
  }
  SUBCASE("a recursive call is unsupported") {
    std::string rec = ".version 8.0\n.target sm_80\n.address_size 64\n"
                      ".func f()\n{\n\t{\n\tcall.uni f, ();\n\t}\n\tret;\n}\n"
                      ".visible .entry k()\n{\n\tcall.uni f, ();\n\tret;\n}\n";
    auto q = Program::parse(rec);
    REQUIRE_MESSAGE(q, q.diagnostics.format_all());
    std::vector<GlobalBuffer> none;
    SimResult rr = run(*q.value, "k", Launch{}, none);
    REQUIRE(rr.fault);
    CHECK(rr.fault->kind == FaultKind::unsupported);
    CHECK(rr.fault->ptx_line == 7);
  }
  SUBCASE("a call of an undefined function is invalid") {
    std::string undef = ".version 8.0\n.target sm_80\n.address_size 64\n"
                        ".extern .func g();\n"
                        ".visible .entry k()\n{\n\tcall.uni g, ();\n\tret;\n}\n";
    auto q = Program::parse(undef);
    REQUIRE(!q);
    CHECK(q.diagnostics.items().front().id == ptxgen::DiagId::sim_undeclared);
    CHECK(q.diagnostics.items().front().line == 7);
  }
}

TEST_CASE("vector mov packs and unpacks, the first element lowest") {
  std::vector<std::uint8_t> out(28, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  SimResult r = run(parsed(read_front("vector_mov.ptx")), "vector_mov", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  CHECK(word(out, 0) == 0xCDEFu);
  CHECK(word(out, 1) == 0x89ABu);
  CHECK(word(out, 2) == 0x89ABCDEFu);
  CHECK(word(out, 3) == 0x01234567u);
  std::uint64_t packed = 0;
  std::memcpy(&packed, out.data() + 16, 8);
  CHECK(packed == 0x89ABCDEF01234567ull);
  CHECK(word(out, 6) == 0xCDEF89ABu);
}

TEST_CASE("Triton-style PTX: .ptr params, { %r }, 0f literals, module data, special registers") {
  const std::string ptx = read_front("triton_style.ptx");
  Program p = parsed(ptx);
  const ir::Entry& e = p.module().entries.at(0);
  REQUIRE(e.params.size() == 3);
  CHECK(e.params[0].type == ".u64");
  CHECK(e.params[0].is_ptr);
  CHECK(e.params[0].ptr_space == ir::Space::global);
  CHECK(e.params[0].ptr_align == 16u);
  CHECK(e.params[1].ptr_align == 1u);
  CHECK(e.params[2].type == ".u32");
  CHECK(!e.params[2].is_ptr);
  CHECK(e.params[2].size == 4u);
  std::vector<std::uint8_t> in(32 * 4), out(32 * 32, 0xEE);
  for (std::uint32_t t = 0; t < 32; ++t) {
    std::uint32_t v = 1000 + t;
    std::memcpy(in.data() + 4 * t, &v, 4);
  }
  std::vector<GlobalBuffer> mem = {{0x1000, &in, "A"}, {0x9000, &out, "B"}};
  Launch l;
  l.block_dim = {32, 1, 1};
  l.params = {0x1000, 0x9000, 32};
  SimResult r = run(p, "triton_style", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  for (std::uint32_t t = 0; t < 32; ++t) {
    CHECK(word(out, t * 8 + 0) == 1000 + t + 6 * 3 + 3);      // table[5] * scale + table[2]
    CHECK(word(out, t * 8 + 1) == 0x3F800000u + 0x3F000000u); // 1.0f's and 0.5f's bits
    CHECK(word(out, t * 8 + 2) == (1u << t) - 1);             // %lanemask_lt
    CHECK(word(out, t * 8 + 3) == t);
    CHECK(word(out, t * 8 + 4) == 0u); // { 0f00000000 }
  }
}

TEST_CASE("debug directives, sections and linkage are skipped; .extern .shared aliases") {
  const std::string ptx = read_front("directives.ptx");
  std::vector<std::uint8_t> out(16, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  l.dynamic_shared_bytes = 64;
  SimResult r = run(parsed(ptx), "directives", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  CHECK(word(out, 0) == 0x5A5A5A5Au); // written through one extern array, read through the other
  CHECK(word(out, 1) == 64u);         // %dynamic_smem_size
  CHECK(word(out, 2) == 64u + 16u);   // %total_smem_size: 16 static bytes
}

TEST_CASE("nvcc -G: .func calls with st.param / ld.param, scoped %tmp, inline asm scopes") {
  // debug_calls.ptx (nvcc -arch=sm_80 -G): every device function a .func.
  const std::string ptx = read_front("debug_calls.ptx");
  REQUIRE(ptx.find("call.uni") != std::string::npos);
  constexpr std::uint32_t n = 40;
  std::vector<std::uint8_t> a(64 * 16), b(64 * 16, 0xEE);
  for (std::size_t k = 0; k < a.size() / 4; ++k) {
    auto v = static_cast<std::uint32_t>(k + 1);
    std::memcpy(a.data() + 4 * k, &v, 4);
  }
  std::vector<GlobalBuffer> mem = {{0x10000, &a, "A"}, {0x80000, &b, "B"}};
  Launch l;
  l.block_dim = {64, 1, 1};
  l.dynamic_shared_bytes = 1024;
  l.params = {0x10000, 0x80000, n};
  Program p = parsed(ptx);
  CHECK(p.unsupported("debug_calls").empty());
  SimResult r = run(p, "debug_calls", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  for (std::uint32_t t = 0; t < 64; ++t) {
    const std::uint32_t src = 63 - t; // the thread that copied d[63 - t]
    for (std::uint32_t w = 0; w < 4; ++w)
      CHECK(word(b, t * 4 + w) == (src < n ? word(a, src * 4 + w) : 0u));
  }
}

TEST_CASE("nvcc -G: a .local depot through cvta.local, and a failed assert() is a trap") {
  // debug_local.ptx (nvcc -arch=sm_80 -G): the locals live in __local_depot0.
  const std::string ptx = read_front("debug_local.ptx");
  REQUIRE(ptx.find("cvta.local.u64") != std::string::npos);
  std::vector<std::uint8_t> a(32 * 4), b(32 * 4, 0xEE);
  for (std::uint32_t t = 0; t < 32; ++t) {
    std::uint32_t v = 7 * t + 3;
    std::memcpy(a.data() + 4 * t, &v, 4);
  }
  std::vector<GlobalBuffer> mem = {{0x10000, &a, "A"}, {0x80000, &b, "B"}};
  Launch l;
  l.block_dim = {32, 1, 1};
  l.params = {0x10000, 0x80000, 32};
  Program p = parsed(ptx);
  CHECK(p.unsupported("debug_local").empty());
  SimResult r = run(p, "debug_local", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  for (std::uint32_t t = 0; t < 32; ++t)
    CHECK(word(b, t) == word(a, t) + word(a, (t + 1) % 32) + t);
  l.params[2] = 33; // assert(n <= 32) fails
  SimResult bad = run(p, "debug_local", l, mem);
  REQUIRE(bad.fault);
  CHECK(bad.fault->kind == FaultKind::trap);
  CHECK(origin(bad.fault->kind) == FaultOrigin::kernel);
  CHECK(bad.fault->ptx_line == line_of(ptx, "\t__assertfail, ") - 1); // `call.uni` above it
}

TEST_CASE("isspacep, .local arrays, a register barrier number, trap") {
  const std::string ptx = read_front("spaces.ptx");
  std::vector<std::uint8_t> out(4 * 32, 0xEE);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.block_dim = {4, 1, 1};
  l.params = {0x1000, 0};
  Program p = parsed(ptx);
  SimResult r = run(p, "spaces", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  for (std::uint32_t t = 0; t < 4; ++t) {
    CHECK(word(out, t * 8 + 0) == 1u + 2u + 4u);   // shared, global, local; not shared
    CHECK(word(out, t * 8 + 1) == t + 500);        // st.local, then a generic ld
    CHECK(word(out, t * 8 + 2) == (t ^ 1u) + 500); // the neighbour's, after barrier.sync %r
  }
  l.params[1] = 1;
  SimResult trapped = run(p, "spaces", l, mem);
  REQUIRE(trapped.fault);
  CHECK(trapped.fault->kind == FaultKind::trap);
  CHECK(trapped.fault->ptx_line == line_of(ptx, "@%p7 trap"));
}

// Function addresses and indirect calls run now: tests/unit/sim_sync.cpp (indirect.ptx).

} // namespace unit_sim_front
