#pragma once
// Index, size and predicate expressions: `tid < valid_rows ? 16 : 0`.
//
// Grammar (C precedence): ternary `c ? a : b` and `if_then_else(c, a, b)`;
// `||`; `&&`; `|`; `&`; `== !=`; `< <= > >=`; `<< >>`; `+ -`; `* / %`;
// unary `! -`; atoms: integer literals (decimal or 0x), `tid`, `warp`,
// `lane`, `bid`, names of kernel parameters, parentheses. Also accepted:
// `T.uint32(x)` / `uint32(x)` as the identity (the seed's spelling).
// Values are mathematical integers (evaluated in int64); comparisons and
// logical operators yield 0 or 1. warp = tid / 32, lane = tid % 32.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emitter/support/result.hpp"

namespace ptxgen::tile {

enum class ExprKind : std::uint8_t {
  constant, ///< an integer literal
  tid,      ///< %tid.x
  warp,     ///< tid / 32
  lane,     ///< tid % 32
  bid,      ///< %ctaid.x
  param,    ///< a named kernel parameter
  unary,    ///< op args[0]
  binary,   ///< args[0] op args[1]
  select,   ///< args[0] ? args[1] : args[2]
};

enum class ExprOp : std::uint8_t {
  none,
  add, sub, mul, div, rem, shl, shr, bit_and, bit_or,
  lt, le, gt, ge, eq, ne, logical_and, logical_or,
  logical_not, neg,
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind = ExprKind::constant;
  ExprOp op = ExprOp::none;
  std::int64_t value = 0;      ///< for constant
  std::string name;            ///< for param
  std::vector<ExprPtr> args;   ///< 1 (unary), 2 (binary) or 3 (select)
  std::uint32_t offset = 0;    ///< span in the parsed string (0-based byte offset)
  std::uint32_t length = 0;
};

ExprPtr make_constant(std::int64_t v);
ExprPtr make_leaf(ExprKind k, std::string name = {}); ///< tid, warp, lane, bid or param
ExprPtr make_unary(ExprOp op, ExprPtr a);
ExprPtr make_binary(ExprOp op, ExprPtr a, ExprPtr b);
ExprPtr make_select(ExprPtr c, ExprPtr a, ExprPtr b);

/// Parses the whole of `text`. `is_param(name)` says which identifiers are
/// kernel parameters; any other identifier is an error pointing at it.
Result<ExprPtr> parse_expr(std::string_view text,
                           const std::function<bool(std::string_view)>& is_param);

/// The values of the leaves for one thread.
struct ExprEnv {
  std::int64_t tid = 0;
  std::int64_t bid = 0;
  std::map<std::string, std::int64_t, std::less<>> params;
};

/// Evaluates for one thread. Division or remainder by zero, and a shift
/// outside 0..63, yield nullopt.
std::optional<std::int64_t> evaluate(const Expr& e, const ExprEnv& env);

/// An inclusive integer range.
struct Interval {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  bool contains(std::int64_t v) const { return lo <= v && v <= hi; }
  bool operator==(const Interval&) const = default;
};

/// The ranges of the leaves over a launch.
struct LaunchBounds {
  std::int64_t block = 1; ///< tid in 0..block-1
  std::int64_t grid = 1;  ///< bid in 0..grid-1
  std::map<std::string, Interval, std::less<>> params; ///< a parameter's declared range
};

/// A sound over-approximation of e's values over the launch (interval arithmetic;
/// `tid < c ? a : b` narrows nothing but joins both arms). nullopt when a
/// division by a range containing zero or similar makes it unbounded.
std::optional<Interval> bounds(const Expr& e, const LaunchBounds& launch);

/// True when e uses no leaf but constants (it may still need folding).
bool is_constant(const Expr& e);

/// Canonical text: fully parenthesised where precedence requires, `c ? a : b`.
std::string print(const Expr& e);

} // namespace ptxgen::tile
