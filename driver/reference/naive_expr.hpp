#pragma once
// The reference's own evaluation of index / size / predicate expressions.
//
// Written separately from tile::evaluate on purpose, so a mistake in either
// shows up as a disagreement. Values are mathematical integers in int64
// (wrapping on overflow, never undefined behaviour); `/` and `%` truncate
// toward zero like C; `>>` is arithmetic; comparisons and logical operators
// yield 0 or 1 (`&&` and `||` short-circuit, `c ? a : b` evaluates one arm);
// `^` is xor, min/max the smaller/larger operand; a repeat axis is its
// coordinate in env.axes; warp = tid / 32, lane = tid % 32.

#include "emitter/tile/expr.hpp"

#include <cstdint>
#include <optional>

namespace ptxgen::driver {

/// nullopt for a division or remainder by zero (or INT64_MIN / -1), a shift
/// amount outside 0..63, an unknown parameter or a malformed node.
std::optional<std::int64_t> naive_evaluate(const tile::Expr& e, const tile::ExprEnv& env);

} // namespace ptxgen::driver
