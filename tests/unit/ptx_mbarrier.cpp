// mbarrier.init: printed forms, the feature row, the count rule, and real ptxas.

#include "driver/ptxas/ptxas.hpp"
#include "emitter/ptx/printer.hpp"
#include "emitter/ptx/validator.hpp"

#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_ptx_mbarrier {

using namespace ptxgen::ptx;
using ptxgen::DiagId;

namespace {

const Register r1{RegClass::b32, 1};
const Register rd1{RegClass::b64, 1};

std::string p(InstructionBody b) {
  return print(Instruction{std::nullopt, std::move(b), ""});
}

ptxgen::Diagnostics check(InstructionBody b, Target t = {80, false}, PtxVersion v = {7, 0}) {
  return validate(Instruction{std::nullopt, std::move(b), ""}, t, v);
}

/// One entry initialising a shared mbarrier in each form ptxgen prints.
Module init_module(std::optional<SharedSpace> space) {
  Module m;
  m.target = {80, false};
  Entry e;
  e.name = "init";
  e.shared.push_back({"bar", 8, 8});
  // A generic address (no state space) must be 64-bit; a shared one may be 32-bit.
  const ScalarType at = space ? ScalarType::u32 : ScalarType::u64;
  Register a = e.registers.make(space ? RegClass::b32 : RegClass::b64);
  Register count = e.registers.make(RegClass::b32);
  e.body = {
      {std::nullopt, MbarrierInit{space, Address{Symbol{"bar"}, 0}, Immediate{128}}, ""},
      {std::nullopt, Mov{at, a, Symbol{"bar"}}, ""},
      {std::nullopt, Mov{ScalarType::u32, count, Immediate{64}}, ""},
      {std::nullopt, MbarrierInit{space, Address{a, 0}, count}, ""},
      {std::nullopt, Ret{}, ""},
  };
  m.entries.push_back(e);
  return m;
}

} // namespace

TEST_CASE("mbarrier.init prints as PTX writes it") {
  CHECK(p(MbarrierInit{SharedSpace::shared, Address{r1, 0}, Immediate{32}}) ==
        "mbarrier.init.shared.b64 [%r1], 32;");
  CHECK(p(MbarrierInit{SharedSpace::shared_cta, Address{Symbol{"bar"}, 8}, r1}) ==
        "mbarrier.init.shared::cta.b64 [bar+8], %r1;");
  CHECK(p(MbarrierInit{std::nullopt, Address{rd1, 0}, Immediate{1}}) ==
        "mbarrier.init.b64 [%rd1], 1;");
}

TEST_CASE("mbarrier.init's feature row and count rule") {
  const MbarrierInit ok{SharedSpace::shared, Address{r1, 0}, Immediate{1}};
  CHECK(check(ok).empty());
  CHECK(check(ok, {75, false}).has(DiagId::ptx_feature_target));
  CHECK(features_used({std::nullopt, ok, ""}) == std::vector<Feature>{Feature::mbarrier_init});

  const MbarrierInit cta{SharedSpace::shared_cta, Address{r1, 0}, Immediate{1}};
  CHECK(check(cta, {80, false}, {7, 0}).has(DiagId::ptx_feature_version));
  CHECK(check(cta, {80, false}, {7, 8}).empty());

  for (std::int64_t bad : {std::int64_t{0}, std::int64_t{-1}, max_mbarrier_count + 1}) {
    CAPTURE(bad);
    CHECK(check(MbarrierInit{SharedSpace::shared, Address{r1, 0}, Immediate{bad}})
              .has(DiagId::ptx_mbarrier_count_range));
  }
  CHECK(check(MbarrierInit{SharedSpace::shared, Address{r1, 0}, Immediate{max_mbarrier_count}})
            .empty());
  // The count is a .u32 value: a 64-bit register cannot hold it.
  CHECK_FALSE(check(MbarrierInit{SharedSpace::shared, Address{r1, 0}, rd1}).empty());
  // ptxas refuses a generic address in a 32-bit register for mbarrier.init.
  CHECK_FALSE(check(MbarrierInit{std::nullopt, Address{r1, 0}, Immediate{1}}).empty());
  // The mbarrier lives in shared memory: a .param symbol is not one.
  Module m = init_module(SharedSpace::shared);
  CHECK(validate(m).empty());
  m.entries[0].params.push_back({"P", ScalarType::u64});
  std::get<MbarrierInit>(m.entries[0].body[0].body).address = Address{Symbol{"P"}, 0};
  CHECK(validate(m).has_errors());
}

TEST_CASE("ptxas assembles the mbarrier.init forms ptxgen validates" *
          doctest::test_suite("ptxas")) {
  auto ptxas = ptxgen::driver::locate_ptxas("");
  REQUIRE_MESSAGE(ptxas, "no ptxas: " << ptxas.error());
  for (auto space : {std::optional<SharedSpace>{}, std::optional<SharedSpace>{SharedSpace::shared},
                     std::optional<SharedSpace>{SharedSpace::shared_cta}}) {
    Module m = init_module(space);
    REQUIRE(validate(m).empty());
    ptxgen::driver::AssembleOptions o;
    o.target = m.target;
    o.verbose = false;
    o.keep_cubin = false;
    auto r = ptxgen::driver::assemble(ptxas->path, print(m), o);
    INFO(print(m) << r.describe());
    CHECK(r.ok());
  }
}

} // namespace unit_ptx_mbarrier
