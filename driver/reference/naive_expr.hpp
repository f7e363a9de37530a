#pragma once
// The reference's own evaluation of index / size / predicate expressions.
//
// Written separately from tile::evaluate on purpose (its own table of operator
// meanings, exact 128-bit results), so a mistake in either shows up as a
// disagreement. Values are mathematical integers in int64: each operation's
// exact result is cut to its low 64 bits, two's complement (wrapping on
// overflow, never undefined behaviour), where tile::evaluate has no value; `/` and `%` truncate
// toward zero like C; `>>` is arithmetic; comparisons and logical operators
// yield 0 or 1 (`&&` and `||` short-circuit, `c ? a : b` evaluates one arm);
// `^` is xor, min/max the smaller/larger operand; a repeat axis is its
// coordinate in env.axes; warp = tid / 32, lane = tid % 32.

#include "emitter/tile/expr.hpp"
#include "emitter/tile/view.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver {

/// nullopt for a division or remainder by zero (or INT64_MIN / -1), a shift
/// amount outside 0..63, an unknown parameter or a malformed node.
std::optional<std::int64_t> naive_evaluate(const tile::Expr& e, const tile::ExprEnv& env);

/// What an expression's value may change with inside one op of one CTA, where the CTA, the
/// loop variables and the parameters are fixed: the thread (tid, warp, lane, tid.x/y/z) and
/// the repeat axes of an apply. `varies`: it may also change between the CTAs or the
/// iterations of one launch (it uses the CTA or a loop variable); without it, the value is
/// fixed for a thread and its repeat coordinates (parameters and dimensions are the launch's).
struct NaiveDependence {
  bool thread = false;
  bool axis = false;
  bool varies = false;
};
NaiveDependence naive_dependence(const tile::Expr& e);

/// The name of each axis of v after all its steps ("" for an axis without a
/// single name), replayed from the step texts: a rearrange's right-hand side
/// names its axes (a group of one name is that name), an index in sub drops
/// its axis, a dtype view keeps them. These are the names src_size, ignore_src
/// and pred use for repeat coordinates. Empty when a pattern does not parse.
std::vector<std::string> naive_axis_names(const tile::View& v, std::size_t base_rank);

} // namespace ptxgen::driver
