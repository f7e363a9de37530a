// plan_unroll() (emitter/lower/loop_form.hpp): how a loop with `unroll` is laid
// out, worked out from the trip count, the unroll and the step's bound.

#include "emitter/lower/loop_form.hpp"

#include <doctest/doctest.h>

namespace ptxgen::unit_lower_unroll {
namespace {

using lower::plan_unroll;

TEST_CASE("unroll: a constant trip count at most the unroll is straight-line code") {
  auto p = plan_unroll(3, 4, 1);
  CHECK(p.full);
  CHECK(p.copies == 3);
  p = plan_unroll(4, 4, 1);
  CHECK(p.full);
  CHECK(p.copies == 4);
  p = plan_unroll(0, 1, 1); // no iteration: nothing at all
  CHECK(p.full);
  CHECK(p.copies == 0);
}

TEST_CASE("unroll: passes of n copies, then trip % n copies") {
  // 10 iterations, 4 per pass: two passes (known to run), then 2 copies.
  auto p = plan_unroll(10, 4, 1);
  CHECK_FALSE(p.full);
  CHECK(p.factor == 4);
  CHECK(p.runs);
  CHECK(p.remainder == 2);
  CHECK_FALSE(p.tail);
  // 8 iterations, 4 per pass: no remainder.
  p = plan_unroll(8, 4, 1);
  CHECK(p.factor == 4);
  CHECK(p.remainder == 0);
}

TEST_CASE("unroll: an unknown trip count gets a tail loop and may skip the passes") {
  auto p = plan_unroll(std::nullopt, 2, 64);
  CHECK_FALSE(p.full);
  CHECK(p.factor == 2);
  CHECK_FALSE(p.runs);
  CHECK(p.tail);
  CHECK(p.remainder == 0);
}

TEST_CASE("unroll: dropped where (unroll-1)*step could leave 0..2^31-1") {
  const std::int64_t max = (std::int64_t{1} << 31) - 1;
  // (4-1) * step <= 2^31-1 holds for step = (2^31-1)/3 exactly, not one more.
  CHECK(plan_unroll(std::nullopt, 4, max / 3).factor == 4);
  CHECK(plan_unroll(std::nullopt, 4, max / 3 + 1).factor == 1);
  CHECK(plan_unroll(std::nullopt, 4, std::nullopt).factor == 1); // unbounded step
  auto p = plan_unroll(std::nullopt, 1, 1);                      // no unroll asked
  CHECK(p.factor == 1);
  CHECK_FALSE(p.tail);
  CHECK_FALSE(p.full);
}

} // namespace
} // namespace ptxgen::unit_lower_unroll
