// The validator: each rule of PTX_RULES.md accepted and rejected, with the message it gives.

#include "emitter/ptx/validator.hpp"

#include <string>

#include <doctest/doctest.h>

using namespace ptxgen::ptx;

namespace {

const Register r1{RegClass::b32, 1}, r2{RegClass::b32, 2};
const Register rd1{RegClass::b64, 1}, rd2{RegClass::b64, 2};
const Register p1{RegClass::pred, 1};
const Register rs1{RegClass::b16, 1};
const Register f1{RegClass::f32, 1};
constexpr Target sm80{80, false};
constexpr PtxVersion v80{8, 0};

CpAsync copy(CacheOp c = CacheOp::cg, std::uint32_t size = 16) {
  CpAsync cp;
  cp.opcode.cache_op = c;
  cp.dst = Address{r1, 0};
  cp.src = Address{rd1, 0};
  cp.cp_size = size;
  return cp;
}

std::string messages(const Instruction& i, Target t = sm80, PtxVersion v = v80) {
  std::string all;
  const auto diags = validate(i, t, v);
  for (const auto& d : diags.items())
    all += d.message + "\n";
  return all;
}

bool ok(const InstructionBody& b, Target t = sm80, PtxVersion v = v80) {
  return messages(Instruction{std::nullopt, b, ""}, t, v).empty();
}

// True when validation fails with a message containing `fragment`.
bool rejects(const InstructionBody& b, const std::string& fragment, Target t = sm80,
             PtxVersion v = v80) {
  std::string m = messages(Instruction{std::nullopt, b, ""}, t, v);
  INFO("messages: " << m);
  return m.find(fragment) != std::string::npos;
}

} // namespace

TEST_CASE("cp-size per cache operator") {
  CHECK(ok(copy(CacheOp::cg, 16)));
  CHECK(rejects(copy(CacheOp::cg, 8), "`.cg` copies exactly 16 bytes; chunk_bytes is 8"));
  CHECK(rejects(copy(CacheOp::cg, 4), "`.cg` copies exactly 16 bytes; chunk_bytes is 4"));
  for (std::uint32_t s : {4u, 8u, 16u})
    CHECK(ok(copy(CacheOp::ca, s)));
  for (std::uint32_t s : {0u, 1u, 2u, 12u, 32u})
    CHECK(rejects(copy(CacheOp::ca, s),
                  "`.ca` copies 4, 8 or 16 bytes; chunk_bytes is " + std::to_string(s)));
}

TEST_CASE("src-size: immediate range, register class") {
  auto c = copy(CacheOp::ca, 8);
  for (std::uint32_t n = 0; n <= 8; ++n) {
    c.zero_fill = SrcSize{n};
    CHECK(ok(c));
  }
  c.zero_fill = SrcSize{9u};
  CHECK(rejects(c, "src-size immediate must be in 0..8; it is 9"));
  auto g = copy();
  g.zero_fill = SrcSize{17u};
  CHECK(rejects(g, "src-size immediate must be in 0..16; it is 17"));
  g.zero_fill = SrcSize{r2};
  CHECK(ok(g));
  for (Register bad : {rd2, p1, rs1, f1}) {
    g.zero_fill = SrcSize{bad};
    CHECK(rejects(g, "src-size register must be a 32-bit (.b32/.u32) register"));
  }
}

TEST_CASE("ignore-src: a predicate, from PTX 7.5") {
  auto c = copy();
  c.zero_fill = IgnoreSrc{p1, false};
  CHECK(ok(c));
  c.zero_fill = IgnoreSrc{p1, true};
  CHECK(ok(c));
  CHECK(ok(c, sm80, {7, 5}));
  CHECK(rejects(c, "the ignore-src operand requires PTX ISA 7.5 or later; the .version is 7.4",
                sm80, {7, 4}));
  c.zero_fill = IgnoreSrc{r2, false};
  CHECK(rejects(c, "ignore-src must be a predicate register"));
}

TEST_CASE("cache hint and cache-policy operand") {
  auto c = copy();
  c.opcode.cache_hint = true;
  CHECK(rejects(c, "`.L2::cache_hint` requires a 64-bit cache-policy operand"));
  c.cache_policy = rd2;
  CHECK(ok(c));
  c.cache_policy = Immediate{12345};
  CHECK(ok(c));
  c.cache_policy = r2;
  CHECK(rejects(c, "the cache-policy operand must be a 64-bit (.b64) register"));
  c.cache_policy = rd2;
  CHECK(rejects(c, "`.L2::cache_hint` requires PTX ISA 7.4 or later; the .version is 7.3", sm80,
                {7, 3}));
  auto d = copy();
  d.cache_policy = rd2;
  CHECK(rejects(d, "a cache-policy operand requires `.L2::cache_hint` in the opcode"));
  // The hint with each zero-fill form and its policy: all valid.
  c.zero_fill = SrcSize{8u};
  CHECK(ok(c));
  c.zero_fill = IgnoreSrc{p1, false};
  CHECK(ok(c));
}

TEST_CASE("prefetch needs PTX 7.4") {
  auto c = copy();
  c.opcode.prefetch = L2Prefetch::b128;
  CHECK(ok(c, sm80, {7, 4}));
  CHECK(rejects(c, "prefetch requires PTX ISA 7.4 or later; the .version is 7.0", sm80, {7, 0}));
}

TEST_CASE(".shared::cta: ptxgen follows the manual (7.8)") {
  auto c = copy();
  c.opcode.dst_space = SharedSpace::shared_cta;
  CHECK(ok(c, sm80, {7, 8}));
  CHECK(rejects(c, "`.shared::cta` requires PTX ISA 7.8 or later; the .version is 7.7", sm80,
                {7, 7}));
  CHECK(rejects(c, "ptxgen follows the PTX ISA manual", sm80, {7, 0}));
  CHECK(rejects(c, "ptxas 13.0 accepts it", sm80, {7, 0}));
}

TEST_CASE("targets below sm_80 have no cp.async") {
  CHECK(rejects(copy(), "cp.async requires sm_80 or later; the target is sm_75", {75, false},
                {7, 0}));
  CHECK(rejects(CpAsyncCommitGroup{}, "requires sm_80", {75, false}, {7, 0}));
  CHECK(rejects(CpAsyncWaitAll{}, "requires sm_80", {75, false}, {7, 0}));
  CHECK(rejects(CpAsyncWaitGroup{0}, "requires sm_80", {75, false}, {7, 0}));
  CHECK(rejects(CreatePolicyFractional{rd1}, "requires sm_80", {75, false}, {7, 4}));
  CHECK(ok(copy(), {90, false}, {7, 8}));
}

TEST_CASE("addresses") {
  auto c = copy();
  c.dst = Address{Symbol{"smem"}, 16};
  CHECK(ok(c));
  c.dst = Address{Symbol{"smem"}, -16};
  CHECK(ok(c));
  c.dst = Address{rd2, 32}; // a 64-bit shared address: ptxas accepts it
  CHECK(ok(c));
  c.dst = Address{p1, 0};
  CHECK(rejects(c, "cp.async's destination (shared) address register must be a 32- or 64-bit"));
  c = copy();
  c.src = Address{r2, 0};
  CHECK(rejects(c, "cp.async's source (global) address register must be a 64-bit (.b64)"));
  c.src = Address{Symbol{"A"}, 0};
  CHECK(rejects(c, "`A` is not a .global variable"));
}

TEST_CASE("guards") {
  Instruction i{Guard{p1, true}, copy(), ""};
  CHECK(messages(i).empty());
  i.guard = Guard{r1, false};
  CHECK(messages(i).find("a guard must be a predicate register") != std::string::npos);
}

TEST_CASE("wait_group bounds (stricter than ptxas)") {
  CHECK(ok(CpAsyncWaitGroup{0}));
  CHECK(ok(CpAsyncWaitGroup{max_wait_group}));
  CHECK(rejects(CpAsyncWaitGroup{-1}, "wait_group N must be in 0..255; it is -1"));
  CHECK(rejects(CpAsyncWaitGroup{256}, "ptxgen is stricter than ptxas"));
  CHECK(ok(CpAsyncCommitGroup{}));
  CHECK(ok(CpAsyncWaitAll{}));
}

TEST_CASE("mbarrier.arrive") {
  CpAsyncMbarrierArrive m{false, std::nullopt, Address{rd1, 0}};
  CHECK(ok(m));
  m.space = SharedSpace::shared;
  m.address = Address{r1, 8};
  CHECK(ok(m, sm80, {7, 0}));
  m.noinc = true;
  m.space = SharedSpace::shared_cta;
  CHECK(ok(m, sm80, {7, 8}));
  CHECK(rejects(m, "`.shared::cta` requires PTX ISA 7.8", sm80, {7, 7}));
  m.space = SharedSpace::shared;
  m.address = Address{p1, 0};
  CHECK(rejects(m, "address register must be a 32- or 64-bit"));
}

TEST_CASE("createpolicy.fractional") {
  CreatePolicyFractional p{rd1, EvictionPriority::evict_last, std::nullopt, 1.0f};
  CHECK(ok(p, sm80, {7, 4}));
  CHECK(rejects(p, "createpolicy.fractional requires PTX ISA 7.4 or later; the .version is 7.3",
                sm80, {7, 3}));
  p.secondary = EvictionPriority::evict_unchanged;
  p.fraction = 0.5f;
  CHECK(ok(p));
  p.secondary = EvictionPriority::evict_first;
  CHECK(ok(p));
  p.secondary = EvictionPriority::evict_normal;
  CHECK(rejects(p, "secondary priority must be `.L2::evict_first` or `.L2::evict_unchanged`"));
  p.secondary.reset();
  p.fraction = 0.0f;
  CHECK(rejects(p, "fraction must be in (0, 1]"));
  p.fraction = 1.5f;
  CHECK(rejects(p, "fraction must be in (0, 1]"));
  p.fraction = 1.0f;
  p.dst = r1;
  CHECK(rejects(p, "createpolicy's destination must be a 64-bit (.b64) register"));
}

TEST_CASE("target and version") {
  CHECK(validate_target_version({80, false}, {7, 0}).empty());
  CHECK(validate_target_version({90, true}, {8, 0}).empty());
  auto d = validate_target_version({90, false}, {7, 7});
  REQUIRE(d.items().size() == 1);
  CHECK(d.items()[0].message == "sm_90 requires PTX ISA 7.8 or later; the .version is 7.7");
  CHECK(validate_target_version({120, false}, {8, 6}).has_errors());
  CHECK(validate_target_version({70, false}, {7, 0}).has_errors());
  CHECK(validate_target_version({80, false}, {7, 9}).has_errors());
  CHECK(validate_target_version({80, false}, {9, 1}).has_errors());
}

TEST_CASE("plain instructions: light type checks") {
  CHECK(ok(Mov{ScalarType::u32, r1, Symbol{"smem"}}));
  CHECK(ok(Mov{ScalarType::u32, r1, SpecialRegister::tid_x}));
  CHECK(rejects(Mov{ScalarType::u64, r1, Immediate{0}}, "%r1 (.b32) cannot hold a .u64"));
  CHECK(rejects(Mov{ScalarType::u32, r1, rd1}, "%rd1 (.b64) cannot hold a .u32"));
  CHECK(ok(Ld{StateSpace::param, ScalarType::u64, {rd1}, Address{Symbol{"A"}, 0}}));
  CHECK(ok(Ld{StateSpace::shared, ScalarType::u32, {r1, r2}, Address{r1, 0}}));
  CHECK(rejects(Ld{StateSpace::global, ScalarType::u32, {r1, r2, r1}, Address{rd1, 0}},
                "1, 2 or 4 values"));
  CHECK(rejects(Ld{StateSpace::global, ScalarType::u32, {r1}, Address{r1, 0}},
                "must be a 64-bit (.b64) register"));
  CHECK(ok(St{StateSpace::global, ScalarType::u32, Address{rd1, 4}, {Operand{r1}}}));
  CHECK(ok(Cvta{StateSpace::global, ScalarType::u64, rd2, rd1}));
  CHECK(ok(Binary{BinaryOp::mul_wide, ScalarType::u32, rd1, r1, Immediate{4}}));
  CHECK(rejects(Binary{BinaryOp::mul_wide, ScalarType::u32, r2, r1, Immediate{4}},
                "cannot hold a .u64"));
  CHECK(rejects(Binary{BinaryOp::shl, ScalarType::u32, r2, r1, Immediate{4}},
                "shl needs a .bN type"));
  CHECK(ok(Binary{BinaryOp::and_, ScalarType::pred, p1, p1, p1}));
  CHECK(rejects(Binary{BinaryOp::and_, ScalarType::u32, r1, r1, r1}, "and/or/xor need"));
  CHECK(ok(Mad{true, ScalarType::u32, rd2, r1, r2, rd1}));
  CHECK(ok(Cvt{ScalarType::u64, ScalarType::u32, rd1, r1}));
  CHECK(ok(Cvt{ScalarType::u64, ScalarType::u32, rd1, SpecialRegister::tid_x}));
  CHECK(rejects(Binary{BinaryOp::add, ScalarType::u32, r1, SpecialRegister::tid_x, Immediate{1}},
                "special registers only in mov and cvt"));
  CHECK(rejects(Setp{CompareOp::lt, ScalarType::u32, p1, SpecialRegister::laneid, Immediate{1}},
                "special registers only in mov and cvt"));
  CHECK(ok(Setp{CompareOp::lt, ScalarType::u32, p1, r1, Immediate{100}}));
  CHECK(rejects(Setp{CompareOp::lt, ScalarType::u32, r2, r1, Immediate{100}},
                "setp's destination must be a predicate"));
  CHECK(ok(Selp{ScalarType::u32, r2, Immediate{16}, Immediate{0}, p1}));
  CHECK(rejects(Selp{ScalarType::u32, r2, Immediate{16}, Immediate{0}, r1},
                "selp's selector must be a predicate"));
  CHECK(ok(BarSync{0}));
  CHECK(rejects(BarSync{16}, "0..15"));
  CHECK(ok(Ret{}));
}

TEST_CASE("module validation and required_version") {
  Module m;
  m.target = {80, false};
  Entry e;
  e.name = "k";
  e.params.push_back({"A", ScalarType::u64});
  e.shared.push_back({"smem", 128, 512});
  Register d = e.registers.make(RegClass::b32);
  Register s = e.registers.make(RegClass::b64);
  e.body.push_back({std::nullopt, Mov{ScalarType::u32, d, Symbol{"smem"}}, ""});
  e.body.push_back(
      {std::nullopt, Ld{StateSpace::param, ScalarType::u64, {s}, Address{Symbol{"A"}, 0}}, ""});
  CpAsync cp;
  cp.opcode.cache_op = CacheOp::cg;
  cp.dst = Address{d, 0};
  cp.src = Address{s, 0};
  e.body.push_back({std::nullopt, cp, ""});
  e.body.push_back({std::nullopt, Ret{}, ""});
  m.entries.push_back(e);
  CHECK(validate(m).empty());
  CHECK(required_version(m) == PtxVersion{7, 0});

  m.target = {90, false};
  CHECK(required_version(m) == PtxVersion{7, 8});
  m.target = {80, false};
  std::get<CpAsync>(m.entries[0].body[2].body).opcode.prefetch = L2Prefetch::b64;
  CHECK(required_version(m) == PtxVersion{7, 4});
  std::get<CpAsync>(m.entries[0].body[2].body).opcode.dst_space = SharedSpace::shared_cta;
  CHECK(required_version(m) == PtxVersion{7, 8});
  CHECK(validate(m).empty());
  m.version = PtxVersion{7, 4};
  CHECK(validate(m).has_errors());
  m.version.reset();

  // A register the file never handed out, and a symbol that is not declared.
  m.entries[0].body.push_back(
      {std::nullopt, Mov{ScalarType::u32, Register{RegClass::b32, 7}, Symbol{"nope"}}, ""});
  std::string all = validate(m).format_all();
  CHECK(all.find("%r7, which the register file never handed out") != std::string::npos);
  CHECK(all.find("`nope` is not a parameter or shared array") != std::string::npos);
}
