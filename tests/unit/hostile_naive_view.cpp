// Hostile runtime indices in the CPU reference's view replay: found by the
// view_parser fuzz target (UBSan: signed overflow in naive_locate), kept as
// regression tests. Such indices pass the view parser (runtime indices are the
// contract's business) and reach the reference under `ptxgen run --unchecked`.
#include "driver/reference/naive_view.hpp"
#include "emitter/tile/view.hpp"

#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_hostile_naive_view {

using namespace ptxgen;
using namespace ptxgen::tile;

namespace {

const Tensor kA{"A", Space::global, {128, 32}, DType::float16, 16};

View parse(std::string_view text) {
  auto r = parse_view(
      text, [](std::string_view n) { return n == "A" ? &kA : nullptr; },
      [](std::string_view) { return false; });
  INFO(text, " -> ", r.diagnostics.format_all());
  REQUIRE(r.value.has_value());
  return *r;
}

} // namespace

TEST_CASE("the fuzzer's input: a row index of -6.6e17 has no offset, not a wrapped one") {
  // (tid - 661216834281333301) * 32 elements per row overflows int64.
  const View v = parse("A.sub[tid- 661216834281333301]");
  const driver::NaivePlan plan = driver::naive_plan(v);
  REQUIRE(plan.ok());
  ExprEnv env;
  const std::vector<std::int64_t> coords{0};
  const driver::NaiveLocation loc = driver::naive_locate(plan, v, env, coords);
  CHECK(loc.offsets.empty());
  CHECK_FALSE(loc.in_bounds);
  CHECK(loc.error.find("64 bits") != std::string::npos);
}

TEST_CASE("an out-of-range index recombined by a rearrange has no offset") {
  // w = 2^62 recombined as w * 32 + t overflows inside the rearrange step.
  const View v = parse("A.rearrange(\"(w t) v -> w t v\", w=4).sub[tid + 4611686018427387904]");
  const driver::NaivePlan plan = driver::naive_plan(v);
  REQUIRE(plan.ok());
  ExprEnv env;
  const std::vector<std::int64_t> coords{0, 0};
  const driver::NaiveLocation loc = driver::naive_locate(plan, v, env, coords);
  CHECK(loc.offsets.empty());
  CHECK_FALSE(loc.in_bounds);
}

TEST_CASE("an out-of-range index that fits int64 still gets its (out-of-bounds) offset") {
  // Row 200 of a 128-row tensor: offset 200 * 64 = 12800, flagged out of bounds.
  const View v = parse("A.sub[tid + 200]");
  const driver::NaivePlan plan = driver::naive_plan(v);
  ExprEnv env;
  const std::vector<std::int64_t> coords{3};
  const driver::NaiveLocation loc = driver::naive_locate(plan, v, env, coords);
  REQUIRE(loc.offsets.size() == 2);
  CHECK(loc.offsets[0] == 12806); // row 200, element 3 (2 bytes each): 200*64 + 6
  CHECK(loc.offsets[1] == 12807);
  CHECK_FALSE(loc.in_bounds);
}

} // namespace unit_hostile_naive_view
