// The C++ API as a client meets it: everything from `ptxgen::api`, one diagnostics type
// iterated with range-for, every independent builder error in one emit, run_kernel at the
// emitted target, and the reference's findings at the caller's lines in the API's words.

#include "driver/api/driver.hpp"
#include "emitter/api/api.hpp"

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_surface {

using namespace ptxgen::api;

namespace {

bool has_id(const Diagnostics& ds, DiagId id) {
  for (const Diagnostic& d : ds)
    if (d.id == id)
      return true;
  return false;
}

const Diagnostic* find_id(const Diagnostics& ds, DiagId id) {
  for (const Diagnostic& d : ds)
    if (d.id == id)
      return &d;
  return nullptr;
}

struct RowTensors {
  Tensor A, B, S;
};

/// One CTA of 32 threads, a row each: A (32 x 16 random bytes), B (the output), S (shared).
RowTensors declare_rows(KernelBuilder& k) {
  k.launch({1}, {32});
  return {k.global("A", {32, 16}, DType::uint8, {.init = random_init(5)}),
          k.global("B", {32, 16}, DType::uint8, {.output = true}),
          k.shared("S", {32, 16}, DType::uint8)};
}

} // namespace

TEST_CASE("api: targets are named, not a positional bool") {
  CHECK(sm(90).str() == "sm_90");
  CHECK(sm_a(90).str() == "sm_90a");
  CHECK(sm_a(100) == Target{100, true});
  CHECK(name(Backend::sim) == "sim");
  CHECK(name(CaseResult::Status::pass) == "pass");
  CHECK(name(DiagId::contract_cg_chunk) == "contract_cg_chunk");
}

TEST_CASE("api: one emit reports the builder's errors and the contract's per-op errors") {
  KernelBuilder k("two_errors");
  k.launch({1}, {128});
  Tensor A = k.global("A", {128, 32}, DType::float16, {.init = arange_mod(97)});
  Tensor S = k.shared("S", {128, 32}, DType::float16);
  k.global("tid", {4}, DType::uint8); // a reserved name: the builder's error
  const int cg_line = __LINE__ + 1;
  k.apply(cp_async(CacheOp::cg), S.sub({tid(), slice(0, 4)}), A.sub({tid(), slice(0, 4)}), 8);
  k.commit_group();
  k.wait_all();
  const EmitResult r = emit_contract_only(k);
  CHECK_FALSE(r.ok());
  CHECK(has_id(r.diagnostics, DiagId::spec_reserved_name));
  const Diagnostic* cg = find_id(r.diagnostics, DiagId::contract_cg_chunk);
  REQUIRE(cg != nullptr);
  CHECK(cg->line == static_cast<std::uint32_t>(cg_line));
  std::size_t n = 0;
  for (const Diagnostic& d : r.diagnostics)
    n += d.severity == Severity::error ? 1 : 0;
  CHECK(n == r.diagnostics.size());
}

TEST_CASE("api: run_kernel runs the PTX for the target the kernel was emitted for" *
          doctest::test_suite("ptxas")) {
  KernelBuilder k("rows90");
  const auto [A, B, S] = declare_rows(k);
  k.apply(cp_async(CacheOp::cg), S.sub({tid(), all}), A.sub({tid(), all}), 16);
  k.commit_group();
  k.wait_all();
  k.copy(B.sub({tid(), all}), S.sub({tid(), all}));
  const EmitResult e = emit_contract_only(k, sm(90));
  REQUIRE(e.ok());
  CHECK(e.target == sm(90));
  const ConformanceReport r = run_kernel(k.kernel(), e, Backend::sim);
  REQUIRE(r.cases.size() == 1);
  CHECK_MESSAGE(r.cases[0].status == CaseResult::Status::pass, r.cases[0].detail);
  CHECK_MESSAGE(r.backend_description.find("sm_90") != std::string::npos, r.backend_description);
}

TEST_CASE("api: a planted race is reported at the builder call's line, in the API's words" *
          doctest::test_suite("ptxas")) {
  KernelBuilder k("race");
  const auto [A, B, S] = declare_rows(k);
  k.apply(cp_async(CacheOp::cg), S.sub({tid(), all}), A.sub({tid(), all}), 16);
  k.commit_group();
  k.wait_all();
  // No cta_sync: each thread reads the row its neighbour's copy wrote.
  const int race_line = __LINE__ + 1;
  k.copy(B.sub({tid(), all}), S.sub({(tid() + 1) % 32, all}));
  const ConformanceReport r = run_kernel(k);
  REQUIRE(r.cases.size() == 1);
  CHECK(r.cases[0].status != CaseResult::Status::pass);
  const Diagnostic* race = find_id(r.cases[0].diagnostics, DiagId::check_read_without_sync);
  REQUIRE_MESSAGE(race != nullptr, r.cases[0].detail);
  CHECK(race->line == static_cast<std::uint32_t>(race_line));
  CHECK(race->file == std::string(__FILE__));
}

TEST_CASE("api: advice names the C++ call to add and the op by its line" *
          doctest::test_suite("ptxas")) {
  KernelBuilder k("no_commit");
  const auto [A, B, S] = declare_rows(k);
  const int apply_line = __LINE__ + 1;
  k.apply(cp_async(CacheOp::cg), S.sub({tid(), all}), A.sub({tid(), all}), 16);
  k.wait_group(0);
  k.copy(B.sub({tid(), all}), S.sub({tid(), all}));
  const ConformanceReport r = run_kernel(k);
  REQUIRE(r.cases.size() == 1);
  std::string all_text;
  for (const Diagnostic& d : r.cases[0].diagnostics)
    all_text += d.message + "\n";
  INFO(all_text);
  CHECK(has_id(r.cases[0].diagnostics, DiagId::check_missing_commit));
  CHECK(all_text.find("commit_group()") != std::string::npos);
  CHECK(all_text.find(":" + std::to_string(apply_line)) != std::string::npos);
  CHECK(all_text.find("op = ") == std::string::npos);
}

TEST_CASE("api: run_kernel of a builder in error is one invalid case with its diagnostics") {
  KernelBuilder k("bad");
  k.global("tid", {4}, DType::uint8);
  const ConformanceReport r = run_kernel(k);
  REQUIRE(r.cases.size() == 1);
  CHECK(r.cases[0].status == CaseResult::Status::invalid);
  CHECK(r.cases[0].stage == CaseResult::Stage::emit);
  CHECK(has_id(r.cases[0].diagnostics, DiagId::spec_reserved_name));
}

} // namespace unit_api_surface
