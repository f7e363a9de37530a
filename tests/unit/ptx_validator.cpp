// The validator: each rule of docs/ptx-rules.md accepted and rejected, with the message it gives.

#include "emitter/ptx/validator.hpp"

#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_ptx_validator {

using namespace ptxgen::ptx;
using ptxgen::DiagId;
using ptxgen::Diagnostics;

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

Diagnostics diags(const Instruction& i, Target t = sm80, PtxVersion v = v80) {
  return validate(i, t, v);
}

bool ok(const InstructionBody& b, Target t = sm80, PtxVersion v = v80) {
  const Diagnostics d = diags(Instruction{std::nullopt, b, ""}, t, v);
  INFO("diagnostics: " << d.format_all());
  return d.empty();
}

// True when validation fails with a diagnostic of this ID.
bool rejects(const InstructionBody& b, DiagId id, Target t = sm80, PtxVersion v = v80) {
  const Diagnostics d = diags(Instruction{std::nullopt, b, ""}, t, v);
  INFO("diagnostics: " << d.format_all());
  return d.has(id);
}

} // namespace

TEST_CASE("cp-size per cache operator") {
  CHECK(ok(copy(CacheOp::cg, 16)));
  CHECK(rejects(copy(CacheOp::cg, 8), DiagId::ptx_cg_size));
  CHECK(rejects(copy(CacheOp::cg, 4), DiagId::ptx_cg_size));
  for (std::uint32_t s : {4u, 8u, 16u})
    CHECK(ok(copy(CacheOp::ca, s)));
  for (std::uint32_t s : {0u, 1u, 2u, 12u, 32u})
    CHECK(rejects(copy(CacheOp::ca, s), DiagId::ptx_ca_size));
}

TEST_CASE("src-size: immediate range, register class") {
  auto c = copy(CacheOp::ca, 8);
  for (std::uint32_t n = 0; n <= 8; ++n) {
    c.zero_fill = SrcSize{n};
    CHECK(ok(c));
  }
  c.zero_fill = SrcSize{9u};
  CHECK(rejects(c, DiagId::ptx_src_size_range));
  auto g = copy();
  g.zero_fill = SrcSize{17u};
  CHECK(rejects(g, DiagId::ptx_src_size_range));
  g.zero_fill = SrcSize{r2};
  CHECK(ok(g));
  for (Register bad : {rd2, p1, rs1, f1}) {
    g.zero_fill = SrcSize{bad};
    CHECK(rejects(g, DiagId::ptx_register_class));
  }
}

TEST_CASE("ignore-src: a predicate, from PTX 7.5") {
  auto c = copy();
  c.zero_fill = IgnoreSrc{p1, false};
  CHECK(ok(c));
  c.zero_fill = IgnoreSrc{p1, true};
  CHECK(ok(c));
  CHECK(ok(c, sm80, {7, 5}));
  CHECK(rejects(c, DiagId::ptx_feature_version, sm80, {7, 4}));
  c.zero_fill = IgnoreSrc{r2, false};
  CHECK(rejects(c, DiagId::ptx_register_class));
}

TEST_CASE("cache hint and cache-policy operand") {
  auto c = copy();
  c.opcode.cache_hint = true;
  CHECK(rejects(c, DiagId::ptx_cache_hint_without_policy));
  c.cache_policy = rd2;
  CHECK(ok(c));
  c.cache_policy = Immediate{12345};
  CHECK(ok(c));
  c.cache_policy = r2;
  CHECK(rejects(c, DiagId::ptx_register_class));
  c.cache_policy = rd2;
  CHECK(rejects(c, DiagId::ptx_feature_version, sm80, {7, 3}));
  auto d = copy();
  d.cache_policy = rd2;
  CHECK(rejects(d, DiagId::ptx_policy_without_cache_hint));
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
  CHECK(rejects(c, DiagId::ptx_feature_version, sm80, {7, 0}));
}

TEST_CASE(".shared::cta: ptxgen follows the manual (7.8)") {
  auto c = copy();
  c.opcode.dst_space = SharedSpace::shared_cta;
  CHECK(ok(c, sm80, {7, 8}));
  CHECK(rejects(c, DiagId::ptx_feature_version, sm80, {7, 7}));
  CHECK(rejects(c, DiagId::ptx_feature_version, sm80, {7, 0}));
  // The caret of `ptxgen instr` goes on the qualifier the row names.
  auto found = check({std::nullopt, c, ""}, sm80, {7, 7});
  REQUIRE(found.size() == 1);
  CHECK(found[0].part == OpcodePart::dst_space);
}

TEST_CASE("targets below sm_80 have no cp.async") {
  CHECK(rejects(copy(), DiagId::ptx_feature_target, {75, false}, {7, 0}));
  CHECK(rejects(CpAsyncCommitGroup{}, DiagId::ptx_feature_target, {75, false}, {7, 0}));
  CHECK(rejects(CpAsyncWaitAll{}, DiagId::ptx_feature_target, {75, false}, {7, 0}));
  CHECK(rejects(CpAsyncWaitGroup{0}, DiagId::ptx_feature_target, {75, false}, {7, 0}));
  CHECK(rejects(CreatePolicyFractional{rd1}, DiagId::ptx_feature_target, {75, false}, {7, 4}));
  CHECK(ok(copy(), {90, false}, {7, 8}));
}

TEST_CASE("the target rule comes from the feature rows only, once per instruction") {
  // Five feature rows, all sm_80: one target message (no duplicate to hide), no other.
  auto c = copy();
  c.opcode = {CacheOp::cg, SharedSpace::shared_cta, true, L2Prefetch::b128};
  c.zero_fill = IgnoreSrc{p1, false};
  c.cache_policy = rd2;
  const Diagnostics d = diags({std::nullopt, c, ""}, {75, false}, {9, 0});
  REQUIRE(d.items().size() == 1);
  CHECK(d.items()[0].id == DiagId::ptx_feature_target);
  // Plain instructions use no row: they are valid on any target.
  CHECK(ok(Mov{ScalarType::u32, r1, Immediate{1}}, {75, false}, {7, 0}));
  CHECK(ok(BarSync{0}, {75, false}, {7, 0}));
}

TEST_CASE("findings name the opcode qualifier they concern") {
  auto parts = [](const CpAsync& c, PtxVersion v) {
    std::vector<OpcodePart> out;
    for (const Finding& f : check({std::nullopt, c, ""}, sm80, v))
      out.push_back(f.part);
    return out;
  };
  auto c = copy(CacheOp::cg, 8);
  CHECK(parts(c, v80) == std::vector<OpcodePart>{OpcodePart::cache_op});
  c = copy(CacheOp::ca, 2);
  CHECK(parts(c, v80) == std::vector<OpcodePart>{OpcodePart::cache_op});
  c = copy();
  c.opcode.cache_hint = true;
  CHECK(parts(c, v80) == std::vector<OpcodePart>{OpcodePart::cache_hint});
  c.cache_policy = rd2;
  c.opcode.prefetch = L2Prefetch::b64;
  CHECK(parts(c, {7, 3}) == std::vector<OpcodePart>{OpcodePart::cache_hint, OpcodePart::prefetch});
  c = copy();
  c.zero_fill = IgnoreSrc{p1, false};
  CHECK(parts(c, {7, 4}) == std::vector<OpcodePart>{OpcodePart::none});
  c = copy();
  c.cache_policy = rd2;
  CHECK(parts(c, v80) == std::vector<OpcodePart>{OpcodePart::none});
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
  CHECK(rejects(c, DiagId::ptx_address_register));
  c = copy();
  c.src = Address{r2, 0};
  CHECK(rejects(c, DiagId::ptx_address_register));
  c.src = Address{Symbol{"A"}, 0};
  CHECK(rejects(c, DiagId::ptx_address_symbol));
}

TEST_CASE("guards") {
  Instruction i{Guard{p1, true}, copy(), ""};
  CHECK(diags(i).empty());
  i.guard = Guard{r1, false};
  CHECK(diags(i).has(DiagId::ptx_register_class));
}

TEST_CASE("wait_group bounds (stricter than ptxas)") {
  CHECK(ok(CpAsyncWaitGroup{0}));
  CHECK(ok(CpAsyncWaitGroup{max_wait_group}));
  CHECK(rejects(CpAsyncWaitGroup{-1}, DiagId::ptx_wait_group_range));
  CHECK(max_wait_group == 64); // docs/design-notes.md: 0..64
  CHECK(ok(CpAsyncWaitGroup{64}));
  CHECK(rejects(CpAsyncWaitGroup{65}, DiagId::ptx_wait_group_range));
  CHECK(rejects(CpAsyncWaitGroup{256}, DiagId::ptx_wait_group_range));
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
  CHECK(rejects(m, DiagId::ptx_feature_version, sm80, {7, 7}));
  m.space = SharedSpace::shared;
  m.address = Address{p1, 0};
  CHECK(rejects(m, DiagId::ptx_address_register));
}

TEST_CASE("createpolicy.fractional") {
  CreatePolicyFractional p{rd1, EvictionPriority::evict_last, std::nullopt, 1.0f};
  CHECK(ok(p, sm80, {7, 4}));
  CHECK(rejects(p, DiagId::ptx_feature_version, sm80, {7, 3}));
  p.secondary = EvictionPriority::evict_unchanged;
  p.fraction = 0.5f;
  CHECK(ok(p));
  p.secondary = EvictionPriority::evict_first;
  CHECK(ok(p));
  p.secondary = EvictionPriority::evict_normal;
  CHECK(rejects(p, DiagId::ptx_createpolicy_secondary));
  p.secondary = EvictionPriority::evict_last;
  CHECK(rejects(p, DiagId::ptx_createpolicy_secondary));
  p.secondary.reset();
  p.fraction = 0.0f;
  CHECK(rejects(p, DiagId::ptx_createpolicy_fraction));
  p.fraction = 1.5f;
  CHECK(rejects(p, DiagId::ptx_createpolicy_fraction));
  p.fraction = 1.0f;
  p.dst = r1;
  CHECK(rejects(p, DiagId::ptx_register_class));
}

TEST_CASE("target and version") {
  CHECK(validate_target_version({80, false}, {7, 0}).empty());
  CHECK(validate_target_version({90, true}, {8, 0}).empty());
  auto d = validate_target_version({90, false}, {7, 7});
  REQUIRE(d.items().size() == 1);
  CHECK(d.items()[0].id == DiagId::ptx_target_version);
  CHECK(validate_target_version({120, false}, {8, 6}).has(DiagId::ptx_target_version));
  CHECK(validate_target_version({70, false}, {7, 0}).has(DiagId::ptx_unknown_target));
  CHECK(validate_target_version({80, false}, {7, 9}).has(DiagId::ptx_unknown_version));
  CHECK(validate_target_version({80, false}, {9, 1}).has(DiagId::ptx_unknown_version));
}

TEST_CASE("plain instructions: light type checks") {
  CHECK(ok(Mov{ScalarType::u32, r1, Symbol{"smem"}}));
  CHECK(ok(Mov{ScalarType::u32, r1, SpecialRegister::tid_x}));
  CHECK(rejects(Mov{ScalarType::u64, r1, Immediate{0}}, DiagId::ptx_register_class));
  CHECK(rejects(Mov{ScalarType::u32, r1, rd1}, DiagId::ptx_register_class));
  CHECK(ok(Ld{StateSpace::param, ScalarType::u64, {rd1}, Address{Symbol{"A"}, 0}}));
  CHECK(ok(Ld{StateSpace::shared, ScalarType::u32, {r1, r2}, Address{r1, 0}}));
  CHECK(rejects(Ld{StateSpace::global, ScalarType::u32, {r1, r2, r1}, Address{rd1, 0}},
                DiagId::ptx_vector_count));
  CHECK(rejects(Ld{StateSpace::global, ScalarType::u32, {r1}, Address{r1, 0}},
                DiagId::ptx_address_register));
  CHECK(ok(St{StateSpace::global, ScalarType::u32, Address{rd1, 4}, {Operand{r1}}}));
  CHECK(ok(Cvta{StateSpace::global, ScalarType::u64, rd2, rd1}));
  CHECK(ok(Binary{BinaryOp::mul_wide, ScalarType::u32, rd1, r1, Immediate{4}}));
  CHECK(rejects(Binary{BinaryOp::mul_wide, ScalarType::u32, r2, r1, Immediate{4}},
                DiagId::ptx_register_class));
  CHECK(rejects(Binary{BinaryOp::shl, ScalarType::u32, r2, r1, Immediate{4}},
                DiagId::ptx_instruction_type));
  CHECK(ok(Binary{BinaryOp::and_, ScalarType::pred, p1, p1, p1}));
  CHECK(rejects(Binary{BinaryOp::and_, ScalarType::u32, r1, r1, r1}, DiagId::ptx_instruction_type));
  CHECK(ok(Mad{true, ScalarType::u32, rd2, r1, r2, rd1}));
  CHECK(ok(Cvt{ScalarType::u64, ScalarType::u32, rd1, r1}));
  CHECK(ok(Cvt{ScalarType::u64, ScalarType::u32, rd1, SpecialRegister::tid_x}));
  CHECK(rejects(Binary{BinaryOp::add, ScalarType::u32, r1, SpecialRegister::tid_x, Immediate{1}},
                DiagId::ptx_special_register));
  CHECK(rejects(Setp{CompareOp::lt, ScalarType::u32, p1, SpecialRegister::laneid, Immediate{1}},
                DiagId::ptx_special_register));
  CHECK(ok(Setp{CompareOp::lt, ScalarType::u32, p1, r1, Immediate{100}}));
  CHECK(rejects(Setp{CompareOp::lt, ScalarType::u32, r2, r1, Immediate{100}},
                DiagId::ptx_register_class));
  CHECK(ok(Selp{ScalarType::u32, r2, Immediate{16}, Immediate{0}, p1}));
  CHECK(rejects(Selp{ScalarType::u32, r2, Immediate{16}, Immediate{0}, r1},
                DiagId::ptx_register_class));
  CHECK(ok(BarSync{0}));
  CHECK(rejects(BarSync{16}, DiagId::ptx_barrier_range));
  CHECK(ok(Ret{}));
}

TEST_CASE("operand rules come from the declaration, not from role names") {
  // mov.pred takes the constants 0 and 1 (OperandRule::predicate_constant); nothing else does.
  CHECK(ok(Mov{ScalarType::pred, p1, Immediate{0}}));
  CHECK(ok(Mov{ScalarType::pred, p1, Immediate{1}}));
  CHECK(rejects(Mov{ScalarType::pred, p1, Immediate{2}}, DiagId::ptx_predicate_operand));
  CHECK(rejects(Binary{BinaryOp::and_, ScalarType::pred, p1, p1, Immediate{1}},
                DiagId::ptx_predicate_operand));
  CHECK(rejects(Unary{UnaryOp::not_, ScalarType::pred, p1, Immediate{0}},
                DiagId::ptx_predicate_operand));
  // Special registers: mov and cvt only (OperandRule::special_register), and 32-bit.
  CHECK(rejects(Mov{ScalarType::u64, rd1, SpecialRegister::tid_x},
                DiagId::ptx_special_register_type));
  CHECK(rejects(Cvta{StateSpace::global, ScalarType::u64, rd1, SpecialRegister::tid_x},
                DiagId::ptx_special_register));
  CHECK(rejects(Mad{false, ScalarType::u32, r1, r1, r1, SpecialRegister::laneid},
                DiagId::ptx_special_register));
  // A symbol's address needs a 32- or 64-bit integer type.
  CHECK(rejects(Mov{ScalarType::u16, rs1, Symbol{"smem"}}, DiagId::ptx_symbol_type));
  // Operand types the declaration computes: mul.wide's and mad.wide's wide results, shifts.
  CHECK(ok(Binary{BinaryOp::shl, ScalarType::b64, rd1, rd1, r1}));
  CHECK(rejects(Binary{BinaryOp::shl, ScalarType::b64, rd1, rd1, rd2}, DiagId::ptx_register_class));
  CHECK(rejects(Mad{true, ScalarType::u32, rd2, r1, r2, r1}, DiagId::ptx_register_class));
  CHECK(rejects(Cvt{ScalarType::u64, ScalarType::u32, r1, r1}, DiagId::ptx_register_class));
  CHECK(rejects(St{StateSpace::param, ScalarType::u32, Address{rd1, 0}, {Operand{r1}}},
                DiagId::ptx_st_param));
  // ld.param.v2.b64 reads a by-value array in 16-byte pieces (a tensor map's copy): ptxas 13.0
  // assembles it; three values are no vector.
  CHECK(ok(Ld{StateSpace::param, ScalarType::b64, {rd1, rd2}, Address{Symbol{"A"}, 0}}));
  CHECK(rejects(Ld{StateSpace::param, ScalarType::u32, {r1, r2, r1}, Address{Symbol{"A"}, 0}},
                DiagId::ptx_vector_count));
  CHECK(rejects(Cvta{StateSpace::param, ScalarType::u64, rd1, rd2}, DiagId::ptx_cvta_space));
  CHECK(rejects(Unary{UnaryOp::neg, ScalarType::u32, r1, r2}, DiagId::ptx_instruction_type));
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
  const Diagnostics found = validate(m);
  CHECK(found.has(DiagId::ptx_unallocated_register));
  CHECK(found.has(DiagId::ptx_undeclared_symbol));
  // The prefix that says where is written once.
  for (const auto& item : found.items()) {
    CAPTURE(item.message);
    CHECK(item.message.rfind("`k` instruction 5: ", 0) == 0);
    CHECK(item.message.find("instruction", 10) == std::string::npos);
  }
}

TEST_CASE("module walk: registers and symbols each operand may name") {
  Module m;
  m.target = {80, false};
  Entry e;
  e.name = "k";
  e.params.push_back({"A", ScalarType::u64});
  e.shared.push_back({"smem", 128, 512});
  Register r = e.registers.make(RegClass::b32);
  Register rd = e.registers.make(RegClass::b64);
  Register p = e.registers.make(RegClass::pred);
  m.entries.push_back(e);
  auto only = [&](Instruction i) {
    Module x = m;
    x.entries[0].body = {i};
    return validate(x);
  };
  CHECK(only({Guard{p, false},
              Ld{StateSpace::param, ScalarType::u64, {rd}, Address{Symbol{"A"}, 0}}, ""})
            .empty());
  // ld.param names a parameter, ld.shared and cp.async's destination a shared array.
  CHECK(only({std::nullopt,
              Ld{StateSpace::param, ScalarType::u64, {rd}, Address{Symbol{"smem"}, 0}}, ""})
            .has(DiagId::ptx_undeclared_symbol));
  CHECK(only({std::nullopt, Ld{StateSpace::shared, ScalarType::u32, {r}, Address{Symbol{"A"}, 0}},
              ""})
            .has(DiagId::ptx_undeclared_symbol));
  CpAsync cp;
  cp.opcode.cache_op = CacheOp::cg;
  cp.dst = Address{Symbol{"A"}, 0};
  cp.src = Address{rd, 0};
  CHECK(only({std::nullopt, cp, ""}).has(DiagId::ptx_undeclared_symbol));
  cp.dst = Address{Symbol{"smem"}, 0};
  CHECK(only({std::nullopt, cp, ""}).empty());
  // Every register operand is walked: guard, src-size, ignore-src, policy, selector, vectors.
  const Register p9{RegClass::pred, 9}, r9{RegClass::b32, 9}, rd9{RegClass::b64, 9};
  CHECK(only({Guard{p9, false}, cp, ""}).has(DiagId::ptx_unallocated_register));
  cp.zero_fill = SrcSize{r9};
  CHECK(only({std::nullopt, cp, ""}).has(DiagId::ptx_unallocated_register));
  cp.zero_fill = IgnoreSrc{p9, true};
  CHECK(only({std::nullopt, cp, ""}).has(DiagId::ptx_unallocated_register));
  cp.zero_fill = std::monostate{};
  cp.opcode.cache_hint = true;
  cp.cache_policy = rd9;
  CHECK(only({std::nullopt, cp, ""}).has(DiagId::ptx_unallocated_register));
  CHECK(only({std::nullopt, Selp{ScalarType::u32, r, r, r, p9}, ""})
            .has(DiagId::ptx_unallocated_register));
  CHECK(only({std::nullopt, St{StateSpace::shared, ScalarType::u32, Address{r, 0}, {r, r9}}, ""})
            .has(DiagId::ptx_unallocated_register));
  CHECK(
      only({std::nullopt, CreatePolicyFractional{rd9}, ""}).has(DiagId::ptx_unallocated_register));
}

TEST_CASE("module declarations, and every diagnostic has an ID") {
  Module m;
  m.target = {80, false};
  m.address_size = 32;
  Entry e;
  e.params.push_back({"A", ScalarType::u64});
  e.params.push_back({"A", ScalarType::u64});
  e.shared.push_back({"s", 3, 0});
  m.entries.push_back(e);
  e.name = "k";
  m.entries.push_back(e);
  m.entries.push_back(e);
  const Diagnostics d = validate(m);
  for (DiagId id : {DiagId::ptx_address_size, DiagId::ptx_entry_name, DiagId::ptx_duplicate_name,
                    DiagId::ptx_shared_align, DiagId::ptx_shared_empty})
    CHECK(d.has(id));
}

TEST_CASE("an .extern .shared array: unsized, and one per entry") {
  Module m;
  m.target = {80, false};
  Entry e;
  e.name = "k";
  e.shared.push_back({"dyn", 1024, 0, SharedKind::dynamic});
  m.entries.push_back(e);
  CHECK_FALSE(validate(m).has_errors());
  m.entries.front().shared.front().bytes = 16;
  CHECK(validate(m).has(DiagId::ptx_shared_extern_sized));
  m.entries.front().shared.front().bytes = 0;
  m.entries.front().shared.push_back({"dyn2", 1024, 0, SharedKind::dynamic});
  CHECK(validate(m).has(DiagId::ptx_shared_extern_twice));
  CHECK_FALSE(validate(m).has(DiagId::ptx_shared_empty)); // unsized is what dynamic means
}

} // namespace unit_ptx_validator
