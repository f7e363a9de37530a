// The unroll plan of a loop: straight-line copies, passes of several copies
// with a remainder or a tail loop, or one copy per pass.

#include "emitter/lower/loop_form.hpp"

namespace ptxgen::lower {

UnrollPlan plan_unroll(std::optional<std::int64_t> trip, std::int64_t unroll,
                       std::optional<std::int64_t> step_max) {
  UnrollPlan p;
  if (trip && unroll >= *trip) {
    p.full = true;
    p.copies = *trip;
    return p;
  }
  // The loop variable stays in 0..2^31-1 (the contract proved it), and an
  // unrolled pass's last copy reads v + (unroll-1)*step: that must too.
  constexpr std::int64_t kVariableMax = (std::int64_t{1} << 31) - 1;
  if (unroll <= 1 || !step_max || *step_max > kVariableMax / (unroll - 1))
    return p;
  p.factor = unroll;
  p.runs = trip && *trip >= unroll;
  if (trip)
    p.remainder = *trip % unroll;
  else
    p.tail = true;
  return p;
}

} // namespace ptxgen::lower
