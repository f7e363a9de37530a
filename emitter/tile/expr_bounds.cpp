// Interval bounds of expressions over a launch and the declared ranges (expr.hpp's
// bounds() and narrow_on()): sound, not always tight; a select's arms are bounded where its
// condition holds, and where it does not.

#include "emitter/support/unreachable.hpp"
#include "emitter/tile/checked_int.hpp"
#include "emitter/tile/expr.hpp"

#include <algorithm>
#include <initializer_list>

namespace ptxgen::tile {

// A named namespace: the unity build may join this file with others whose file-local
// helpers have names of their own.
namespace expr_bounds {

using namespace checked_int;
using i64 = std::int64_t;

std::optional<Interval> hull_of(std::initializer_list<std::optional<i64>> vs) {
  Interval r{kMax, kMin};
  for (const auto& v : vs) {
    if (!v)
      return std::nullopt;
    r.lo = std::min(r.lo, *v);
    r.hi = std::max(r.hi, *v);
  }
  return r;
}

Interval join(Interval a, Interval b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

// The smallest 2^k - 1 >= v, for v >= 0 (all ones up to v's top bit).
i64 ones_through(i64 v) {
  i64 r = 0;
  while (r < v)
    r = (r << 1) | 1;
  return r;
}

// The largest -2^k <= v, for v < 0.
i64 neg_power_below(i64 v) {
  i64 r = -1;
  while (r > v)
    r = (r == kMin / 2) ? kMin : r * 2;
  return r;
}

// A 0/1 result: {1} or {0} when the operand ranges decide it.
Interval boolean(bool decided_true, bool decided_false) {
  if (decided_true)
    return {1, 1};
  if (decided_false)
    return {0, 0};
  return {0, 1};
}

std::optional<Interval> bound_div(Interval a, Interval b) {
  if (b.contains(0))
    return std::nullopt;
  // Truncating division is monotone in each argument on a box whose divisor
  // keeps one sign, so the extremes are at the corners.
  return hull_of({checked_div(a.lo, b.lo), checked_div(a.lo, b.hi), checked_div(a.hi, b.lo),
                  checked_div(a.hi, b.hi)});
}

std::optional<Interval> bound_rem(Interval a, Interval b) {
  if (b.contains(0))
    return std::nullopt;
  if (b.lo == kMin)
    return Interval{std::min<i64>(a.lo, 0), std::max<i64>(a.hi, 0)};
  i64 max_abs = std::max(b.lo < 0 ? -b.lo : b.lo, b.hi < 0 ? -b.hi : b.hi);
  i64 min_abs = (b.lo > 0) ? b.lo : -b.hi;
  // |a % b| < |b| and |a % b| <= |a|; the sign follows a.
  if (a.lo >= 0 && a.hi < min_abs)
    return a; // a % b == a for every pair
  if (a.hi <= 0 && a.lo > -min_abs)
    return a;
  if (b.lo == b.hi && a.lo >= 0) {
    // One divisor: a window of a shorter than |b| that does not wrap maps monotonically.
    i64 c = max_abs;
    if (a.hi - a.lo < c && a.lo % c <= a.hi % c)
      return Interval{a.lo % c, a.hi % c};
  }
  Interval r{0, 0};
  r.hi = a.hi > 0 ? std::min(a.hi, max_abs - 1) : 0;
  r.lo = a.lo < 0 ? std::max(a.lo, -(max_abs - 1)) : 0;
  return r;
}

std::optional<Interval> bound_shift(ExprOp op, Interval a, Interval k) {
  if (k.lo < 0 || k.hi > 63)
    return std::nullopt;
  auto f = op == ExprOp::shl ? checked_shl : checked_shr;
  // Monotone in a for fixed k, and monotone in k for a of fixed sign: corners suffice.
  return hull_of({f(a.lo, k.lo), f(a.lo, k.hi), f(a.hi, k.lo), f(a.hi, k.hi)});
}

Interval bound_and(Interval a, Interval b) {
  if (a.lo >= 0 || b.lo >= 0) {
    // x & y lies in 0..y for y >= 0, whatever x is.
    i64 hi = kMax;
    if (a.lo >= 0)
      hi = std::min(hi, a.hi);
    if (b.lo >= 0)
      hi = std::min(hi, b.hi);
    return {0, hi};
  }
  // Both may be negative: x & y <= max(x, y) (and < 0 when both are), and
  // x, y >= -2^k means bits k..63 are set in both, so x & y >= -2^k.
  i64 hi = (a.hi < 0 && b.hi < 0) ? std::min(a.hi, b.hi) : std::max(a.hi, b.hi);
  i64 lo = neg_power_below(std::min(a.lo, b.lo));
  return {lo, hi};
}

Interval bound_or(Interval a, Interval b) {
  // x | y only sets bits: x | y >= x when x < 0 or both are >= 0; below 2^k when both are.
  i64 hi = ones_through(std::max({a.hi, b.hi, i64{0}}));
  if (a.hi < 0 || b.hi < 0)
    hi = -1; // one operand is always negative, so is the result
  i64 lo = (a.lo >= 0 && b.lo >= 0) ? std::max(a.lo, b.lo) : std::min(a.lo, b.lo);
  return {lo, hi};
}

// x ^ y for x, y in [-(m+1), m] with m = 2^k - 1 stays there (xor keeps the sign
// bits above bit k equal); both non-negative gives 0..m, both negative 0..m too.
Interval bound_xor(Interval a, Interval b) {
  const i64 m = ones_through(std::max({a.hi, b.hi, ~a.lo, ~b.lo, i64{0}}));
  if ((a.lo >= 0 && b.lo >= 0) || (a.hi < 0 && b.hi < 0))
    return {0, m};
  if ((a.lo >= 0 && b.hi < 0) || (a.hi < 0 && b.lo >= 0))
    return {~m, -1};
  return {~m, m};
}

std::optional<Interval> bounds_rec(const Expr& e, const LaunchBounds& l);

std::optional<Interval> bound_binary(const Expr& e, const LaunchBounds& l) {
  auto a = bounds_rec(*e.args[0], l);
  // Short-circuit operators: a decided left side makes the right side irrelevant.
  if (e.op == ExprOp::logical_and && a && *a == Interval{0, 0})
    return Interval{0, 0};
  if (e.op == ExprOp::logical_or && a && !a->contains(0))
    return Interval{1, 1};
  auto b = bounds_rec(*e.args[1], l);
  if (!a || !b)
    return std::nullopt;
  switch (e.op) {
  case ExprOp::add: {
    auto lo = checked_add(a->lo, b->lo), hi = checked_add(a->hi, b->hi);
    if (!lo || !hi)
      return std::nullopt;
    return Interval{*lo, *hi};
  }
  case ExprOp::sub: {
    auto lo = checked_sub(a->lo, b->hi), hi = checked_sub(a->hi, b->lo);
    if (!lo || !hi)
      return std::nullopt;
    return Interval{*lo, *hi};
  }
  case ExprOp::mul:
    return hull_of({checked_mul(a->lo, b->lo), checked_mul(a->lo, b->hi), checked_mul(a->hi, b->lo),
                    checked_mul(a->hi, b->hi)});
  case ExprOp::div:
    return bound_div(*a, *b);
  case ExprOp::rem:
    return bound_rem(*a, *b);
  case ExprOp::shl:
  case ExprOp::shr:
    return bound_shift(e.op, *a, *b);
  case ExprOp::bit_and:
    return bound_and(*a, *b);
  case ExprOp::bit_or:
    return bound_or(*a, *b);
  case ExprOp::bit_xor:
    return bound_xor(*a, *b);
  case ExprOp::min:
    return Interval{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
  case ExprOp::max:
    return Interval{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
  case ExprOp::lt:
    return boolean(a->hi < b->lo, a->lo >= b->hi);
  case ExprOp::le:
    return boolean(a->hi <= b->lo, a->lo > b->hi);
  case ExprOp::gt:
    return boolean(a->lo > b->hi, a->hi <= b->lo);
  case ExprOp::ge:
    return boolean(a->lo >= b->hi, a->hi < b->lo);
  case ExprOp::eq:
    return boolean(a->lo == a->hi && b->lo == b->hi && a->lo == b->lo,
                   a->hi < b->lo || b->hi < a->lo);
  case ExprOp::ne:
    return boolean(a->hi < b->lo || b->hi < a->lo,
                   a->lo == a->hi && b->lo == b->hi && a->lo == b->lo);
  case ExprOp::logical_and:
    return boolean(!a->contains(0) && !b->contains(0), *b == Interval{0, 0});
  case ExprOp::logical_or:
    return boolean(!b->contains(0), *a == Interval{0, 0} && *b == Interval{0, 0});
  case ExprOp::none:
  case ExprOp::logical_not:
  case ExprOp::neg:
    return std::nullopt;
  }
  unreachable("not an ExprOp or ExprKind value");
}

// The intersection, or nullopt when it is empty.
std::optional<Interval> meet(Interval a, Interval b) {
  Interval r{std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
  if (r.lo > r.hi)
    return std::nullopt;
  return r;
}

// A leaf's launch range narrowed by what the path knows (l.narrowed). An empty
// meet cannot happen here: narrow() drops paths whose range becomes empty.
Interval narrowed(const LaunchBounds& l, ExprKind k, Interval r) {
  auto it = l.narrowed.find(k);
  if (it == l.narrowed.end())
    return r;
  return meet(r, it->second).value_or(it->second);
}

Interval leaf_range(const Expr& e, const LaunchBounds& l) {
  switch (e.kind) {
  case ExprKind::tid:
    return narrowed(l, ExprKind::tid, {0, l.block - 1});
  case ExprKind::warp: {
    Interval t = leaf_range(*make_leaf(ExprKind::tid), l);
    return narrowed(l, ExprKind::warp, {t.lo / 32, t.hi / 32});
  }
  case ExprKind::lane: {
    Interval t = leaf_range(*make_leaf(ExprKind::tid), l);
    Interval r{0, std::min<i64>(31, t.hi)};
    if (t.lo / 32 == t.hi / 32) // one warp: the lanes are a window
      r = {t.lo % 32, t.hi % 32};
    return narrowed(l, ExprKind::lane, r);
  }
  case ExprKind::bid:
    return narrowed(l, ExprKind::bid, {0, l.grid - 1});
  case ExprKind::param: {
    auto it = l.params.find(e.name);
    if (it != l.params.end())
      return it->second;
    return Interval{0, (i64{1} << 32) - 1};
  }
  case ExprKind::axis: {
    auto it = l.axes.find(e.name);
    if (it != l.axes.end())
      return it->second;
    return Interval{kMin, kMax};
  }
  case ExprKind::loop: {
    auto it = l.loops.find(e.name);
    if (it != l.loops.end())
      return it->second;
    return Interval{kMin, kMax};
  }
  case ExprKind::special:
    return special_range(e.special, l);
  case ExprKind::constant:
    return {e.value, e.value};
  case ExprKind::unary:
  case ExprKind::binary:
  case ExprKind::select:
    break;
  }
  return {kMin, kMax}; // not a leaf: callers never ask
}

bool is_variable(const Expr& e) {
  switch (e.kind) {
  case ExprKind::tid:
  case ExprKind::warp:
  case ExprKind::lane:
  case ExprKind::bid:
  case ExprKind::param:
  case ExprKind::axis:
  case ExprKind::loop:
    return true;
  case ExprKind::special: // not narrowed: each is a constant or a coordinate of tid/bid
  case ExprKind::constant:
  case ExprKind::unary:
  case ExprKind::binary:
  case ExprKind::select:
    return false;
  }
  unreachable("not an ExprKind value");
}

// x's range where `x op e` holds, e in `rhs`; nullopt when none of x's values
// satisfies it. Ops other than < <= > >= == leave x as it is.
std::optional<Interval> restrict_range(Interval x, ExprOp op, Interval rhs) {
  switch (op) {
  case ExprOp::lt:
    if (rhs.hi == kMin)
      return std::nullopt;
    return meet(x, {kMin, rhs.hi - 1});
  case ExprOp::le:
    return meet(x, {kMin, rhs.hi});
  case ExprOp::gt:
    if (rhs.lo == kMax)
      return std::nullopt;
    return meet(x, {rhs.lo + 1, kMax});
  case ExprOp::ge:
    return meet(x, {rhs.lo, kMax});
  case ExprOp::eq:
    return meet(x, rhs);
  case ExprOp::none:
  case ExprOp::add:
  case ExprOp::sub:
  case ExprOp::mul:
  case ExprOp::div:
  case ExprOp::rem:
  case ExprOp::shl:
  case ExprOp::shr:
  case ExprOp::bit_and:
  case ExprOp::bit_or:
  case ExprOp::bit_xor:
  case ExprOp::min:
  case ExprOp::max:
  case ExprOp::ne:
  case ExprOp::logical_and:
  case ExprOp::logical_or:
  case ExprOp::logical_not:
  case ExprOp::neg:
    return x;
  }
  unreachable("not an ExprOp or ExprKind value");
}

// l with variable x restricted to r.
void set_range(LaunchBounds& l, const Expr& x, Interval r) {
  switch (x.kind) {
  case ExprKind::param:
    l.params[x.name] = r;
    return;
  case ExprKind::axis:
    l.axes[x.name] = r;
    return;
  case ExprKind::loop:
    l.loops[x.name] = r;
    return;
  case ExprKind::tid:
  case ExprKind::warp:
  case ExprKind::lane:
  case ExprKind::bid:
    l.narrowed[x.kind] = r;
    return;
  case ExprKind::special: // is_variable() is false for these
  case ExprKind::constant:
  case ExprKind::unary:
  case ExprKind::binary:
  case ExprKind::select:
    return;
  }
}

// Restricts l to the threads (and coordinates) where `c` is `truth`; false when
// no thread can take that path. Sound: every thread where c == truth satisfies
// the returned bounds. Only what the header lists narrows; the rest keeps l.
bool narrow(const Expr& c, bool truth, LaunchBounds& l) {
  if (c.kind == ExprKind::unary && c.op == ExprOp::logical_not)
    return narrow(*c.args[0], !truth, l);
  if (c.kind != ExprKind::binary)
    return true;
  if ((c.op == ExprOp::logical_and && truth) || (c.op == ExprOp::logical_or && !truth))
    return narrow(*c.args[0], truth, l) && narrow(*c.args[1], truth, l);
  ExprOp op = truth ? c.op : info(c.op).negated;
  if (op == ExprOp::none)
    return true;
  // Narrow each side that is a variable by the other side's bounds (both when both are).
  for (int side = 0; side < 2; ++side) {
    const Expr& x = *c.args[side];
    if (!is_variable(x))
      continue;
    auto rhs = bounds_rec(*c.args[1 - side], l);
    if (!rhs)
      continue;
    auto r = restrict_range(leaf_range(x, l), side == 0 ? op : info(op).swapped, *rhs);
    if (!r)
      return false;
    set_range(l, x, *r);
  }
  return true;
}

std::optional<Interval> bound_select(const Expr& e, const LaunchBounds& l) {
  auto c = bounds_rec(*e.args[0], l);
  if (!c)
    return std::nullopt;
  if (*c == Interval{0, 0})
    return bounds_rec(*e.args[2], l);
  if (!c->contains(0))
    return bounds_rec(*e.args[1], l);
  LaunchBounds when_true = l, when_false = l;
  const bool then_reachable = narrow(*e.args[0], true, when_true);
  const bool else_reachable = narrow(*e.args[0], false, when_false);
  std::optional<Interval> a, b;
  if (then_reachable && !(a = bounds_rec(*e.args[1], when_true)))
    return std::nullopt;
  if (else_reachable && !(b = bounds_rec(*e.args[2], when_false)))
    return std::nullopt;
  if (a && b)
    return join(*a, *b);
  if (a || b)
    return a ? a : b;
  return bounds_rec(*e.args[2], l); // neither path narrows to a value: keep it sound
}

std::optional<Interval> bounds_rec(const Expr& e, const LaunchBounds& l) {
  switch (e.kind) {
  case ExprKind::constant:
  case ExprKind::tid:
  case ExprKind::warp:
  case ExprKind::lane:
  case ExprKind::bid:
  case ExprKind::param:
  case ExprKind::special:
    return leaf_range(e, l);
  case ExprKind::loop:
    if (l.loops.find(e.name) == l.loops.end())
      return std::nullopt; // a loop variable outside its loop has no range
    return leaf_range(e, l);
  case ExprKind::axis:
    if (l.axes.find(e.name) == l.axes.end())
      return std::nullopt; // an axis outside an apply has no range
    return leaf_range(e, l);
  case ExprKind::unary: {
    auto a = bounds_rec(*e.args[0], l);
    if (!a)
      return std::nullopt;
    if (e.op == ExprOp::neg) {
      if (a->lo == kMin)
        return std::nullopt;
      return Interval{-a->hi, -a->lo};
    }
    // logical_not
    return boolean(*a == Interval{0, 0}, !a->contains(0));
  }
  case ExprKind::binary:
    return bound_binary(e, l);
  case ExprKind::select:
    return bound_select(e, l);
  }
  unreachable("not an ExprKind value");
}

} // namespace expr_bounds

std::optional<Interval> bounds(const Expr& e, const LaunchBounds& launch) {
  if (launch.block < 1 || launch.grid < 1)
    return std::nullopt;
  return expr_bounds::bounds_rec(e, launch);
}

std::optional<LaunchBounds> narrow_on(const Expr& cond, bool truth, const LaunchBounds& launch) {
  LaunchBounds l = launch;
  if (!expr_bounds::narrow(cond, truth, l))
    return std::nullopt;
  return l;
}

} // namespace ptxgen::tile
