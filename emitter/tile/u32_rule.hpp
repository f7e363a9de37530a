#pragma once
// The contract's 32-bit rule: an index or a size computed in 32-bit registers gives the
// mathematical integer's result. Every operand of an operation that is not arithmetic modulo
// 2^32 (division, remainder, right shift, comparison) and the final value lie in 0..2^32-1;
// min and max compare both operands as u32 over the launch or as s32 on the path; a select's
// arms are checked under its condition (narrow_on).

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/expr.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::tile {

/// "LO..HI", or "unbounded".
std::string range_text(const std::optional<Interval>& b);

/// Where the 32-bit rule is checked: the launch (the lowering picks min/max's
/// signedness from it) and the path's narrowed bounds (a select's arm).
struct U32Context {
  const LaunchBounds& top;
  const LaunchBounds& path;
  const SourcePos& pos;
  std::uint32_t length;
  std::string_view what;
  /// When set, each error's failing value range, in the order of the errors.
  std::vector<std::optional<Interval>>* ranges = nullptr;
};

/// Checks that e can be computed in 32-bit registers with the same result as in mathematical
/// integers (contract_index_u32 at the operand's span where it is known); is_root also checks
/// e's own value.
void check_u32_rec(const Expr& e, const U32Context& c, Diagnostics& out, bool is_root);

} // namespace ptxgen::tile
