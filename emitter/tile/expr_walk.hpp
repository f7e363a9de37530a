#pragma once
// Walks over expression trees that more than one layer asks: the first node that answers a
// question, the leaves whose value differs between threads, and the names (parameters,
// loop variables) whose value is known only as a range.

#include "emitter/tile/expr.hpp"
#include "emitter/tile/view.hpp"

#include <functional>

namespace ptxgen::tile {

/// The first node of e, in pre-order, for which `hit` holds; nullptr when none does.
const Expr* find_node(const Expr& e, const std::function<bool(const Expr&)>& hit);

/// True for a leaf whose value may differ between the threads of a CTA (tid, warp, lane,
/// tid.x/y/z).
bool is_per_thread_leaf(const Expr& e);

/// True when e names a parameter or a loop variable: a value known only as a range, which
/// the thread alone does not fix.
bool uses_params(const Expr& e);
/// True when an index of v names a parameter or a loop variable.
bool uses_params(const View& v);

/// True when some index of the view depends on the thread (tid, warp or lane).
bool uses_thread(const View& v);

} // namespace ptxgen::tile
