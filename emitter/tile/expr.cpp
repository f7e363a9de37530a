// Expression trees: builders, evaluation, interval bounds, canonical printing.
// The parser is in expr_parser.cpp.

#include "emitter/tile/expr.hpp"

#include "emitter/support/unreachable.hpp"
#include "emitter/tile/expr_walk.hpp"

#include <algorithm>
#include <limits>

namespace ptxgen::tile {

namespace {

using i64 = std::int64_t;
constexpr i64 kMin = std::numeric_limits<i64>::min();
constexpr i64 kMax = std::numeric_limits<i64>::max();

// What each Special reads, in enum order: its spelling; which launch extent it is of (the
// block's threads, the grid's CTAs, a cluster's CTAs, the grid's clusters); an extent (ntid,
// nbid...) or an index (tid, bid); the axis (kAllAxes: the linear index, or the total).
constexpr int kAllAxes = 3;
enum class Over : std::uint8_t { block, grid, cluster, clusters };
struct SpecialRow {
  std::string_view spelling;
  Over over;
  bool extent;
  int axis;
};
constexpr SpecialRow kSpecialRows[] = {
    {"tid.x", Over::block, false, 0},
    {"tid.y", Over::block, false, 1},
    {"tid.z", Over::block, false, 2},
    {"ntid", Over::block, true, kAllAxes},
    {"ntid.x", Over::block, true, 0},
    {"ntid.y", Over::block, true, 1},
    {"ntid.z", Over::block, true, 2},
    {"bid.x", Over::grid, false, 0},
    {"bid.y", Over::grid, false, 1},
    {"bid.z", Over::grid, false, 2},
    {"nbid", Over::grid, true, kAllAxes},
    {"nbid.x", Over::grid, true, 0},
    {"nbid.y", Over::grid, true, 1},
    {"nbid.z", Over::grid, true, 2},
    {"cluster_rank", Over::cluster, false, kAllAxes},
    {"cluster_size", Over::cluster, true, kAllAxes},
    {"cluster_id", Over::clusters, false, kAllAxes},
    {"ncluster", Over::clusters, true, kAllAxes},
};
static_assert(std::size(kSpecialRows) == std::size(kSpecials));

const SpecialRow& special_row(Special s) {
  return kSpecialRows[static_cast<std::size_t>(s)];
}

i64 dim_axis(const Dim3& d, int axis) {
  return axis == 0 ? d.x : axis == 1 ? d.y : d.z;
}

/// The grid of clusters: the grid's CTAs along each axis over the cluster's.
Dim3 cluster_grid(const Dim3& grid, const Dim3& cluster) {
  return {grid.x / cluster.x, grid.y / cluster.y, grid.z / cluster.z};
}

std::optional<i64> checked_add(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<i64> checked_sub(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_sub_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<i64> checked_mul(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

// C division: truncation toward zero. nullopt for a zero divisor and INT64_MIN / -1.
std::optional<i64> checked_div(i64 a, i64 b) {
  if (b == 0 || (a == kMin && b == -1))
    return std::nullopt;
  return a / b;
}

std::optional<i64> checked_rem(i64 a, i64 b) {
  if (b == 0)
    return std::nullopt;
  if (b == -1)
    return 0; // avoids the INT64_MIN % -1 trap; mathematically 0
  return a % b;
}

// a * 2^k for k in 0..63.
std::optional<i64> checked_shl(i64 a, i64 k) {
  if (k < 0 || k > 63)
    return std::nullopt;
  if (k == 63) {
    if (a == 0)
      return 0;
    if (a == -1)
      return kMin;
    return std::nullopt;
  }
  return checked_mul(a, i64{1} << k);
}

// floor(a / 2^k) for k in 0..63 (an arithmetic shift).
std::optional<i64> checked_shr(i64 a, i64 k) {
  if (k < 0 || k > 63)
    return std::nullopt;
  // Right shift of a negative value is arithmetic in C++20.
  return a >> k;
}

std::optional<i64> apply_binary(ExprOp op, i64 a, i64 b) {
  switch (op) {
  case ExprOp::add:
    return checked_add(a, b);
  case ExprOp::sub:
    return checked_sub(a, b);
  case ExprOp::mul:
    return checked_mul(a, b);
  case ExprOp::div:
    return checked_div(a, b);
  case ExprOp::rem:
    return checked_rem(a, b);
  case ExprOp::shl:
    return checked_shl(a, b);
  case ExprOp::shr:
    return checked_shr(a, b);
  case ExprOp::bit_and:
    return a & b;
  case ExprOp::bit_or:
    return a | b;
  case ExprOp::bit_xor:
    return a ^ b;
  case ExprOp::min:
    return std::min(a, b);
  case ExprOp::max:
    return std::max(a, b);
  case ExprOp::lt:
    return a < b ? 1 : 0;
  case ExprOp::le:
    return a <= b ? 1 : 0;
  case ExprOp::gt:
    return a > b ? 1 : 0;
  case ExprOp::ge:
    return a >= b ? 1 : 0;
  case ExprOp::eq:
    return a == b ? 1 : 0;
  case ExprOp::ne:
    return a != b ? 1 : 0;
  case ExprOp::logical_and:
    return (a != 0 && b != 0) ? 1 : 0;
  case ExprOp::logical_or:
    return (a != 0 || b != 0) ? 1 : 0;
  case ExprOp::none:
  case ExprOp::logical_not:
  case ExprOp::neg:
    return std::nullopt;
  }
  unreachable("not an ExprOp or ExprKind value");
}

// ---- interval helpers ----

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

Interval special_range(Special s, const LaunchBounds& l) {
  const SpecialRow& r = special_row(s);
  const Dim3 grid = l.grid_dim.or_x(l.grid);
  i64 n = 0;
  switch (r.over) {
  case Over::block:
    n = r.axis == kAllAxes ? l.block : dim_axis(l.block_dim.or_x(l.block), r.axis);
    break;
  case Over::grid:
    n = r.axis == kAllAxes ? l.grid : dim_axis(grid, r.axis);
    break;
  case Over::cluster:
    n = l.cluster_dim.count();
    break;
  case Over::clusters:
    n = cluster_grid(grid, l.cluster_dim).count();
    break;
  }
  return r.extent ? Interval{n, n} : Interval{0, n - 1};
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

// ---- printing ----

// Binding strength, weakest first (Precedence, from expr_ops.def); an atom binds tightest.
constexpr int level_of(Precedence p) {
  return static_cast<int>(p);
}
constexpr int kTernary = level_of(Precedence::ternary);
constexpr int kUnary = level_of(Precedence::unary);
constexpr int kAtom = level_of(Precedence::atom);

// Operators written as calls: `min(a, b)`.
bool is_call(ExprOp op) {
  return info(op).precedence == Precedence::call;
}

int binary_level(ExprOp op) {
  return level_of(info(op).precedence);
}

int level(const Expr& e) {
  switch (e.kind) {
  case ExprKind::constant:
    return e.value < 0 ? kUnary : kAtom; // `-5` reads as a unary minus
  case ExprKind::unary:
    return kUnary;
  case ExprKind::binary:
    return is_call(e.op) ? kAtom : binary_level(e.op);
  case ExprKind::select:
    return kTernary;
  case ExprKind::tid:
  case ExprKind::warp:
  case ExprKind::lane:
  case ExprKind::bid:
  case ExprKind::param:
  case ExprKind::axis:
  case ExprKind::loop:
  case ExprKind::special:
    return kAtom;
  }
  unreachable("not an ExprOp or ExprKind value");
}

void print_rec(const Expr& e, std::string& out);

void print_child(const Expr& e, bool parens, std::string& out) {
  if (parens)
    out += '(';
  print_rec(e, out);
  if (parens)
    out += ')';
}

void print_rec(const Expr& e, std::string& out) {
  switch (e.kind) {
  case ExprKind::constant:
    out += std::to_string(e.value);
    return;
  case ExprKind::tid:
    out += "tid";
    return;
  case ExprKind::warp:
    out += "warp";
    return;
  case ExprKind::lane:
    out += "lane";
    return;
  case ExprKind::bid:
    out += "bid";
    return;
  case ExprKind::param:
  case ExprKind::axis:
  case ExprKind::loop:
    out += e.name;
    return;
  case ExprKind::special:
    out += spelling(e.special);
    return;
  case ExprKind::unary: {
    const Expr& a = *e.args[0];
    out += e.op == ExprOp::neg ? "-" : "!";
    // `-(5)` keeps the negation (a bare `-5` parses as the constant -5).
    bool parens = level(a) < kUnary || a.kind == ExprKind::constant;
    if (e.op == ExprOp::logical_not && a.kind == ExprKind::constant && a.value >= 0)
      parens = false;
    print_child(a, parens, out);
    return;
  }
  case ExprKind::binary: {
    if (is_call(e.op)) {
      out += op_spelling(e.op);
      out += '(';
      print_rec(*e.args[0], out);
      out += ", ";
      print_rec(*e.args[1], out);
      out += ')';
      return;
    }
    int p = binary_level(e.op);
    print_child(*e.args[0], level(*e.args[0]) < p, out);
    out += ' ';
    out += op_spelling(e.op);
    out += ' ';
    print_child(*e.args[1], level(*e.args[1]) <= p, out);
    return;
  }
  case ExprKind::select:
    print_child(*e.args[0], level(*e.args[0]) <= kTernary, out);
    out += " ? ";
    print_child(*e.args[1], false, out);
    out += " : ";
    print_child(*e.args[2], false, out);
    return;
  }
}

} // namespace

namespace {

constexpr ExprOpFlag infix = ExprOpFlag::infix;
constexpr ExprOpFlag predicate = ExprOpFlag::predicate;
constexpr ExprOpFlag order = ExprOpFlag::order;

constexpr ExprOpInfo row(std::string_view spelling, Precedence p, unsigned flags, ExprOp negated,
                         ExprOp swapped) {
  return {spelling,
          p,
          (flags & static_cast<unsigned>(infix)) != 0,
          (flags & static_cast<unsigned>(predicate)) != 0,
          (flags & static_cast<unsigned>(order)) != 0,
          negated,
          swapped};
}

constexpr unsigned operator|(ExprOpFlag a, ExprOpFlag b) {
  return static_cast<unsigned>(a) | static_cast<unsigned>(b);
}
constexpr unsigned operator|(unsigned a, ExprOpFlag b) {
  return a | static_cast<unsigned>(b);
}
constexpr unsigned flags_of(unsigned f) {
  return f;
}
constexpr unsigned flags_of(ExprOpFlag f) {
  return static_cast<unsigned>(f);
}

/// Indexed by ExprOp.
constexpr ExprOpInfo op_table[] = {
#define PTXGEN_EXPR_OP(id, spelling, precedence, flags, negated, swapped)                          \
  row(spelling, Precedence::precedence, flags_of(flags), ExprOp::negated, ExprOp::swapped),
#include "emitter/tile/expr_ops.def"
#undef PTXGEN_EXPR_OP
};

} // namespace

const ExprOpInfo& info(ExprOp op) {
  return op_table[static_cast<std::size_t>(op)];
}

std::span<const ExprOpInfo> expr_op_table() {
  return op_table;
}

std::string_view op_spelling(ExprOp op) {
  return info(op).spelling;
}

ExprPtr make_constant(std::int64_t v) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::constant;
  e->value = v;
  return e;
}

ExprPtr make_leaf(ExprKind k, std::string name) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  if (k == ExprKind::param || k == ExprKind::axis || k == ExprKind::loop)
    e->name = std::move(name);
  return e;
}

ExprPtr make_special(Special s) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::special;
  e->special = s;
  return e;
}

namespace {

// The value of a special for the thread `tid` of CTA `bid`.
std::int64_t special_value(Special s, const ExprEnv& env) {
  const SpecialRow& r = special_row(s);
  const Dim3& g = env.grid_dim;
  const Dim3& c = env.cluster_dim;
  if (r.over == Over::cluster || r.over == Over::clusters) {
    const Dim3 q = cluster_grid(g, c);
    if (r.extent)
      return r.over == Over::cluster ? c.count() : q.count();
    // The CTA's coordinates, x fastest; its cluster's and its place inside that cluster.
    const Dim3 b{env.bid % g.x, env.bid / g.x % g.y, env.bid / (g.x * g.y)};
    if (r.over == Over::cluster)
      return b.x % c.x + c.x * (b.y % c.y + c.y * (b.z % c.z));
    return b.x / c.x + q.x * (b.y / c.y + q.y * (b.z / c.z));
  }
  const Dim3& d = r.over == Over::grid ? g : env.block_dim;
  if (r.extent)
    return r.axis == kAllAxes ? d.count() : dim_axis(d, r.axis);
  // A linear index splits x fastest, then y, then z.
  const i64 i = r.over == Over::grid ? env.bid : env.tid;
  if (r.axis == 0)
    return i % d.x;
  if (r.axis == 1)
    return i / d.x % d.y;
  return i / (d.x * d.y);
}

} // namespace

std::string_view spelling(Special s) {
  return special_row(s).spelling;
}

std::optional<Special> parse_special(std::string_view text) {
  for (Special s : kSpecials)
    if (spelling(s) == text)
      return s;
  return std::nullopt;
}

bool per_thread(Special s) {
  const SpecialRow& r = special_row(s);
  return r.over == Over::block && !r.extent;
}

bool of_cluster(Special s) {
  const Over o = special_row(s).over;
  return o == Over::cluster || o == Over::clusters;
}

bool uses_thread(const Expr& e) {
  return find_node(e, is_per_thread_leaf) != nullptr;
}

ExprPtr make_unary(ExprOp op, ExprPtr a) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::unary;
  e->op = op;
  e->args = {std::move(a)};
  return e;
}

ExprPtr make_binary(ExprOp op, ExprPtr a, ExprPtr b) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::binary;
  e->op = op;
  e->args = {std::move(a), std::move(b)};
  return e;
}

ExprPtr make_select(ExprPtr c, ExprPtr a, ExprPtr b) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::select;
  e->args = {std::move(c), std::move(a), std::move(b)};
  return e;
}

std::optional<std::int64_t> evaluate(const Expr& e, const ExprEnv& env) {
  switch (e.kind) {
  case ExprKind::constant:
    return e.value;
  case ExprKind::tid:
    return env.tid;
  case ExprKind::warp:
    return env.tid / 32;
  case ExprKind::lane:
    return env.tid % 32;
  case ExprKind::bid:
    return env.bid;
  case ExprKind::param: {
    auto it = env.params.find(e.name);
    if (it == env.params.end())
      return std::nullopt;
    return it->second;
  }
  case ExprKind::axis: {
    auto it = env.axes.find(e.name);
    if (it == env.axes.end())
      return std::nullopt;
    return it->second;
  }
  case ExprKind::loop: {
    auto it = env.loops.find(e.name);
    if (it == env.loops.end())
      return std::nullopt;
    return it->second;
  }
  case ExprKind::special:
    if (env.block_dim.x < 1 || env.block_dim.y < 1 || env.grid_dim.x < 1 || env.grid_dim.y < 1)
      return std::nullopt;
    return special_value(e.special, env);
  case ExprKind::unary: {
    auto a = evaluate(*e.args[0], env);
    if (!a)
      return std::nullopt;
    if (e.op == ExprOp::neg)
      return checked_sub(0, *a);
    return *a == 0 ? 1 : 0;
  }
  case ExprKind::binary: {
    auto a = evaluate(*e.args[0], env);
    if (!a)
      return std::nullopt;
    if (e.op == ExprOp::logical_and && *a == 0)
      return 0;
    if (e.op == ExprOp::logical_or && *a != 0)
      return 1;
    auto b = evaluate(*e.args[1], env);
    if (!b)
      return std::nullopt;
    return apply_binary(e.op, *a, *b);
  }
  case ExprKind::select: {
    auto c = evaluate(*e.args[0], env);
    if (!c)
      return std::nullopt;
    return evaluate(*e.args[*c != 0 ? 1 : 2], env);
  }
  }
  unreachable("not an ExprKind value");
}

std::optional<Interval> bounds(const Expr& e, const LaunchBounds& launch) {
  if (launch.block < 1 || launch.grid < 1)
    return std::nullopt;
  return bounds_rec(e, launch);
}

std::optional<LaunchBounds> narrow_on(const Expr& cond, bool truth, const LaunchBounds& launch) {
  LaunchBounds l = launch;
  if (!narrow(cond, truth, l))
    return std::nullopt;
  return l;
}

namespace {

// A rebuilt node after substitution: a constant when it folds, else `x op 0`
// and `x * 1` (either order) reduce to x; spans are kept.
ExprPtr fold_substituted(const std::shared_ptr<Expr>& e) {
  if (auto c = constant_value(*e)) {
    auto k = std::make_shared<Expr>(*make_constant(*c));
    k->offset = e->offset;
    k->length = e->length;
    return k;
  }
  auto is = [](const ExprPtr& x, std::int64_t v) {
    return x->kind == ExprKind::constant && x->value == v;
  };
  // A decided condition evaluates one side only, as evaluate() does.
  if (e->kind == ExprKind::select && e->args[0]->kind == ExprKind::constant)
    return e->args[e->args[0]->value != 0 ? 1 : 2];
  if (e->kind != ExprKind::binary)
    return e;
  if (e->op == ExprOp::logical_and && is(e->args[0], 0))
    return make_constant(0);
  if (e->op == ExprOp::logical_or && e->args[0]->kind == ExprKind::constant &&
      e->args[0]->value != 0)
    return make_constant(1);
  const ExprPtr& l = e->args[0];
  const ExprPtr& r = e->args[1];
  switch (e->op) {
  case ExprOp::add:
  case ExprOp::bit_or:
  case ExprOp::bit_xor:
    if (is(r, 0))
      return l;
    if (is(l, 0))
      return r;
    return e;
  case ExprOp::sub:
  case ExprOp::shl:
  case ExprOp::shr:
    return is(r, 0) ? l : e;
  case ExprOp::mul:
    if (is(r, 1))
      return l;
    if (is(l, 1))
      return r;
    return e;
  case ExprOp::none:
  case ExprOp::div:
  case ExprOp::rem:
  case ExprOp::bit_and:
  case ExprOp::min:
  case ExprOp::max:
  case ExprOp::lt:
  case ExprOp::le:
  case ExprOp::gt:
  case ExprOp::ge:
  case ExprOp::eq:
  case ExprOp::ne:
  case ExprOp::logical_and:
  case ExprOp::logical_or:
  case ExprOp::logical_not:
  case ExprOp::neg:
    return e;
  }
  unreachable("not an ExprOp or ExprKind value");
}

} // namespace

ExprPtr substitute(const ExprPtr& e, const std::function<ExprPtr(const Expr&)>& leaf) {
  if (e->args.empty()) {
    ExprPtr r = leaf(*e);
    if (!r)
      return e;
    auto c = std::make_shared<Expr>(*r);
    c->offset = e->offset;
    c->length = e->length;
    return c;
  }
  bool changed = false;
  std::vector<ExprPtr> args;
  for (const auto& a : e->args) {
    args.push_back(substitute(a, leaf));
    changed = changed || args.back() != a;
  }
  if (!changed)
    return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->args = std::move(args);
  return fold_substituted(copy);
}

ExprPtr substitute_axes(const ExprPtr& e,
                        const std::map<std::string, std::int64_t, std::less<>>& coords) {
  return substitute(e, [&coords](const Expr& x) -> ExprPtr {
    if (x.kind != ExprKind::axis)
      return nullptr;
    auto it = coords.find(x.name);
    return it == coords.end() ? nullptr : make_constant(it->second);
  });
}

ExprPtr fold_truth(const ExprPtr& e) {
  auto truth = [](const ExprPtr& x) -> std::optional<bool> {
    if (x->kind != ExprKind::constant)
      return std::nullopt;
    return x->value != 0;
  };
  if (e->kind == ExprKind::unary && e->op == ExprOp::logical_not) {
    ExprPtr a = fold_truth(e->args[0]);
    if (auto t = truth(a))
      return make_constant(*t ? 0 : 1);
    if (a == e->args[0])
      return e;
    return make_unary(ExprOp::logical_not, a);
  }
  if (e->kind != ExprKind::binary || (e->op != ExprOp::logical_and && e->op != ExprOp::logical_or))
    return e;
  ExprPtr a = fold_truth(e->args[0]);
  ExprPtr b = fold_truth(e->args[1]);
  const bool is_and = e->op == ExprOp::logical_and;
  for (int side = 0; side < 2; ++side) {
    auto t = truth(side == 0 ? a : b);
    if (!t)
      continue;
    if (*t == is_and) // x && 1, x || 0: the other side decides
      return side == 0 ? b : a;
    return make_constant(is_and ? 0 : 1); // x && 0, x || 1
  }
  if (a == e->args[0] && b == e->args[1])
    return e;
  return make_binary(e->op, a, b);
}

bool is_constant(const Expr& e) {
  if (e.kind == ExprKind::constant)
    return true;
  if (e.args.empty())
    return false;
  return std::all_of(e.args.begin(), e.args.end(),
                     [](const ExprPtr& a) { return is_constant(*a); });
}

std::optional<std::int64_t> constant_value(const Expr& e) {
  if (!is_constant(e))
    return std::nullopt;
  return evaluate(e, ExprEnv{});
}

bool structurally_equal(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.op != b.op || a.args.size() != b.args.size())
    return false;
  if (a.kind == ExprKind::constant && a.value != b.value)
    return false;
  if ((a.kind == ExprKind::param || a.kind == ExprKind::axis || a.kind == ExprKind::loop) &&
      a.name != b.name)
    return false;
  if (a.kind == ExprKind::special && a.special != b.special)
    return false;
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (!structurally_equal(*a.args[i], *b.args[i]))
      return false;
  return true;
}

std::string print(const Expr& e) {
  std::string out;
  print_rec(e, out);
  return out;
}

} // namespace ptxgen::tile
