#include "emitter/tile/u32_rule.hpp"

#include <string>

namespace ptxgen::tile {

namespace {

constexpr std::int64_t u32_max = 0xFFFFFFFF;

bool fits(const std::optional<Interval>& b, Interval within) {
  return b && within.contains(b->lo) && within.contains(b->hi);
}

constexpr Interval u32_range{0, u32_max};
constexpr Interval s32_range{-(std::int64_t{1} << 31), (std::int64_t{1} << 31) - 1};

/// The diagnostic at operand a's span inside the string when it is known.
void report_operand(const Expr& a, const U32Context& c, std::string message,
                    const std::optional<Interval>& range, Diagnostics& out) {
  if (c.ranges != nullptr)
    c.ranges->push_back(range);
  SourcePos at = c.pos;
  std::uint32_t len = c.length;
  if (a.length > 0) {
    at.column += a.offset;
    len = a.length;
  }
  out.add(diagnostic_at(DiagId::contract_index_u32, at, std::move(message), len));
}

/// min/max: both operands in 0..2^32-1 over the launch (compared as u32), or
/// both in -2^31..2^31-1 on this path (compared as s32). False after reporting.
bool check_minmax(const Expr& e, const U32Context& c, Diagnostics& out) {
  bool unsigned_ok = true, signed_ok = true;
  for (const auto& a : e.args) {
    unsigned_ok = unsigned_ok && fits(bounds(*a, c.top), u32_range);
    signed_ok = signed_ok && fits(bounds(*a, c.path), s32_range);
  }
  if (unsigned_ok || signed_ok)
    return true;
  for (const auto& a : e.args) {
    auto b = bounds(*a, c.path);
    if (fits(b, s32_range))
      continue;
    report_operand(*a, c,
                   std::string(c.what) + ": " + std::string(op_spelling(e.op)) + "'s operand '" +
                       print(*a) +
                       "' must stay in -2147483648..2147483647 (or both operands in "
                       "0..4294967295) for 32-bit arithmetic; its range is " +
                       range_text(b),
                   b, out);
    return false;
  }
  return false;
}

} // namespace

std::string range_text(const std::optional<Interval>& b) {
  return b ? std::to_string(b->lo) + ".." + std::to_string(b->hi) : "unbounded";
}

/// Checks that e can be computed in 32-bit registers with the same result as
/// in mathematical integers: every operand of an operation that is not
/// arithmetic modulo 2^32 (division, remainder, right shift, comparison) and
/// the final value must lie in 0..2^32-1; min and max as check_minmax says.
/// A select's arms are checked under its condition.
void check_u32_rec(const Expr& e, const U32Context& c, Diagnostics& out, bool is_root) {
  const bool minmax = e.kind == ExprKind::binary && (e.op == ExprOp::min || e.op == ExprOp::max);
  if (minmax && !check_minmax(e, c, out))
    return;
  if (!minmax && e.kind == ExprKind::binary && info(e.op).order_sensitive) {
    for (const auto& a : e.args) {
      auto b = bounds(*a, c.path);
      if (!fits(b, u32_range)) {
        report_operand(*a, c,
                       std::string(c.what) + ": '" + print(*a) +
                           "' must stay in 0..4294967295 for 32-bit arithmetic; its range is " +
                           range_text(b),
                       b, out);
        return;
      }
    }
  }
  if (e.kind == ExprKind::select) {
    check_u32_rec(*e.args[0], c, out, false);
    for (bool truth : {true, false})
      if (auto arm = narrow_on(*e.args[0], truth, c.path)) {
        U32Context sub{c.top, *arm, c.pos, c.length, c.what, c.ranges};
        check_u32_rec(*e.args[truth ? 1 : 2], sub, out, false);
      }
  } else {
    for (const auto& a : e.args)
      check_u32_rec(*a, c, out, false);
  }
  if (is_root && !fits(bounds(e, c.path), u32_range)) {
    if (c.ranges != nullptr)
      c.ranges->push_back(bounds(e, c.path));
    out.add(diagnostic_at(DiagId::contract_index_u32, c.pos,
                          std::string(c.what) + " must stay in 0..4294967295; its range is " +
                              range_text(bounds(e, c.path)),
                          c.length));
  }
}

} // namespace ptxgen::tile
