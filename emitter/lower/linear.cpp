#include "emitter/lower/linear.hpp"

#include "emitter/support/unreachable.hpp"

#include <optional>

namespace ptxgen::lower {

using tile::Expr;
using tile::ExprKind;
using tile::ExprOp;
using tile::ExprPtr;

namespace {

/// A leaf's place in compare()'s order; compound expressions (kCompound) come after every leaf.
constexpr int kCompound = 8;
int leaf_rank(ExprKind k) {
  switch (k) {
  case ExprKind::constant:
    return 0;
  case ExprKind::param:
    return 1;
  case ExprKind::bid:
    return 2;
  case ExprKind::lane:
    return 3;
  case ExprKind::tid:
    return 4;
  case ExprKind::warp:
    return 5;
  case ExprKind::special:
    return 6;
  case ExprKind::loop:
    return 7;
  case ExprKind::axis: // the lowering sees repeat axes only substituted (substitute_axes)
    unreachable("compare() of a repeat-axis leaf");
  case ExprKind::unary:
  case ExprKind::binary:
  case ExprKind::select:
    return kCompound;
  }
  unreachable("not an ExprKind");
}

} // namespace

int compare(const Expr& a, const Expr& b) {
  if (int c = three_way(leaf_rank(a.kind), leaf_rank(b.kind)))
    return c;
  if (leaf_rank(a.kind) != kCompound) { // two leaves of one kind
    if (a.kind == ExprKind::constant)
      return three_way(a.value, b.value);
    if (a.kind == ExprKind::param || a.kind == ExprKind::loop)
      return three_way(a.name, b.name);
    if (a.kind == ExprKind::special)
      return three_way(a.special, b.special);
    return 0;
  }
  if (!a.args.empty() && !b.args.empty())
    if (int c = compare(*a.args[0], *b.args[0]))
      return c;
  if (int c = three_way(tile::op_spelling(a.op), tile::op_spelling(b.op)))
    return c;
  if (int c = three_way(a.op, b.op)) // `-a` and `a - b` are both spelled "-"
    return c;
  if (int c = three_way(a.kind, b.kind))
    return c;
  if (int c = three_way(a.args.size(), b.args.size()))
    return c;
  for (std::size_t i = 1; i < a.args.size(); ++i)
    if (int c = compare(*a.args[i], *b.args[i]))
      return c;
  return 0;
}

int compare_registers(const Linear& a, const Linear& b) {
  if (int c = three_way(a.folded, b.folded))
    return c;
  if (int c = three_way(a.wrap32, b.wrap32))
    return c;
  if (int c = three_way(a.terms.size(), b.terms.size()))
    return c;
  for (auto i = a.terms.begin(), j = b.terms.begin(); i != a.terms.end(); ++i, ++j) {
    if (int c = compare(*i->first, *j->first))
      return c;
    if (int c = three_way(i->second, j->second))
      return c;
  }
  return 0;
}

namespace {

/// e = a op b as a linear form, when op keeps it linear (else nullopt: e is an atom).
std::optional<Linear> linearize_binary(ExprOp op, const ExprPtr& a, const ExprPtr& b) {
  Linear l;
  switch (op) {
  case ExprOp::add:
    l.add(linearize(a), 1);
    l.add(linearize(b), 1);
    return l;
  case ExprOp::sub:
    l.add(linearize(a), 1);
    l.add(linearize(b), -1);
    return l;
  case ExprOp::mul:
    if (auto c = tile::constant_value(*b)) {
      l.add(linearize(a), *c);
      return l;
    }
    if (auto c = tile::constant_value(*a)) {
      l.add(linearize(b), *c);
      return l;
    }
    return std::nullopt;
  case ExprOp::shl:
    if (auto c = tile::constant_value(*b); c && *c >= 0 && *c < 31) {
      l.add(linearize(a), std::int64_t{1} << *c);
      return l;
    }
    return std::nullopt;
  // Not linear in their operands: the whole expression is an atom.
  case ExprOp::div:
  case ExprOp::rem:
  case ExprOp::shr:
  case ExprOp::bit_and:
  case ExprOp::bit_or:
  case ExprOp::bit_xor:
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
    return std::nullopt;
  // Not binary operators.
  case ExprOp::none:
  case ExprOp::logical_not:
  case ExprOp::neg:
    unreachable("linearize: a binary expression with a unary or no operator");
  }
  unreachable("linearize: not an ExprOp");
}

} // namespace

Linear linearize(const ExprPtr& e) {
  Linear l;
  if (auto c = tile::constant_value(*e)) {
    l.constant = *c;
    return l;
  }
  if (e->kind == ExprKind::binary)
    if (auto b = linearize_binary(e->op, e->args[0], e->args[1]))
      return *b;
  if (e->kind == ExprKind::unary && e->op == ExprOp::neg) {
    l.add(linearize(e->args[0]), -1);
    return l;
  }
  l.add_atom(e, 1);
  return l;
}

void recombine_warp_lane(Linear& l) {
  auto w = l.terms.find(tile::make_leaf(ExprKind::warp));
  auto n = l.terms.find(tile::make_leaf(ExprKind::lane));
  if (w == l.terms.end() || n == l.terms.end())
    return;
  const std::int64_t c = n->second;
  if (w->second != 32 * c)
    return;
  l.terms.erase(w);
  l.terms.erase(n);
  l.add_atom(tile::make_leaf(ExprKind::tid), c);
}

} // namespace ptxgen::lower
