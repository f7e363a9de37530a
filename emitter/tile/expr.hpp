#pragma once
// Index, size and predicate expressions: `tid < valid_rows ? 16 : 0`.
//
// Grammar (C precedence): ternary `c ? a : b` and `if_then_else(c, a, b)`;
// `||`; `&&`; `|`; `^`; `&`; `== !=`; `< <= > >=`; `<< >>`; `+ -`; `* / %`;
// unary `! -`; atoms: integer literals (decimal or 0x), `tid`, `warp`,
// `lane`, `bid`, names of kernel parameters, names of repeat axes where the
// caller allows them, parentheses, and the calls `min(a, b)`, `max(a, b)`,
// `clamp(x, lo, hi)` (kept as `min(max(x, lo), hi)`). Also accepted:
// `T.uint32(x)` / `uint32(x)` as the identity (the seed's spelling).
// Values are mathematical integers (evaluated in int64); comparisons and
// logical operators yield 0 or 1. warp = tid / 32, lane = tid % 32.
//
// Parsing details: `-` directly before an integer literal folds into a negative
// constant (so print() of a negative constant parses back to the same tree);
// `uint32(x)` disappears (x is kept, its span widened to the call); nesting is
// limited to kMaxExprDepth levels.

#include "emitter/support/result.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::tile {

enum class ExprKind : std::uint8_t {
  constant, ///< an integer literal
  tid,      ///< %tid.x
  warp,     ///< tid / 32
  lane,     ///< tid % 32
  bid,      ///< %ctaid.x
  param,    ///< a named kernel parameter
  axis,     ///< a named repeat axis of an apply's view (its coordinate)
  loop,     ///< a loop variable (`for` ... `end`), by name
  special,  ///< a launch coordinate or size other than tid and bid (Expr::special)
  unary,    ///< op args[0]
  binary,   ///< args[0] op args[1]
  select,   ///< args[0] ? args[1] : args[2]
};

/// The launch coordinates and sizes beyond the linear `tid` and `bid`, as
/// spelled in expressions: `tid.x`, `ntid`, `nbid.y`... `ntid` and `nbid` are
/// the totals (threads per CTA, CTAs in the grid).
enum class Special : std::uint8_t {
  tid_x,  ///< tid.x: %tid.x
  tid_y,  ///< tid.y: %tid.y
  tid_z,  ///< tid.z: %tid.z
  ntid,   ///< ntid: threads per CTA (ntid.x * ntid.y * ntid.z)
  ntid_x, ///< ntid.x: %ntid.x
  ntid_y, ///< ntid.y: %ntid.y
  ntid_z, ///< ntid.z: %ntid.z
  bid_x,  ///< bid.x: %ctaid.x
  bid_y,  ///< bid.y: %ctaid.y
  bid_z,  ///< bid.z: %ctaid.z
  nbid,   ///< nbid: CTAs in the grid (nbid.x * nbid.y * nbid.z)
  nbid_x, ///< nbid.x: %nctaid.x
  nbid_y, ///< nbid.y: %nctaid.y
  nbid_z, ///< nbid.z: %nctaid.z
  /// The cluster's (`[kernel] cluster`, sm_90): the CTA's rank in its cluster (x fastest:
  /// %cluster_ctarank), the CTAs of a cluster (%cluster_nctarank), the cluster's linear index
  /// in the grid of clusters (x fastest; %clusterid.x when that grid is one-dimensional) and
  /// how many clusters the grid has (%nclusterid.x * .y * .z).
  cluster_rank,
  cluster_size,
  cluster_id,
  ncluster,
};

/// Every Special, in enum order.
inline constexpr Special kSpecials[] = {
    Special::tid_x,      Special::tid_y,   Special::tid_z,        Special::ntid,
    Special::ntid_x,     Special::ntid_y,  Special::ntid_z,       Special::bid_x,
    Special::bid_y,      Special::bid_z,   Special::nbid,         Special::nbid_x,
    Special::nbid_y,     Special::nbid_z,  Special::cluster_rank, Special::cluster_size,
    Special::cluster_id, Special::ncluster};

/// True for the specials of a cluster (cluster_rank, cluster_size, cluster_id, ncluster).
bool of_cluster(Special s);

/// The spelling in expressions: "tid.x", "ntid", "nbid.z"...; inverse of parse_special.
std::string_view spelling(Special s);

/// The Special spelled `text`, or nullopt.
std::optional<Special> parse_special(std::string_view text);

/// True for the specials that differ between the threads of a CTA (tid.x, tid.y, tid.z).
bool per_thread(Special s);

/// A launch extent: grid or block dimensions.
struct Dim3 {
  std::int64_t x = 1;
  std::int64_t y = 1;
  std::int64_t z = 1;
  std::int64_t count() const { return x * y * z; }
  /// These dims, or x only ({total, 1, 1}) when they do not multiply to `total`
  /// (a Kernel or LaunchBounds built by hand that set only the total).
  Dim3 or_x(std::int64_t total) const { return count() == total ? *this : Dim3{total, 1, 1}; }
  bool operator==(const Dim3&) const = default;
};

/// How tightly an operator binds, loosest first (C's order); `call` and `atom` bind tightest.
enum class Precedence : std::uint8_t {
  ternary = 1,    ///< c ? a : b
  logical_or,     ///< ||
  logical_and,    ///< &&
  bit_or,         ///< |
  bit_xor,        ///< ^
  bit_and,        ///< &
  equality,       ///< == !=
  relational,     ///< < <= > >=
  shift,          ///< << >>
  additive,       ///< + -
  multiplicative, ///< * / %
  unary,          ///< - !
  call,           ///< min(a, b), max(a, b)
  atom,           ///< a leaf
};

/// The operators, one per line of expr_ops.def (which documents each).
enum class ExprOp : std::uint8_t {
#define PTXGEN_EXPR_OP(id, spelling, precedence, flags, negated, swapped) id,
#include "emitter/tile/expr_ops.def"
#undef PTXGEN_EXPR_OP
};

/// The flags column of expr_ops.def.
enum class ExprOpFlag : unsigned {
  infix = 1u << 0,     ///< a binary operator written between its operands
  predicate = 1u << 1, ///< its value is 0 or 1
  order = 1u << 2,     ///< depends on the operands' values beyond their residues mod 2^32
};

/// The properties expr_ops.def declares for one operator.
struct ExprOpInfo {
  std::string_view spelling; ///< "+", "<<", "min", "!"; "" for none
  Precedence precedence;
  bool infix;           ///< a binary operator written between its operands
  bool predicate;       ///< its value is 0 or 1 (comparisons and logical operators)
  bool order_sensitive; ///< depends on the values beyond their residues modulo 2^32
  ExprOp negated;       ///< the comparison that holds when this one fails; none otherwise
  ExprOp swapped;       ///< the comparison with its operands swapped; none otherwise
};

/// expr_ops.def's row for `op`.
const ExprOpInfo& info(ExprOp op);

/// Every operator, in enum order.
std::span<const ExprOpInfo> expr_op_table();

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind = ExprKind::constant;
  ExprOp op = ExprOp::none;
  std::int64_t value = 0;           ///< for constant
  std::string name;                 ///< for param, axis and loop
  Special special = Special::tid_x; ///< for special
  std::vector<ExprPtr> args;        ///< 1 (unary), 2 (binary) or 3 (select)
  std::uint32_t offset = 0;         ///< span in the parsed string (0-based byte offset)
  std::uint32_t length = 0;
};

ExprPtr make_constant(std::int64_t v);
ExprPtr make_leaf(ExprKind k, std::string name = {}); ///< tid, warp, lane, bid, param, axis or loop
ExprPtr make_special(Special s);
ExprPtr make_unary(ExprOp op, ExprPtr a);
ExprPtr make_binary(ExprOp op, ExprPtr a, ExprPtr b);
ExprPtr make_select(ExprPtr c, ExprPtr a, ExprPtr b);

/// Parses the whole of `text`. `is_param(name)` says which identifiers are
/// kernel parameters; any other identifier is an error pointing at it.
Result<ExprPtr> parse_expr(std::string_view text,
                           const std::function<bool(std::string_view)>& is_param);

/// As parse_expr, and `is_axis(name)` says which identifiers (not parameters)
/// are repeat axes (ExprKind::axis leaves).
Result<ExprPtr> parse_expr(std::string_view text,
                           const std::function<bool(std::string_view)>& is_param,
                           const std::function<bool(std::string_view)>& is_axis);

/// The names an expression may use besides tid, warp, lane, bid and the
/// specials: each callback says whether an identifier is of its kind (an
/// empty callback: none are). Tried in order: parameter, loop variable, axis.
struct ExprNames {
  std::function<bool(std::string_view)> is_param;
  std::function<bool(std::string_view)> is_axis;
  std::function<bool(std::string_view)> is_loop;
};

/// As parse_expr, with the names in `names`.
Result<ExprPtr> parse_expr(std::string_view text, const ExprNames& names);

/// The deepest tree parse_expr accepts (deeper input is an error, not a stack overflow).
inline constexpr unsigned kMaxExprDepth = 256;

/// Parses text[begin, end) as one expression; spans and diagnostics are offsets
/// into the whole of `text` (used for expressions embedded in a view string).
Result<ExprPtr> parse_expr_in(std::string_view text, std::size_t begin, std::size_t end,
                              const std::function<bool(std::string_view)>& is_param);

/// As parse_expr_in, with the names in `names`.
Result<ExprPtr> parse_expr_in(std::string_view text, std::size_t begin, std::size_t end,
                              const ExprNames& names);

/// The values of the leaves for one thread.
/// tid and bid are the linear indices; the specials derive from them and the
/// dimensions: tid.x = tid % ntid.x, tid.y = tid / ntid.x % ntid.y,
/// tid.z = tid / (ntid.x * ntid.y), likewise bid.* over grid_dim.
struct ExprEnv {
  std::int64_t tid = 0;
  std::int64_t bid = 0;
  Dim3 block_dim;   ///< ntid.x, ntid.y, ntid.z
  Dim3 grid_dim;    ///< nbid.x, nbid.y, nbid.z
  Dim3 cluster_dim; ///< the CTAs of a cluster along x, y, z (each divides grid_dim's)
  std::map<std::string, std::int64_t, std::less<>> params;
  std::map<std::string, std::int64_t, std::less<>> axes;  ///< repeat-axis coordinates
  std::map<std::string, std::int64_t, std::less<>> loops; ///< loop variables' values
};

/// Evaluates for one thread. Division or remainder by zero, and a shift
/// outside 0..63, yield nullopt.
///
/// `^` is xor on two's complement int64; min and max are the mathematical ones.
///
/// Semantics: `/` and `%` are C's (truncate toward zero; the remainder has the
/// dividend's sign); `<<` is multiplication by 2^k and `>>` is arithmetic
/// (floor division by 2^k); `&` and `|` act on two's complement int64. Any
/// result outside int64 (INT64_MIN / -1, overflowing + - * <<, -INT64_MIN)
/// yields nullopt, as does a parameter missing from env. `&&`, `||` and
/// `c ? a : b` evaluate only what C would (a division by zero in the arm not
/// taken is not an error).
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
  std::int64_t block = 1;                              ///< tid in 0..block-1
  std::int64_t grid = 1;                               ///< bid in 0..grid-1
  Dim3 block_dim{};                                    ///< its count() is block
  Dim3 grid_dim{};                                     ///< its count() is grid
  Dim3 cluster_dim{};                                  ///< divides grid_dim axis by axis
  std::map<std::string, Interval, std::less<>> params; ///< a parameter's declared range
  std::map<std::string, Interval, std::less<>> axes;   ///< a repeat axis: 0..size-1
  std::map<std::string, Interval, std::less<>> loops;  ///< a loop variable's range
  /// Narrower ranges of tid, warp, lane or bid known on a path (a select's arm);
  /// intersected with the launch's. Keys: only those four kinds.
  std::map<ExprKind, Interval> narrowed;
};

/// A sound over-approximation of e's values over the launch (interval arithmetic).
/// nullopt when a division by a range containing zero or similar makes it unbounded.
///
/// Path-sensitive selects: in `c ? a : b`, a is bounded where c holds and b where
/// it fails, when c compares a variable x (tid, warp, lane, bid, a parameter or an
/// axis) with an expression e (`x < e`, `x <= e`, `x > e`, `x >= e`, `x == e`,
/// either side), or is `!`, `&&` (then arm) or `||` (else arm) of such: x's range
/// is narrowed by e's bounds inside the arm. An arm whose narrowed range is empty
/// is unreachable and contributes nothing. min, max (hence clamp) are exact on
/// intervals; `^` is bounded by the operands' bit widths.
///
/// Leaves: tid 0..block-1, warp 0..(block-1)/32, lane 0..min(31, block-1),
/// bid 0..grid-1, an axis its range in `axes` (unbounded when absent),
/// a parameter its range in `params` or else 0..2^32-1
/// (block or grid below 1 gives nullopt). nullopt also for `/` or `%` whose
/// divisor range contains 0, a shift whose count range leaves 0..63, and any
/// bound that leaves int64. A select, `&&` or `||` whose condition's range is
/// decided (only 0, or excludes 0) takes that arm only; comparisons are {0,1}
/// unless the ranges decide them. Sound means: whenever evaluate() gives a value
/// for some thread of the launch, that value lies in the interval.
std::optional<Interval> bounds(const Expr& e, const LaunchBounds& launch);

/// `launch` restricted to where `cond` is `truth`, as bounds() narrows a select's
/// arms; nullopt when no thread can take that path.
std::optional<LaunchBounds> narrow_on(const Expr& cond, bool truth, const LaunchBounds& launch);

/// The values special s takes over the launch: an extent its one value, an index 0..n-1.
Interval special_range(Special s, const LaunchBounds& launch);

/// e with every axis leaf named in `coords` replaced by that constant. Nodes
/// that change are folded: to a constant when they become constant (an
/// operation with no value, such as 1 / 0, stays as it is), a select or a
/// `&&` / `||` whose left side became constant to what evaluate() takes, and `x + 0`,
/// `x - 0`, `x * 1`, `x | 0`, `x ^ 0`, `x << 0`, `x >> 0` to x. Subtrees that
/// do not change are shared with e (the same pointers).
ExprPtr substitute_axes(const ExprPtr& e,
                        const std::map<std::string, std::int64_t, std::less<>>& coords);

/// e with each leaf x for which `leaf(x)` returns an expression replaced by it
/// (nullptr: kept), folded as substitute_axes folds; unchanged subtrees are shared.
ExprPtr substitute(const ExprPtr& e, const std::function<ExprPtr(const Expr&)>& leaf);

/// An expression with e's truth value (zero or not) wherever e has a value,
/// with constant operands of `&&`, `||` and `!` folded away: `x || 0` and
/// `x && 1` are x, `x || 1` is 1, `x && 0` is 0. For conditions (pred,
/// ignore_src) whose value the contract has proved defined.
ExprPtr fold_truth(const ExprPtr& e);

/// True when e uses no leaf but constants (it may still need folding).
/// True when e's value may differ between the threads of a CTA (it uses tid, warp,
/// lane or tid.x/y/z).
bool uses_thread(const Expr& e);
bool is_constant(const Expr& e);

/// The value of a constant expression (is_constant and evaluable), else nullopt.
std::optional<std::int64_t> constant_value(const Expr& e);

/// Same tree (kinds, ops, values, names), ignoring spans.
bool structurally_equal(const Expr& a, const Expr& b);

/// Canonical text: fully parenthesised where precedence requires, `c ? a : b`.
/// parse_expr(print(e)) is structurally_equal to e.
std::string print(const Expr& e);

/// The operator's spelling: "+", "<<", "&&", "!" ...; "" for none (info(op).spelling).
std::string_view op_spelling(ExprOp op);

} // namespace ptxgen::tile
