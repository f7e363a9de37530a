// The simulator against the GPU on the forms of tools/sim_arith_device/forms.def:
// each form becomes a PTX kernel run by sim::run over the inputs the GPU saw,
// and every result must equal the GPU's bit for bit. The GPU's results are
// tests/data/sim_arith/h200.bin, made by tools/sim_arith_device/run.sh on the
// H200 (never written by hand); PTXGEN_SIM_ARITH_RESULTS names another file.

#include "driver/sim/simulator.hpp"
#include "tools/sim_arith_device/format.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_arith_device {

using namespace ptxgen::sim;
namespace dev = sim_arith_device;

namespace {

struct Form {
  const char* id;
  dev::Kind kind;
  dev::Gen gen;
  const char* text;
  bool setp;
  unsigned matrices = 0; ///< ldmatrix: registers per lane
  unsigned ulps = 0;     ///< an .approx form: the GPU may differ by this much (counted, kept)
};

const Form forms[] = {
#define ARITH_FORM(id, kind, gen, text) {#id, dev::kind, dev::gen, text, false},
#define ARITH_SETP(id, kind, gen, op) {#id, dev::kind, dev::gen, op, true},
#define ARITH_LDMATRIX(id, op, n) {#id, dev::K_LDMATRIX, dev::G_INT, op, false, n},
#include "tools/sim_arith_device/forms.def"
#undef ARITH_FORM
#undef ARITH_SETP
#undef ARITH_LDMATRIX
};

/// The kernel math table (cvt packing, rcp, sqrt, the .approx functions).
const Form math_forms[] = {
#define ARITH_FORM(id, kind, gen, text) {#id, dev::kind, dev::gen, text, false},
#define ARITH_APPROX(id, kind, gen, text, n) {#id, dev::kind, dev::gen, text, false, 0, n},
#include "tools/sim_arith_device/kernel_math.def"
#undef ARITH_FORM
#undef ARITH_APPROX
};

/// The integer forms of int8 / int16 kernels (dp4a, dp2a, the 16-bit pairs, .relu).
const Form int_forms[] = {
#define ARITH_FORM(id, kind, gen, text) {#id, dev::kind, dev::gen, text, false},
#include "tools/sim_arith_device/int_forms.def"
#undef ARITH_FORM
};

/// The register holding a value of `bits` for operand slot k (k = 0: the destination).
std::string reg(unsigned bits, unsigned k) {
  switch (bits) {
  case 1:
    return "%p1";
  case 16:
    return "%h" + std::to_string(k);
  case 32:
    return "%r" + std::to_string(8 + k);
  default:
    return "%rd" + std::to_string(8 + k);
  }
}

/// K_LDMATRIX (tools/sim_arith_device/format.hpp): 8 warps per CTA, each fills
/// its 512-byte tile from its inputs, then ldmatrix on the rows they pick.
std::string ldmatrix_kernel_for(const Form& f) {
  std::ostringstream o;
  o << ".version 8.0\n.target sm_90\n.address_size 64\n"
       ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n"
       "\t.reg .b32 %r<24>;\n\t.reg .b64 %rd<24>;\n\t.shared .align 16 .b8 tile[4096];\n"
       "\tld.param.u64 %rd1, [k_in];\n\tld.param.u64 %rd2, [k_out];\n"
       "\tmov.u32 %r0, %ctaid.x;\n\tmov.u32 %r2, %tid.x;\n"
       "\tshr.u32 %r3, %r2, 5;\n\tand.b32 %r4, %r2, 31;\n"
       "\tshl.b32 %r5, %r0, 3;\n\tadd.u32 %r5, %r5, %r3;\n" // the warp w
       "\tmul.wide.u32 %rd3, %r5, 2048;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
       "\tmul.wide.u32 %rd5, %r4, 16;\n\tadd.s64 %rd6, %rd4, %rd5;\n"
       "\tld.global.v2.u64 {%rd7, %rd8}, [%rd6];\n"
       "\tmov.u32 %r6, tile;\n\tshl.b32 %r7, %r3, 9;\n\tadd.u32 %r7, %r7, %r6;\n"
       "\tshl.b32 %r8, %r4, 4;\n\tadd.u32 %r9, %r7, %r8;\n"
       "\tst.shared.v2.u64 [%r9], {%rd7, %rd8};\n\tbar.sync 0;\n"
       "\tmul.wide.u32 %rd9, %r4, 8;\n\tadd.s64 %rd10, %rd4, %rd9;\n"
       "\tld.global.u64 %rd11, [%rd10+512];\n\tcvt.u32.u64 %r10, %rd11;\n"
       "\tand.b32 %r10, %r10, 31;\n\tshl.b32 %r10, %r10, 4;\n\tadd.u32 %r11, %r7, %r10;\n"
       "\tmov.u32 %r12, 0;\n\tmov.u32 %r13, 0;\n\tmov.u32 %r14, 0;\n\tmov.u32 %r15, 0;\n"
    << "\t" << f.text << " {";
  for (unsigned k = 0; k < f.matrices; ++k)
    o << (k == 0 ? "" : ", ") << "%r" << 12 + k;
  o << "}, [%r11];\n"
       "\tcvt.u64.u32 %rd12, %r12;\n\tcvt.u64.u32 %rd13, %r13;\n\tshl.b64 %rd13, %rd13, 32;\n"
       "\tor.b64 %rd12, %rd12, %rd13;\n"
       "\tcvt.u64.u32 %rd14, %r14;\n\tcvt.u64.u32 %rd15, %r15;\n\tshl.b64 %rd15, %rd15, 32;\n"
       "\tor.b64 %rd14, %rd14, %rd15;\n"
       "\tmul.wide.u32 %rd16, %r5, 512;\n\tadd.s64 %rd17, %rd2, %rd16;\n"
       "\tadd.s64 %rd17, %rd17, %rd5;\n\tst.global.v2.u64 [%rd17], {%rd12, %rd14};\n"
       "\tret;\n}\n";
  return o.str();
}

/// One thread per input: loads its operands, runs the form, stores the result as a u64.
std::string kernel_for(const Form& f) {
  if (f.kind == dev::K_LDMATRIX)
    return ldmatrix_kernel_for(f);
  const dev::Shape s = dev::shape(f.kind);
  std::ostringstream o;
  o << ".version 8.0\n.target sm_90\n.address_size 64\n"
       ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n"
       "\t.reg .pred %p<2>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<24>;\n"
       "\tld.param.u64 %rd1, [k_in];\n\tld.param.u64 %rd2, [k_out];\n"
       "\tmov.u32 %r0, %ctaid.x;\n\tmov.u32 %r1, %ntid.x;\n\tmov.u32 %r2, %tid.x;\n"
       "\tmad.lo.s32 %r3, %r0, %r1, %r2;\n"
       "\tmul.wide.u32 %rd3, %r3, 32;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
       "\tmul.wide.u32 %rd5, %r3, 8;\n\tadd.s64 %rd6, %rd2, %rd5;\n";
  for (unsigned k = 0; k < 4 && s.src[k] != 0; ++k) {
    const std::string wide = "%rd" + std::to_string(16 + k);
    o << "\tld.global.u64 " << wide << ", [%rd4+" << 8 * k << "];\n";
    if (s.src[k] == 16)
      o << "\tcvt.u16.u64 " << reg(16, k + 1) << ", " << wide << ";\n";
    else if (s.src[k] == 32)
      o << "\tcvt.u32.u64 " << reg(32, k + 1) << ", " << wide << ";\n";
    else
      o << "\tmov.b64 " << reg(64, k + 1) << ", " << wide << ";\n";
  }
  std::string text = f.setp ? std::string(f.text) + " %0, %1, %2;" : f.text;
  for (unsigned k = 0; k < 5; ++k) {
    const std::string mark = "%" + std::to_string(k);
    const std::string name = k == 0 ? reg(s.dst, 0) : reg(s.src[k - 1], k);
    for (auto at = text.find(mark); at != std::string::npos; at = text.find(mark))
      text.replace(at, mark.size(), name);
  }
  o << "\t" << text << "\n";
  if (s.dst == 1)
    o << "\tselp.u32 %r8, 1, 0, %p1;\n\tcvt.u64.u32 %rd7, %r8;\n";
  else if (s.dst == 16)
    o << "\tcvt.u64.u16 %rd7, %h0;\n";
  else if (s.dst == 32)
    o << "\tcvt.u64.u32 %rd7, %r8;\n";
  else
    o << "\tmov.b64 %rd7, %rd8;\n";
  o << "\tst.global.u64 [%rd6], %rd7;\n\tret;\n}\n";
  return o.str();
}

/// The simulator's results of form f over `in` (n * 4 operands).
std::vector<std::uint64_t> simulate(const Form& f, const std::vector<std::uint64_t>& in) {
  const std::size_t n = in.size() / 4;
  std::vector<std::uint8_t> in_bytes(in.size() * 8), out_bytes(n * 8, 0);
  std::memcpy(in_bytes.data(), in.data(), in_bytes.size());
  std::vector<GlobalBuffer> mem = {{0x100000, &in_bytes, "in"}, {0x1000000, &out_bytes, "out"}};
  Launch l;
  l.grid_dim = {
      static_cast<std::uint32_t>(f.kind == dev::K_LDMATRIX ? dev::ldmatrix_warps / 8 : n / 256), 1,
      1};
  l.block_dim = {256, 1, 1};
  l.params = {0x100000, 0x1000000};
  const std::string ptx = kernel_for(f);
  SimResult r = run(ptx, "k", l, mem);
  INFO(std::string(f.id) << "\n" << ptx);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  std::vector<std::uint64_t> out(n);
  std::memcpy(out.data(), out_bytes.data(), out_bytes.size());
  return out;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string results_path(const char* env, const char* file) {
  if (const char* p = std::getenv(env); p != nullptr && *p != '\0')
    return p;
  return std::string(PTXGEN_SOURCE_DIR) + "/tests/data/sim_arith/" + file;
}

/// Units in the last place between two float results of `bits` bits (same sign: the distance
/// of their bit patterns; else the sum of both distances from zero). NaNs: 0 when both are.
std::uint64_t ulp_distance(std::uint64_t a, std::uint64_t b, unsigned bits) {
  const std::uint64_t sign = 1ull << (bits - 1), mag = sign - 1;
  const unsigned mbits = bits == 64 ? 52 : bits == 32 ? 23 : 10;
  const std::uint64_t exp_ones = mag & ~((1ull << mbits) - 1);
  auto nan = [&](std::uint64_t v) { return (v & exp_ones) == exp_ones && (v & mag) != exp_ones; };
  if (nan(a) || nan(b))
    return nan(a) && nan(b) ? 0 : ~0ull;
  if ((a & sign) == (b & sign))
    return (a & mag) > (b & mag) ? (a & mag) - (b & mag) : (b & mag) - (a & mag);
  return (a & mag) + (b & mag);
}

/// The simulator against the GPU's results file over a table: exact forms bit for bit, .approx
/// forms counted within and beyond their bound (per 16-bit half for the x2 forms).
void compare(const Form* table, std::size_t count, const std::string& path) {
  // The results are checked in (tests/data/sim_arith/): a missing file is a failure, not a skip.
  REQUIRE_MESSAGE(std::ifstream(path).good(),
                  "no GPU results at " << path << " (tools/sim_arith_device/README.md makes them)");
  std::vector<dev::Record> recs;
  REQUIRE_MESSAGE(dev::read_file(path.c_str(), recs), "unreadable results file " << path);
  // The file must come from this table, row for row.
  REQUIRE(recs.size() == count);
  std::size_t total_bad = 0;
  for (std::size_t k = 0; k < recs.size(); ++k) {
    const dev::Record& r = recs[k];
    const Form& f = table[k];
    INFO(std::string(f.id));
    REQUIRE(r.id == f.id);
    REQUIRE(r.text == f.text);
    REQUIRE(r.kind == f.kind);
    const auto in = dev::inputs(f.kind, f.gen, static_cast<std::uint32_t>(k));
    REQUIRE_MESSAGE(dev::hash(in) == r.input_hash, "the inputs differ from the GPU's");
    REQUIRE(r.out.size() == in.size() / 4);
    const auto sim = simulate(f, in);
    const unsigned bits = dev::shape(f.kind).dst;
    const bool pair = f.gen == dev::G_F16X2 || f.gen == dev::G_BF16X2;
    std::string report;
    std::size_t bad = 0, beyond = 0;
    for (std::size_t i = 0; i < sim.size(); ++i) {
      if (sim[i] == r.out[i])
        continue;
      if (f.ulps != 0) {
        const std::uint64_t d = pair
                                    ? std::max(ulp_distance(sim[i] & 0xffff, r.out[i] & 0xffff, 16),
                                               ulp_distance(sim[i] >> 16, r.out[i] >> 16, 16))
                                    : ulp_distance(sim[i], r.out[i], bits);
        beyond += d > f.ulps ? 1 : 0;
        continue;
      }
      if (++bad <= 6)
        report += "\n  in (" + hex(in[4 * i]) + ", " + hex(in[4 * i + 1]) + ", " +
                  hex(in[4 * i + 2]) + ", " + hex(in[4 * i + 3]) + "): gpu " + hex(r.out[i]) +
                  ", sim " + hex(sim[i]);
    }
    if (f.ulps != 0)
      MESSAGE(std::string(f.id)
              << ": " << beyond << " of " << sim.size() << " results beyond " << f.ulps
              << " ulp of the GPU's (an .approx form: the simulator's value is the exact "
                 "function rounded)");
    total_bad += bad;
    CHECK_MESSAGE(bad == 0, std::string(f.id)
                                << " `" << std::string(f.text) << "`: " << bad << " of "
                                << sim.size() << " results differ" << report);
  }
  MESSAGE(recs.size() << " forms compared, " << total_bad << " exact results differ");
}

} // namespace

TEST_CASE("every device-check form decodes and runs on the simulator") {
  std::uint32_t seed = 0;
  for (const Form& f : forms) {
    INFO(std::string(f.id));
    auto out = simulate(f, dev::inputs(f.kind, f.gen, seed++));
    CHECK(out.size() == dev::inputs_per_form);
  }
  for (std::span<const Form> table :
       {std::span<const Form>(math_forms), std::span<const Form>(int_forms)}) {
    seed = 0;
    for (const Form& f : table) {
      INFO(std::string(f.id));
      auto out = simulate(f, dev::inputs(f.kind, f.gen, seed++));
      CHECK(out.size() == dev::inputs_per_form);
    }
  }
}

TEST_CASE("the simulator computes what the GPU computed, bit for bit") {
  compare(forms, std::size(forms), results_path("PTXGEN_SIM_ARITH_RESULTS", "h200.bin"));
}

TEST_CASE("the kernel math: cvt packing and rounded rcp/sqrt bit for bit, .approx within bounds") {
  compare(math_forms, std::size(math_forms),
          results_path("PTXGEN_SIM_MATH_RESULTS", "h200_kernel_math.bin"));
}

TEST_CASE("the int8 / int16 forms (dp4a, dp2a, 16x2 SIMD, .relu) bit for bit") {
  compare(int_forms, std::size(int_forms),
          results_path("PTXGEN_SIM_INT_RESULTS", "h200_int_forms.bin"));
}

} // namespace unit_sim_arith_device
