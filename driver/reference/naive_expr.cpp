#include "driver/reference/naive_expr.hpp"

#include "emitter/support/unreachable.hpp"

#include <array>
#include <limits>
#include <variant>

namespace ptxgen::driver {
namespace {

std::int64_t wrap(std::uint64_t v) {
  return static_cast<std::int64_t>(v);
}
std::uint64_t bits(std::int64_t v) {
  return static_cast<std::uint64_t>(v);
}

std::optional<std::int64_t> binary(tile::ExprOp op, std::int64_t a, std::int64_t b) {
  using tile::ExprOp;
  switch (op) {
  case ExprOp::add:
    return wrap(bits(a) + bits(b));
  case ExprOp::sub:
    return wrap(bits(a) - bits(b));
  case ExprOp::mul:
    return wrap(bits(a) * bits(b));
  case ExprOp::div:
  case ExprOp::rem:
    if (b == 0 || (a == std::numeric_limits<std::int64_t>::min() && b == -1)) {
      return std::nullopt;
    }
    return op == ExprOp::div ? a / b : a % b;
  case ExprOp::shl:
  case ExprOp::shr:
    if (b < 0 || b > 63) {
      return std::nullopt;
    }
    return op == ExprOp::shl ? wrap(bits(a) << b) : a >> b;
  case ExprOp::bit_and:
    return a & b;
  case ExprOp::bit_or:
    return a | b;
  case ExprOp::bit_xor:
    return a ^ b;
  case ExprOp::min:
    if (a < b) {
      return a;
    }
    return b;
  case ExprOp::max:
    if (a > b) {
      return a;
    }
    return b;
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
  unreachable("naive_expr: not an ExprOp value");
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
  }
  unreachable("naive_expr: not a Special value");
}

} // namespace

std::optional<std::int64_t> naive_evaluate(const tile::Expr& e, const tile::ExprEnv& env) {
  using tile::ExprKind;
  auto arg = [&](std::size_t i) -> std::optional<std::int64_t> {
    if (i >= e.args.size() || !e.args[i]) {
      return std::nullopt;
    }
    return naive_evaluate(*e.args[i], env);
  };
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
    if (it == env.params.end()) {
      return std::nullopt;
    }
    return it->second;
  }
  case ExprKind::axis: {
    auto it = env.axes.find(e.name);
    if (it == env.axes.end()) {
      return std::nullopt;
    }
    return it->second;
  }
  case ExprKind::loop: {
    auto it = env.loops.find(e.name);
    if (it == env.loops.end()) {
      return std::nullopt;
    }
    return it->second;
  }
  case ExprKind::special:
    return naive_special(e.special, env);
  case ExprKind::unary: {
    auto a = arg(0);
    if (!a) {
      return std::nullopt;
    }
    if (e.op == tile::ExprOp::logical_not) {
      return *a == 0 ? 1 : 0;
    }
    if (e.op == tile::ExprOp::neg) {
      return wrap(0 - bits(*a));
    }
    return std::nullopt;
  }
  case ExprKind::binary: {
    auto a = arg(0);
    if (!a) {
      return std::nullopt;
    }
    // && and || short-circuit as in C, like `c ? a : b` evaluates one arm.
    if (e.op == tile::ExprOp::logical_and && *a == 0) {
      return 0;
    }
    if (e.op == tile::ExprOp::logical_or && *a != 0) {
      return 1;
    }
    auto b = arg(1);
    if (!b) {
      return std::nullopt;
    }
    return binary(e.op, *a, *b);
  }
  case ExprKind::select: {
    auto c = arg(0);
    if (!c) {
      return std::nullopt;
    }
    return *c != 0 ? arg(1) : arg(2);
  }
  }
  unreachable("naive_expr: not an ExprKind value");
}

NaiveDependence naive_dependence(const tile::Expr& e) {
  NaiveDependence d;
  switch (e.kind) {
  case tile::ExprKind::tid:
  case tile::ExprKind::warp:
  case tile::ExprKind::lane:
    d.thread = true;
    break;
  case tile::ExprKind::special:
    d.thread = e.special == tile::Special::tid_x || e.special == tile::Special::tid_y ||
               e.special == tile::Special::tid_z;
    d.varies = e.special == tile::Special::bid_x || e.special == tile::Special::bid_y ||
               e.special == tile::Special::bid_z;
    break;
  case tile::ExprKind::axis:
    d.axis = true;
    break;
  case tile::ExprKind::bid:
  case tile::ExprKind::loop:
    d.varies = true;
    break;
  case tile::ExprKind::constant:
  case tile::ExprKind::param:
  case tile::ExprKind::unary:
  case tile::ExprKind::binary:
  case tile::ExprKind::select:
    break;
  }
  for (const tile::ExprPtr& a : e.args) {
    if (a) {
      const NaiveDependence ad = naive_dependence(*a);
      d.thread = d.thread || ad.thread;
      d.axis = d.axis || ad.axis;
      d.varies = d.varies || ad.varies;
    }
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
