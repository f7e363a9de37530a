// Expression trees: builders, evaluation, canonical printing. The parser is in
// expr_parser.cpp, interval bounds in expr_bounds.cpp.

#include "emitter/tile/expr.hpp"

#include "emitter/support/unreachable.hpp"
#include "emitter/tile/checked_int.hpp"
#include "emitter/tile/expr_walk.hpp"

#include <algorithm>

namespace ptxgen::tile {

namespace {

using i64 = std::int64_t;
using checked_int::checked_add;
using checked_int::checked_div;
using checked_int::checked_mul;
using checked_int::checked_rem;
using checked_int::checked_shl;
using checked_int::checked_shr;
using checked_int::checked_sub;

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
