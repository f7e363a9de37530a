// bra and labels: printed form, the validator's label rules, and real ptxas on a loop.

#include "driver/ptxas/ptxas.hpp"
#include "emitter/ptx/printer.hpp"
#include "emitter/ptx/validator.hpp"

#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_ptx_branch {

using namespace ptxgen::ptx;
using ptxgen::DiagId;

namespace {

const Register p1{RegClass::pred, 1};

std::string p(InstructionBody b, std::optional<Guard> g = std::nullopt) {
  return print(Instruction{g, std::move(b), ""});
}

/// for (i = 0; i < 10; ++i) {} then *A = i, with a conditional and an unconditional branch.
Module loop_module() {
  Module m;
  m.target = {80, false};
  Entry e;
  e.name = "loop";
  e.params.push_back({"A", ScalarType::u64});
  Register i = e.registers.make(RegClass::b32);
  Register more = e.registers.make(RegClass::pred);
  Register a = e.registers.make(RegClass::b64);
  e.body = {
      {std::nullopt, Mov{ScalarType::u32, i, Immediate{0}}, ""},
      {std::nullopt, Label{"$L_loop"}, ""},
      {std::nullopt, Binary{BinaryOp::add, ScalarType::u32, i, i, Immediate{1}}, ""},
      {std::nullopt, Setp{CompareOp::lt, ScalarType::u32, more, i, Immediate{10}}, ""},
      {Guard{more, false}, Bra{"$L_loop", false}, "again"},
      {std::nullopt, Bra{"$L_done", true}, ""},
      {std::nullopt, Label{"$L_done"}, ""},
      {std::nullopt, Ld{StateSpace::param, ScalarType::u64, {a}, Address{Symbol{"A"}, 0}}, ""},
      {std::nullopt, Cvta{StateSpace::global, ScalarType::u64, a, a}, ""},
      {std::nullopt, St{StateSpace::global, ScalarType::u32, Address{a, 0}, {Operand{i}}}, ""},
      {std::nullopt, Ret{}, ""},
  };
  m.entries.push_back(e);
  return m;
}

std::optional<ptxgen::driver::PtxasLocation> find_ptxas() {
  auto found = ptxgen::driver::locate_ptxas("");
  if (!found)
    return std::nullopt;
  return *found;
}

ptxgen::driver::AssembleResult assemble(const std::string& ptx) {
  ptxgen::driver::AssembleOptions o;
  o.target = {80, false};
  o.verbose = false;
  o.keep_cubin = false;
  return ptxgen::driver::assemble(find_ptxas()->path, ptx, o);
}

} // namespace

TEST_CASE("bra and labels print as PTX writes them") {
  CHECK(p(Label{"$L_loop"}) == "$L_loop:");
  CHECK(p(Bra{"$L_loop", false}) == "bra $L_loop;");
  CHECK(p(Bra{"$L_done", true}) == "bra.uni $L_done;");
  CHECK(p(Bra{"$L_loop", false}, Guard{p1, false}) == "@%p1 bra $L_loop;");
  CHECK(p(Bra{"$L_x", true}, Guard{p1, true}) == "@!%p1 bra.uni $L_x;");
  CHECK(print(loop_module()) == R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry loop(
	.param .u64 A
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;

	mov.u32 %r1, 0;
$L_loop:
	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 10;
	@%p1 bra $L_loop; // again
	bra.uni $L_done;
$L_done:
	ld.param.u64 %rd1, [A];
	cvta.to.global.u64 %rd1, %rd1;
	st.global.u32 [%rd1], %r1;
	ret;
}
)");
}

TEST_CASE("the validator's label rules") {
  Module m = loop_module();
  CHECK(validate(m).empty());
  CHECK(features_used({std::nullopt, Bra{"$L_loop", false}, ""}).empty());
  CHECK(validate({std::nullopt, Bra{"$L_loop", false}, ""}, {75, false}, {7, 0}).empty());

  Module undefined = m;
  std::get<Bra>(undefined.entries[0].body[5].body).target = "$L_nowhere";
  CHECK(validate(undefined).has(DiagId::ptx_undefined_label));

  Module twice = m;
  twice.entries[0].body.push_back({std::nullopt, Label{"$L_loop"}, ""});
  CHECK(twice.entries[0].body.size() == 12);
  CHECK(validate(twice).has(DiagId::ptx_duplicate_label));

  // A label of another entry is not a target.
  Module other = m;
  Entry second;
  second.name = "other";
  second.body = {{std::nullopt, Bra{"$L_loop", false}, ""}, {std::nullopt, Ret{}, ""}};
  other.entries.push_back(second);
  CHECK(validate(other).has(DiagId::ptx_undefined_label));

  for (const char* bad : {"", "1abc", "$", "a-b", "$L loop"}) {
    CAPTURE(bad);
    CHECK(
        validate({std::nullopt, Label{bad}, ""}, {80, false}, {7, 0}).has(DiagId::ptx_label_name));
    CHECK(validate({std::nullopt, Bra{bad, false}, ""}, {80, false}, {7, 0})
              .has(DiagId::ptx_label_name));
  }
  CHECK(validate({std::nullopt, Label{"$L_0"}, ""}, {80, false}, {7, 0}).empty());
  CHECK(validate({std::nullopt, Label{"loop_1"}, ""}, {80, false}, {7, 0}).empty());
  CHECK(validate({Guard{p1, false}, Label{"$L_0"}, ""}, {80, false}, {7, 0})
            .has(DiagId::ptx_label_guard));
  // The branch's guard is walked like any other register.
  Module guard = m;
  guard.entries[0].body[4].guard = Guard{Register{RegClass::pred, 5}, false};
  CHECK(validate(guard).has(DiagId::ptx_unallocated_register));
}

TEST_CASE("ptxas assembles a loop ptxgen validated, and refuses an undefined label too" *
          doctest::test_suite("ptxas")) {
  REQUIRE(find_ptxas());
  const Module m = loop_module();
  REQUIRE(validate(m).empty());
  auto ok = assemble(print(m));
  INFO(ok.describe());
  CHECK(ok.ok());

  Module undefined = m;
  std::get<Bra>(undefined.entries[0].body[5].body).target = "$L_nowhere";
  REQUIRE(validate(undefined).has(DiagId::ptx_undefined_label));
  CHECK_FALSE(assemble(print(undefined)).ok());

  Module twice = m;
  twice.entries[0].body.insert(twice.entries[0].body.begin() + 3,
                               {std::nullopt, Label{"$L_loop"}, ""});
  REQUIRE(validate(twice).has(DiagId::ptx_duplicate_label));
  CHECK_FALSE(assemble(print(twice)).ok());
}

} // namespace unit_ptx_branch
