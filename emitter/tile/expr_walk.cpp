#include "emitter/tile/expr_walk.hpp"

#include "emitter/support/unreachable.hpp"

#include <algorithm>

namespace ptxgen::tile {

const Expr* find_node(const Expr& e, const std::function<bool(const Expr&)>& hit) {
  if (hit(e))
    return &e;
  for (const ExprPtr& a : e.args)
    if (const Expr* found = find_node(*a, hit))
      return found;
  return nullptr;
}

bool is_per_thread_leaf(const Expr& e) {
  switch (e.kind) {
  case ExprKind::tid:
  case ExprKind::warp:
  case ExprKind::lane:
    return true;
  case ExprKind::special:
    return per_thread(e.special);
  case ExprKind::constant:
  case ExprKind::bid:
  case ExprKind::param:
  case ExprKind::axis:
  case ExprKind::loop:
  case ExprKind::unary:
  case ExprKind::binary:
  case ExprKind::select:
    return false;
  }
  unreachable("is_per_thread_leaf(): not an ExprKind");
}

bool uses_params(const Expr& e) {
  return find_node(e, [](const Expr& x) {
           return x.kind == ExprKind::param || x.kind == ExprKind::loop;
         }) != nullptr;
}

bool uses_params(const View& v) {
  return std::any_of(v.terms.begin(), v.terms.end(),
                     [](const RuntimeTerm& t) { return uses_params(*t.index); });
}

bool uses_thread(const View& v) {
  return std::any_of(v.terms.begin(), v.terms.end(),
                     [](const RuntimeTerm& t) { return uses_thread(*t.index); });
}

} // namespace ptxgen::tile
