#include "driver/reference/naive_expr.hpp"

#include "driver/reference/naive_view.hpp"
#include "emitter/support/unreachable.hpp"

#include <array>
#include <limits>
#include <map>
#include <variant>

namespace ptxgen::driver {
namespace {

// Each operator is defined here from its mathematical meaning: the exact result over 128-bit
// integers (which hold any sum, difference, product or 2^k multiple of two int64 values),
// then cut to the low 64 bits, two's complement, as the 64-bit register the lowering writes
// keeps them. Written apart from tile::evaluate, which checks each operation instead, so the
// two agree wherever neither overflows and a mistake in one shows up against the other.
__extension__ typedef __int128 Wide;
__extension__ typedef unsigned __int128 WideBits;
using Exact = std::optional<Wide>;

constexpr Wide kInt64Low = std::numeric_limits<std::int64_t>::min();
constexpr Wide kInt64High = std::numeric_limits<std::int64_t>::max();

std::int64_t low_64_bits(Wide v) {
  const auto bits = static_cast<std::uint64_t>(static_cast<WideBits>(v));
  return static_cast<std::int64_t>(bits);
}

Wide magnitude(Wide v) {
  return v < 0 ? -v : v;
}

Wide two_to_the(Wide k) {
  Wide p = 1;
  for (Wide i = 0; i < k; ++i) {
    p *= 2;
  }
  return p;
}

// C's quotient, rounded toward zero: the quotient of the magnitudes, negated when the signs
// differ. None for a zero divisor or a quotient outside int64 (INT64_MIN / -1); the
// remainder is defined through this quotient, so it has no value there either.
Exact toward_zero_quotient(Wide a, Wide b) {
  if (b == 0) {
    return std::nullopt;
  }
  const Wide q = magnitude(a) / magnitude(b);
  const Wide signed_q = (a < 0) == (b < 0) ? q : -q;
  if (signed_q < kInt64Low || signed_q > kInt64High) {
    return std::nullopt;
  }
  return signed_q;
}

bool shift_in_range(Wide k) {
  return k >= 0 && k <= 63;
}

// The 64-bit two's complement patterns of a and b combined bit by bit.
template <class Combine>
Wide bitwise(Wide a, Wide b, Combine combine) {
  const auto x = static_cast<std::uint64_t>(static_cast<WideBits>(a));
  const auto y = static_cast<std::uint64_t>(static_cast<WideBits>(b));
  return static_cast<std::int64_t>(combine(x, y));
}

Wide truth(bool holds) {
  return holds ? 1 : 0;
}

// What a && or || already knows from its left operand alone.
enum class ShortCircuit : std::uint8_t { never, zero_when_left_false, one_when_left_true };

// One operator's meaning: how many operands it takes (0: not an operator) and its exact result.
struct OpRule {
  int arity = 0;
  Exact (*exact)(Wide a, Wide b) = nullptr;
  ShortCircuit short_circuit = ShortCircuit::never;
};

constexpr OpRule unary_rule(Exact (*f)(Wide, Wide)) {
  return {1, f, ShortCircuit::never};
}
constexpr OpRule binary_rule(Exact (*f)(Wide, Wide), ShortCircuit sc = ShortCircuit::never) {
  return {2, f, sc};
}

// One function per line of expr_ops.def, named after its id: a new operator without its
// meaning here fails to compile the table below.
constexpr OpRule rule_none() {
  return {};
}
constexpr OpRule rule_add() {
  return binary_rule([](Wide a, Wide b) -> Exact { return a + b; });
}
constexpr OpRule rule_sub() {
  return binary_rule([](Wide a, Wide b) -> Exact { return a - b; });
}
constexpr OpRule rule_mul() {
  return binary_rule([](Wide a, Wide b) -> Exact { return a * b; });
}
constexpr OpRule rule_div() {
  return binary_rule([](Wide a, Wide b) -> Exact { return toward_zero_quotient(a, b); });
}
constexpr OpRule rule_rem() {
  return binary_rule([](Wide a, Wide b) -> Exact {
    const Exact q = toward_zero_quotient(a, b);
    if (!q) {
      return std::nullopt;
    }
    return a - *q * b;
  });
}
constexpr OpRule rule_shl() {
  return binary_rule([](Wide a, Wide k) -> Exact {
    if (!shift_in_range(k)) {
      return std::nullopt;
    }
    return a * two_to_the(k);
  });
}
// floor(a / 2^k): for a negative a, minus the ceiling of |a| / 2^k.
constexpr OpRule rule_shr() {
  return binary_rule([](Wide a, Wide k) -> Exact {
    if (!shift_in_range(k)) {
      return std::nullopt;
    }
    const Wide p = two_to_the(k);
    if (a >= 0) {
      return a / p;
    }
    return -((-a + p - 1) / p);
  });
}
constexpr OpRule rule_bit_and() {
  return binary_rule([](Wide a, Wide b) -> Exact {
    return bitwise(a, b, [](std::uint64_t x, std::uint64_t y) { return x & y; });
  });
}
constexpr OpRule rule_bit_or() {
  return binary_rule([](Wide a, Wide b) -> Exact {
    return bitwise(a, b, [](std::uint64_t x, std::uint64_t y) { return x | y; });
  });
}
constexpr OpRule rule_bit_xor() {
  return binary_rule([](Wide a, Wide b) -> Exact {
    return bitwise(a, b, [](std::uint64_t x, std::uint64_t y) { return x ^ y; });
  });
}
constexpr OpRule rule_min() {
  return binary_rule([](Wide a, Wide b) -> Exact { return b < a ? b : a; });
}
constexpr OpRule rule_max() {
  return binary_rule([](Wide a, Wide b) -> Exact { return b > a ? b : a; });
}
constexpr OpRule rule_lt() {
  return binary_rule([](Wide a, Wide b) -> Exact { return truth(a < b); });
}
constexpr OpRule rule_le() {
  return binary_rule([](Wide a, Wide b) -> Exact { return truth(!(b < a)); });
}
constexpr OpRule rule_gt() {
  return binary_rule([](Wide a, Wide b) -> Exact { return truth(b < a); });
}
constexpr OpRule rule_ge() {
  return binary_rule([](Wide a, Wide b) -> Exact { return truth(!(a < b)); });
}
constexpr OpRule rule_eq() {
  return binary_rule([](Wide a, Wide b) -> Exact { return truth(a == b); });
}
constexpr OpRule rule_ne() {
  return binary_rule([](Wide a, Wide b) -> Exact { return truth(a != b); });
}
constexpr OpRule rule_logical_and() {
  return binary_rule([](Wide a, Wide b) -> Exact { return truth(a != 0 && b != 0); },
                     ShortCircuit::zero_when_left_false);
}
constexpr OpRule rule_logical_or() {
  return binary_rule([](Wide a, Wide b) -> Exact { return truth(a != 0 || b != 0); },
                     ShortCircuit::one_when_left_true);
}
constexpr OpRule rule_logical_not() {
  return unary_rule([](Wide a, Wide) -> Exact { return truth(a == 0); });
}
constexpr OpRule rule_neg() {
  return unary_rule([](Wide a, Wide) -> Exact { return -a; });
}

constexpr OpRule kOpRules[] = {
#define PTXGEN_EXPR_OP(id, spelling, precedence, flags, negated, swapped) rule_##id(),
#include "emitter/tile/expr_ops.def"
#undef PTXGEN_EXPR_OP
};

const OpRule& rule_of(tile::ExprOp op) {
  const auto i = static_cast<std::size_t>(op);
  if (i >= std::size(kOpRules)) {
    unreachable("naive_expr: not an ExprOp value");
  }
  return kOpRules[i];
}

// The coordinates of a linear index in a launch extent, x fastest.
std::array<std::int64_t, 3> unravel(std::int64_t linear, const tile::Dim3& d) {
  std::array<std::int64_t, 3> c{};
  c[0] = linear % d.x;
  linear /= d.x;
  c[1] = linear % d.y;
  c[2] = linear / d.y;
  return c;
}

/// A cluster special of the CTA at coordinates `c` of grid `g`, clusters of `cl` CTAs: the
/// CTA's place inside its cluster and its cluster's place in the grid of clusters, each
/// numbered x fastest, as the PTX manual numbers %cluster_ctarank and clusters.
std::int64_t naive_cluster(tile::Special s, const std::array<std::int64_t, 3>& c,
                           const tile::Dim3& g, const tile::Dim3& cl) {
  const std::array<std::int64_t, 3> size{cl.x, cl.y, cl.z};
  const std::array<std::int64_t, 3> grid{g.x, g.y, g.z};
  std::int64_t rank = 0, id = 0, in_cluster = 1, clusters = 1;
  for (int a = 2; a >= 0; --a) { // z outermost
    const auto i = static_cast<std::size_t>(a);
    rank = rank * size[i] + c[i] % size[i];
    id = id * (grid[i] / size[i]) + c[i] / size[i];
    in_cluster *= size[i];
    clusters *= grid[i] / size[i];
  }
  if (s == tile::Special::cluster_rank)
    return rank;
  if (s == tile::Special::cluster_size)
    return in_cluster;
  return s == tile::Special::cluster_id ? id : clusters;
}

std::optional<std::int64_t> naive_special(tile::Special s, const tile::ExprEnv& env) {
  const tile::Dim3& b = env.block_dim;
  const tile::Dim3& g = env.grid_dim;
  if (b.x <= 0 || b.y <= 0 || g.x <= 0 || g.y <= 0) {
    return std::nullopt;
  }
  const auto t = unravel(env.tid, b);
  const auto c = unravel(env.bid, g);
  switch (s) {
  case tile::Special::tid_x:
    return t[0];
  case tile::Special::tid_y:
    return t[1];
  case tile::Special::tid_z:
    return t[2];
  case tile::Special::ntid:
    return b.x * b.y * b.z;
  case tile::Special::ntid_x:
    return b.x;
  case tile::Special::ntid_y:
    return b.y;
  case tile::Special::ntid_z:
    return b.z;
  case tile::Special::bid_x:
    return c[0];
  case tile::Special::bid_y:
    return c[1];
  case tile::Special::bid_z:
    return c[2];
  case tile::Special::nbid:
    return g.x * g.y * g.z;
  case tile::Special::nbid_x:
    return g.x;
  case tile::Special::nbid_y:
    return g.y;
  case tile::Special::nbid_z:
    return g.z;
  case tile::Special::cluster_rank:
  case tile::Special::cluster_size:
  case tile::Special::cluster_id:
  case tile::Special::ncluster:
    return naive_cluster(s, c, g, env.cluster_dim);
  }
  unreachable("naive_expr: not a Special value");
}

std::optional<std::int64_t> named_value(const std::map<std::string, std::int64_t, std::less<>>& m,
                                        const std::string& name) {
  const auto it = m.find(name);
  if (it == m.end()) {
    return std::nullopt;
  }
  return it->second;
}

// The value of a node that is not an operator application.
std::optional<std::int64_t> leaf_value(const tile::Expr& e, const tile::ExprEnv& env) {
  switch (e.kind) {
  case tile::ExprKind::param:
    return named_value(env.params, e.name);
  case tile::ExprKind::axis:
    return named_value(env.axes, e.name);
  case tile::ExprKind::loop:
    return named_value(env.loops, e.name);
  case tile::ExprKind::special:
    return naive_special(e.special, env);
  case tile::ExprKind::constant:
    return e.value;
  case tile::ExprKind::bid:
    return env.bid;
  case tile::ExprKind::tid:
    return env.tid;
  case tile::ExprKind::warp:
    return env.tid / 32;
  case tile::ExprKind::lane:
    return env.tid - 32 * (env.tid / 32);
  case tile::ExprKind::unary:
  case tile::ExprKind::binary:
  case tile::ExprKind::select:
    return std::nullopt; // operator nodes: naive_evaluate applies them
  }
  unreachable("naive_expr: not an ExprKind value");
}

std::optional<std::int64_t> operand(const tile::Expr& e, std::size_t i, const tile::ExprEnv& env) {
  if (i >= e.args.size() || !e.args[i]) {
    return std::nullopt;
  }
  return naive_evaluate(*e.args[i], env);
}

// An operator node with `arity` operands: its rule's exact result, wrapped to 64 bits.
std::optional<std::int64_t> apply_rule(const tile::Expr& e, int arity, const tile::ExprEnv& env) {
  const OpRule& rule = rule_of(e.op);
  if (rule.arity != arity) {
    return std::nullopt;
  }
  const auto left = operand(e, 0, env);
  if (!left) {
    return std::nullopt;
  }
  if (rule.short_circuit == ShortCircuit::zero_when_left_false && *left == 0) {
    return 0;
  }
  if (rule.short_circuit == ShortCircuit::one_when_left_true && *left != 0) {
    return 1;
  }
  Wide right = 0;
  if (arity == 2) {
    const auto r = operand(e, 1, env);
    if (!r) {
      return std::nullopt;
    }
    right = *r;
  }
  const Exact exact = rule.exact(*left, right);
  if (!exact) {
    return std::nullopt;
  }
  return low_64_bits(*exact);
}

NaiveDependence special_dependence(tile::Special s) {
  NaiveDependence d;
  d.thread = s == tile::Special::tid_x || s == tile::Special::tid_y || s == tile::Special::tid_z;
  // The CTA's rank in its cluster and its cluster's index change between CTAs as bid does.
  d.varies = s == tile::Special::bid_x || s == tile::Special::bid_y || s == tile::Special::bid_z ||
             s == tile::Special::cluster_rank || s == tile::Special::cluster_id;
  return d;
}

// What the node itself (not its operands) depends on.
NaiveDependence own_dependence(const tile::Expr& e) {
  NaiveDependence d;
  switch (e.kind) {
  case tile::ExprKind::special:
    return special_dependence(e.special);
  case tile::ExprKind::axis:
    d.axis = true;
    return d;
  case tile::ExprKind::loop:
  case tile::ExprKind::bid:
    d.varies = true;
    return d;
  case tile::ExprKind::lane:
  case tile::ExprKind::warp:
  case tile::ExprKind::tid:
    d.thread = true;
    return d;
  case tile::ExprKind::param:
  case tile::ExprKind::constant:
    return d; // fixed for the launch
  case tile::ExprKind::select:
  case tile::ExprKind::binary:
  case tile::ExprKind::unary:
    return d; // only through the operands
  }
  unreachable("naive_expr: not an ExprKind value");
}

} // namespace

std::optional<std::int64_t> naive_evaluate(const tile::Expr& e, const tile::ExprEnv& env) {
  if (e.kind == tile::ExprKind::unary) {
    return apply_rule(e, 1, env);
  }
  if (e.kind == tile::ExprKind::binary) {
    return apply_rule(e, 2, env);
  }
  if (e.kind == tile::ExprKind::select) {
    // Only the arm the condition picks is evaluated (a division by zero in the other is fine).
    const auto c = operand(e, 0, env);
    if (!c) {
      return std::nullopt;
    }
    return operand(e, *c != 0 ? 1 : 2, env);
  }
  return leaf_value(e, env);
}

NaiveDependence naive_dependence(const tile::Expr& e) {
  NaiveDependence d = own_dependence(e);
  for (const tile::ExprPtr& a : e.args) {
    if (!a) {
      continue;
    }
    const NaiveDependence sub = naive_dependence(*a);
    d.thread = d.thread || sub.thread;
    d.axis = d.axis || sub.axis;
    d.varies = d.varies || sub.varies;
  }
  return d;
}

std::vector<std::string> naive_axis_names(const tile::View& v, std::size_t base_rank) {
  std::vector<std::string> names(base_rank);
  for (const tile::ViewStep& step : v.steps) {
    if (const auto* r = std::get_if<tile::RearrangeStep>(&step)) {
      auto pattern = parse_naive_pattern(r->pattern);
      if (!pattern) {
        return {};
      }
      names.clear();
      for (const auto& group : pattern->rhs) {
        if (group.size() == 1) {
          names.push_back(group[0]);
        } else {
          names.emplace_back();
        }
      }
    } else if (const auto* sub = std::get_if<tile::SubStep>(&step)) {
      std::vector<std::string> kept;
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (i >= sub->entries.size() || sub->entries[i].is_slice) {
          kept.push_back(names[i]);
        }
      }
      names = kept;
    }
    // A dtype view keeps the axes and their names.
  }
  return names;
}

} // namespace ptxgen::driver
