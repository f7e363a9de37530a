// The printer: instructions and a whole module against hand-written PTX.

#include "emitter/ptx/printer.hpp"

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_ptx_printer {

using namespace ptxgen::ptx;

namespace {
const Register r1{RegClass::b32, 1}, r2{RegClass::b32, 2}, r3{RegClass::b32, 3},
    r4{RegClass::b32, 4};
const Register rd1{RegClass::b64, 1}, rd2{RegClass::b64, 2};
const Register p1{RegClass::pred, 1};

std::string p(InstructionBody b, std::optional<Guard> g = std::nullopt, std::string c = "") {
  return print(Instruction{g, std::move(b), std::move(c)});
}

CpAsync copy(CpAsyncOpcode op, std::int64_t dst_offset = 0) {
  CpAsync cp;
  cp.opcode = op;
  cp.dst = Address{r1, dst_offset};
  cp.src = Address{rd1, 0};
  return cp;
}
} // namespace

TEST_CASE("cp.async operand tails") {
  CpAsyncOpcode cg{CacheOp::cg, SharedSpace::shared, false, L2Prefetch::none};
  CHECK(p(copy(cg)) == "cp.async.cg.shared.global [%r1], [%rd1], 16;");
  CHECK(p(copy(cg, 32)) == "cp.async.cg.shared.global [%r1+32], [%rd1], 16;");
  CHECK(p(copy(cg, -16)) == "cp.async.cg.shared.global [%r1+-16], [%rd1], 16;");

  auto c = copy({CacheOp::cg, SharedSpace::shared, false, L2Prefetch::b128});
  c.zero_fill = SrcSize{r2};
  CHECK(p(c) == "cp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16, %r2;");
  c.zero_fill = SrcSize{8u};
  CHECK(p(c, Guard{p1, false}) == "@%p1 cp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16, 8;");
  c.zero_fill = IgnoreSrc{p1, true};
  CHECK(p(c, Guard{p1, true}) ==
        "@!%p1 cp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16, !%p1;");

  auto a = copy({CacheOp::ca, SharedSpace::shared_cta, true, L2Prefetch::b256});
  a.cp_size = 4;
  a.dst = Address{Symbol{"smem"}, 64};
  a.cache_policy = rd2;
  CHECK(p(a) ==
        "cp.async.ca.shared::cta.global.L2::cache_hint.L2::256B [smem+64], [%rd1], 4, %rd2;");
  // The hint trap: src-size and the policy are both printed, policy last.
  a.zero_fill = SrcSize{2u};
  CHECK(p(a) ==
        "cp.async.ca.shared::cta.global.L2::cache_hint.L2::256B [smem+64], [%rd1], 4, 2, %rd2;");
  a.cache_policy = Immediate{7};
  CHECK(p(a, std::nullopt, "row 3") == "cp.async.ca.shared::cta.global.L2::cache_hint.L2::256B "
                                       "[smem+64], [%rd1], 4, 2, 7; // row 3");
  // Never drop the policy slot, even on an AST that was not validated.
  a.cache_policy.reset();
  CHECK(p(a).find("4, 2, ?missing_cache_policy;") != std::string::npos);
}

TEST_CASE("the rest of the cp.async family and createpolicy") {
  CHECK(p(CpAsyncCommitGroup{}) == "cp.async.commit_group;");
  CHECK(p(CpAsyncWaitGroup{3}) == "cp.async.wait_group 3;");
  CHECK(p(CpAsyncWaitAll{}) == "cp.async.wait_all;");
  CHECK(p(CpAsyncMbarrierArrive{false, std::nullopt, Address{rd1, 0}}) ==
        "cp.async.mbarrier.arrive.b64 [%rd1];");
  CHECK(p(CpAsyncMbarrierArrive{true, SharedSpace::shared_cta, Address{Symbol{"bar"}, 8}}) ==
        "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar+8];");
  CHECK(p(CpAsyncMbarrierArrive{false, SharedSpace::shared, Address{r1, 0}}) ==
        "cp.async.mbarrier.arrive.shared.b64 [%r1];");
  CHECK(p(CreatePolicyFractional{rd1, EvictionPriority::evict_last, std::nullopt, 1.0f}) ==
        "createpolicy.fractional.L2::evict_last.b64 %rd1;");
  // 0.5f is 0x3F000000; 0.25f is 0x3E800000.
  CHECK(p(CreatePolicyFractional{rd1, EvictionPriority::evict_last,
                                 EvictionPriority::evict_unchanged, 0.5f}) ==
        "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd1, 0f3F000000;");
  CHECK(p(CreatePolicyFractional{rd2, EvictionPriority::evict_first, std::nullopt, 0.25f}) ==
        "createpolicy.fractional.L2::evict_first.b64 %rd2, 0f3E800000;");
}

TEST_CASE("plain instructions") {
  CHECK(p(Mov{ScalarType::u32, r1, Symbol{"smem"}}) == "mov.u32 %r1, smem;");
  CHECK(p(Mov{ScalarType::u32, r2, SpecialRegister::tid_x}) == "mov.u32 %r2, %tid.x;");
  CHECK(p(Mov{ScalarType::u32, r2, Immediate{-5}}) == "mov.u32 %r2, -5;");
  CHECK(p(Cvta{StateSpace::global, ScalarType::u64, rd2, rd1}) == "cvta.to.global.u64 %rd2, %rd1;");
  CHECK(p(Ld{StateSpace::param, ScalarType::u64, {rd1}, Address{Symbol{"A"}, 0}}) ==
        "ld.param.u64 %rd1, [A];");
  CHECK(p(Ld{StateSpace::shared, ScalarType::u32, {r1, r2}, Address{r3, 8}}) ==
        "ld.shared.v2.u32 {%r1, %r2}, [%r3+8];");
  CHECK(p(St{StateSpace::global,
             ScalarType::b32,
             Address{rd1, -4},
             {Operand{r1}, Operand{r2}, Operand{r3}, Operand{r4}}}) ==
        "st.global.v4.b32 [%rd1+-4], {%r1, %r2, %r3, %r4};");
  CHECK(p(St{StateSpace::shared,
             ScalarType::u32,
             Address{Symbol{"smem"}, 0},
             {Operand{Immediate{0}}}}) == "st.shared.u32 [smem], 0;");
  CHECK(p(Unary{UnaryOp::not_, ScalarType::pred, p1, p1}) == "not.pred %p1, %p1;");
  CHECK(p(Unary{UnaryOp::neg, ScalarType::s32, r1, r2}) == "neg.s32 %r1, %r2;");

  struct B {
    BinaryOp op;
    ScalarType t;
    const char* text;
  };
  const B binaries[] = {
      {BinaryOp::add, ScalarType::u32, "add.u32 %r1, %r2, 4;"},
      {BinaryOp::sub, ScalarType::s32, "sub.s32 %r1, %r2, 4;"},
      {BinaryOp::mul_lo, ScalarType::u32, "mul.lo.u32 %r1, %r2, 4;"},
      {BinaryOp::div, ScalarType::u32, "div.u32 %r1, %r2, 4;"},
      {BinaryOp::rem, ScalarType::u32, "rem.u32 %r1, %r2, 4;"},
      {BinaryOp::min, ScalarType::u32, "min.u32 %r1, %r2, 4;"},
      {BinaryOp::max, ScalarType::s32, "max.s32 %r1, %r2, 4;"},
      {BinaryOp::shl, ScalarType::b32, "shl.b32 %r1, %r2, 4;"},
      {BinaryOp::shr, ScalarType::u32, "shr.u32 %r1, %r2, 4;"},
      {BinaryOp::and_, ScalarType::b32, "and.b32 %r1, %r2, 4;"},
      {BinaryOp::or_, ScalarType::b32, "or.b32 %r1, %r2, 4;"},
      {BinaryOp::xor_, ScalarType::b32, "xor.b32 %r1, %r2, 4;"},
  };
  for (const auto& b : binaries)
    CHECK(p(Binary{b.op, b.t, r1, r2, Immediate{4}}) == b.text);
  CHECK(p(Binary{BinaryOp::mul_wide, ScalarType::u32, rd1, r1, Immediate{16}}) ==
        "mul.wide.u32 %rd1, %r1, 16;");
  CHECK(p(Binary{BinaryOp::and_, ScalarType::pred, p1, p1, p1}) == "and.pred %p1, %p1, %p1;");
  CHECK(p(Mad{false, ScalarType::u32, r1, r2, Immediate{3}, r3}) == "mad.lo.u32 %r1, %r2, 3, %r3;");
  CHECK(p(Mad{true, ScalarType::u32, rd2, r2, Immediate{3}, rd1}) ==
        "mad.wide.u32 %rd2, %r2, 3, %rd1;");
  CHECK(p(Cvt{ScalarType::u64, ScalarType::u32, rd1, r1}) == "cvt.u64.u32 %rd1, %r1;");
  CHECK(p(Setp{CompareOp::lt, ScalarType::u32, p1, r1, Immediate{100}}) ==
        "setp.lt.u32 %p1, %r1, 100;");
  CHECK(p(Selp{ScalarType::u32, r2, Immediate{16}, Immediate{0}, p1}) ==
        "selp.u32 %r2, 16, 0, %p1;");
  CHECK(p(BarSync{0}) == "bar.sync 0;");
  CHECK(p(Ret{}) == "ret;");
}

TEST_CASE("a whole module") {
  Module m;
  m.header_comments = {"generated by a test", ""};
  m.target = {90, false};
  Entry e;
  e.name = "copy_async";
  e.params = {{"A", ScalarType::u64}, {"B", ScalarType::u64}};
  e.shared = {{"smem", 128, 8192}};
  e.reqntid = std::array<std::uint32_t, 3>{128, 1, 1};
  Register d = e.registers.make(RegClass::b32);
  Register s = e.registers.make(RegClass::b64);
  Register q = e.registers.make(RegClass::pred);
  e.body.push_back({std::nullopt, Mov{ScalarType::u32, d, Symbol{"smem"}}, ""});
  e.body.push_back(
      {std::nullopt, Ld{StateSpace::param, ScalarType::u64, {s}, Address{Symbol{"A"}, 0}}, ""});
  e.body.push_back({std::nullopt,
                    Setp{CompareOp::lt, ScalarType::u32, q, SpecialRegister::tid_x, Immediate{100}},
                    ""});
  CpAsync cp;
  cp.opcode = {CacheOp::cg, SharedSpace::shared, false, L2Prefetch::none};
  cp.dst = Address{d, 0};
  cp.src = Address{s, 0};
  e.body.push_back({Guard{q, false}, cp, ""});
  e.body.push_back({std::nullopt, CpAsyncCommitGroup{}, ""});
  e.body.push_back({std::nullopt, CpAsyncWaitGroup{0}, ""});
  e.body.push_back({std::nullopt, Ret{}, ""});
  m.entries.push_back(e);

  const std::string expected = "// generated by a test\n"
                               "//\n"
                               ".version 7.8\n"
                               ".target sm_90\n"
                               ".address_size 64\n"
                               "\n"
                               ".visible .entry copy_async(\n"
                               "\t.param .u64 A,\n"
                               "\t.param .u64 B\n"
                               ")\n"
                               ".reqntid 128\n"
                               "{\n"
                               "\t.reg .pred %p<2>;\n"
                               "\t.reg .b32 %r<2>;\n"
                               "\t.reg .b64 %rd<2>;\n"
                               "\t.shared .align 128 .b8 smem[8192];\n"
                               "\n"
                               "\tmov.u32 %r1, smem;\n"
                               "\tld.param.u64 %rd1, [A];\n"
                               "\tsetp.lt.u32 %p1, %tid.x, 100;\n"
                               "\t@%p1 cp.async.cg.shared.global [%r1], [%rd1], 16;\n"
                               "\tcp.async.commit_group;\n"
                               "\tcp.async.wait_group 0;\n"
                               "\tret;\n"
                               "}\n";
  CHECK(print(m) == expected);

  // An explicit version wins; an entry without parameters prints `()`.
  m.version = PtxVersion{8, 0};
  m.entries[0].params.clear();
  m.entries[0].reqntid = std::array<std::uint32_t, 3>{8, 4, 2}; // a 3-D block states all three
  CHECK(print(m).find(")\n.reqntid 8, 4, 2\n{") != std::string::npos);
  m.entries[0].reqntid.reset();
  const std::string out = print(m);
  CHECK(out.find(".version 8.0\n") != std::string::npos);
  CHECK(out.find(".visible .entry copy_async()\n{\n") != std::string::npos);
}

TEST_CASE("names of types, spaces and registers") {
  CHECK(name(ScalarType::u32) == "u32");
  CHECK(name(ScalarType::pred) == "pred");
  CHECK(parse_scalar_type("f16") == ScalarType::f16);
  CHECK_FALSE(parse_scalar_type("u128"));
  CHECK(bit_width(ScalarType::pred) == 1);
  CHECK(bit_width(ScalarType::s8) == 8);
  CHECK(bit_width(ScalarType::f64) == 64);
  CHECK(name(StateSpace::shared_cta) == "shared::cta");
  CHECK(to_string(Register{RegClass::b16, 3}) == "%rs3");
  CHECK(to_string(Register{RegClass::f32, 2}) == "%f2");
  CHECK(reg_class_for(ScalarType::s64) == RegClass::b64);
  CHECK(reg_class_for(ScalarType::u8) == RegClass::b16);
  CHECK(reg_class_for(ScalarType::f32) == RegClass::f32);
  CHECK(declared_type(RegClass::b64) == ScalarType::b64);
  CHECK(name(SpecialRegister::ctaid_x) == "%ctaid.x");
  CHECK(to_string(Address{Symbol{"smem"}, 0}) == "[smem]");
}

TEST_CASE("every type and special register name parses back to its value") {
  for (std::size_t k = 0; k <= static_cast<std::size_t>(ScalarType::f64); ++k) {
    const auto t = static_cast<ScalarType>(k);
    CHECK(parse_scalar_type(name(t)) == t);
  }
  for (std::size_t k = 0; k < special_register_count; ++k) {
    const auto r = static_cast<SpecialRegister>(k);
    CHECK(parse_special_register(name(r)) == r);
  }
  CHECK(name(SpecialRegister::reserved_smem_begin) == "%reserved_smem_offset_begin");
  CHECK(name(SpecialRegister::nwarpid) == "%nwarpid");
  CHECK_FALSE(parse_special_register("%tid"));
}

TEST_CASE("what each type's bits hold, and the type mul.wide makes of it") {
  CHECK(family(ScalarType::pred) == TypeFamily::pred);
  CHECK(family(ScalarType::b16) == TypeFamily::bits);
  CHECK(family(ScalarType::u64) == TypeFamily::unsigned_);
  CHECK(family(ScalarType::s8) == TypeFamily::signed_);
  CHECK(family(ScalarType::f16) == TypeFamily::float_);
  CHECK(bit_width(ScalarType::f16) == 16);
  CHECK(bit_width(ScalarType::b32) == 32);
  CHECK(widened(ScalarType::u16) == ScalarType::u32);
  CHECK(widened(ScalarType::s32) == ScalarType::s64);
  CHECK(widened(ScalarType::u64) == ScalarType::u64);
  CHECK(widened(ScalarType::b32) == ScalarType::b32);
  CHECK(declared_type(RegClass::pred) == ScalarType::pred);
  CHECK(declared_type(RegClass::f32) == ScalarType::f32);
  CHECK(to_string(Register{RegClass::pred, 1}) == "%p1");
  CHECK(to_string(Register{RegClass::b64, 7}) == "%rd7");
}

} // namespace unit_ptx_printer
