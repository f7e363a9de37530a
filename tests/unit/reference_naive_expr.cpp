// The reference's expression evaluator (driver/reference/naive_expr) against the
// emitter's (tile::evaluate): two evaluators written apart, compared over random
// trees and values (a fixed seed), and the edge cases where their definitions
// part on purpose checked by hand from the arithmetic.
//
// Where they part: tile::evaluate has no value for a result outside int64
// (overflowing + - * <<, -INT64_MIN), the reference keeps its low 64 bits as the
// 64-bit registers of the lowering do; and INT64_MIN % -1 is 0 in tile::evaluate
// but has no value in the reference (its quotient leaves int64).
#include "driver/reference/naive_expr.hpp"
#include "emitter/tile/expr.hpp"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_naive_expr {

namespace {

namespace tile = ptxgen::tile;
using ptxgen::driver::naive_evaluate;
using tile::ExprKind;
using tile::ExprOp;
using tile::ExprPtr;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

ExprPtr constant(std::int64_t v) {
  return tile::make_constant(v);
}
ExprPtr binary(ExprOp op, ExprPtr a, ExprPtr b) {
  return tile::make_binary(op, std::move(a), std::move(b));
}
std::optional<std::int64_t> naive(ExprOp op, std::int64_t a, std::int64_t b) {
  return naive_evaluate(*binary(op, constant(a), constant(b)), tile::ExprEnv{});
}

// Random trees over every operator, leaf kind and special, with values that
// include the edges (0, +-1, the shift limits, INT64_MIN and INT64_MAX).
class TreeMaker {
public:
  explicit TreeMaker(std::uint64_t seed) : rng_(seed) {}

  std::uint64_t below(std::uint64_t n) { return rng_() % n; }

  std::int64_t value() {
    static constexpr std::int64_t kEdges[] = {0,         1,
                                              -1,        2,
                                              -2,        31,
                                              32,        33,
                                              63,        64,
                                              65,        -63,
                                              -64,       7,
                                              100,       -100,
                                              kMin,      kMax,
                                              kMin + 1,  kMax - 1,
                                              1LL << 32, -(1LL << 32),
                                              1LL << 62, -(1LL << 62)};
    switch (below(4)) {
    case 0:
      return kEdges[below(std::size(kEdges))];
    case 1:
      return static_cast<std::int64_t>(rng_()); // any 64-bit pattern
    default:
      return static_cast<std::int64_t>(below(201)) - 100;
    }
  }

  ExprPtr leaf() {
    switch (below(10)) {
    case 0:
      return tile::make_leaf(ExprKind::tid);
    case 1:
      return tile::make_leaf(ExprKind::warp);
    case 2:
      return tile::make_leaf(ExprKind::lane);
    case 3:
      return tile::make_leaf(ExprKind::bid);
    case 4:
      return tile::make_leaf(ExprKind::param, below(8) == 0 ? "missing" : "n");
    case 5:
      return tile::make_leaf(ExprKind::axis, "r");
    case 6:
      return tile::make_leaf(ExprKind::loop, "i");
    case 7:
      return tile::make_special(tile::kSpecials[below(std::size(tile::kSpecials))]);
    default:
      return constant(value());
    }
  }

  ExprPtr tree(int depth) {
    if (depth == 0 || below(4) == 0) {
      return leaf();
    }
    const auto ops = tile::expr_op_table();
    switch (below(8)) {
    case 0:
      return tile::make_select(tree(depth - 1), tree(depth - 1), tree(depth - 1));
    case 1:
      return tile::make_unary(below(2) == 0 ? ExprOp::neg : ExprOp::logical_not, tree(depth - 1));
    case 2: // clamp(x, lo, hi), as the parser keeps it
      return binary(ExprOp::min, binary(ExprOp::max, tree(depth - 1), tree(depth - 1)),
                    tree(depth - 1));
    default: {
      ExprOp op = ExprOp::none;
      while (op == ExprOp::none || op == ExprOp::neg || op == ExprOp::logical_not) {
        op = static_cast<ExprOp>(below(ops.size()));
      }
      return binary(op, tree(depth - 1), tree(depth - 1));
    }
    }
  }

  tile::ExprEnv env() {
    tile::ExprEnv e;
    e.block_dim = {static_cast<std::int64_t>(1 + below(64)),
                   static_cast<std::int64_t>(1 + below(3)),
                   static_cast<std::int64_t>(1 + below(2))};
    e.grid_dim = {static_cast<std::int64_t>(1 + below(8)), static_cast<std::int64_t>(1 + below(3)),
                  1};
    e.tid = static_cast<std::int64_t>(below(static_cast<std::uint64_t>(e.block_dim.count())));
    e.bid = static_cast<std::int64_t>(below(static_cast<std::uint64_t>(e.grid_dim.count())));
    e.params["n"] = value();
    e.axes["r"] = value();
    e.loops["i"] = value();
    return e;
  }

private:
  std::mt19937_64 rng_;
};

std::uint64_t bits(std::int64_t v) {
  return static_cast<std::uint64_t>(v);
}

// A node where the reference keeps a value and tile::evaluate has none, while
// every operand both evaluate agrees: the reference must hold the low 64 bits of
// the exact result (computed here in unsigned arithmetic, which is modulo 2^64).
bool wraps_as_registers(const tile::Expr& e, const tile::ExprEnv& env, std::int64_t got) {
  const auto a = e.args.empty() ? std::nullopt : tile::evaluate(*e.args[0], env);
  if (!a) {
    return false;
  }
  if (e.kind == ExprKind::unary) {
    return e.op == ExprOp::neg && bits(got) == 0 - bits(*a);
  }
  const auto b = e.args.size() < 2 ? std::nullopt : tile::evaluate(*e.args[1], env);
  if (e.kind != ExprKind::binary || !b) {
    return false;
  }
  switch (e.op) {
  case ExprOp::add:
    return bits(got) == bits(*a) + bits(*b);
  case ExprOp::sub:
    return bits(got) == bits(*a) - bits(*b);
  case ExprOp::mul:
    return bits(got) == bits(*a) * bits(*b);
  case ExprOp::shl:
    return *b >= 0 && *b < 64 && bits(got) == bits(*a) << *b;
  default:
    return false;
  }
}

// Why the two evaluators part on e (see the file's comment), or "" when they
// agree; a disagreement is followed down to the node where it starts.
std::string disagreement(const tile::Expr& e, const tile::ExprEnv& env) {
  const auto emitter = tile::evaluate(e, env);
  const auto reference = naive_evaluate(e, env);
  if (emitter == reference) {
    return "";
  }
  if (emitter && reference) {
    return "different values";
  }
  for (const ExprPtr& a : e.args) {
    const auto ea = tile::evaluate(*a, env);
    const auto ra = naive_evaluate(*a, env);
    if (ea != ra && (ea.has_value() == emitter.has_value())) {
      return disagreement(*a, env); // the operand that already parts the same way
    }
  }
  if (reference) {
    return wraps_as_registers(e, env, *reference) ? "" : "a value where tile::evaluate has none";
  }
  const bool min_rem_minus_one = e.kind == ExprKind::binary && e.op == ExprOp::rem &&
                                 tile::evaluate(*e.args[0], env) == kMin &&
                                 tile::evaluate(*e.args[1], env) == -1;
  return min_rem_minus_one ? "" : "no value where tile::evaluate has one";
}

TEST_CASE("naive_evaluate agrees with tile::evaluate over random trees") {
  TreeMaker make(0x5eed2a11c0ffeeULL);
  int both_values = 0;
  int both_none = 0;
  int wrapped = 0;
  for (int i = 0; i < 20000; ++i) {
    const ExprPtr e = make.tree(1 + static_cast<int>(make.below(5)));
    const tile::ExprEnv env = make.env();
    const std::string why = disagreement(*e, env);
    INFO("tree: " << tile::print(*e) << "  tid " << env.tid << " bid " << env.bid << " n "
                  << env.params.at("n") << " r " << env.axes.at("r") << " i " << env.loops.at("i"));
    CHECK(why == "");
    const auto emitter = tile::evaluate(*e, env);
    const auto reference = naive_evaluate(*e, env);
    both_values += emitter && reference ? 1 : 0;
    both_none += !emitter && !reference ? 1 : 0;
    wrapped += !emitter && reference ? 1 : 0;
  }
  // The trees reach every kind of outcome, so the comparison above tested something.
  CHECK(both_values > 5000);
  CHECK(both_none > 500);
  CHECK(wrapped > 100);
}

TEST_CASE("naive_evaluate: the edges, from the definitions") {
  // Division truncates toward zero; the remainder has the dividend's sign.
  CHECK(naive(ExprOp::div, -7, 2) == -3);
  CHECK(naive(ExprOp::div, 7, -2) == -3);
  CHECK(naive(ExprOp::div, -7, -2) == 3);
  CHECK(naive(ExprOp::rem, -7, 2) == -1);
  CHECK(naive(ExprOp::rem, 7, -2) == 1);
  CHECK(naive(ExprOp::rem, -7, -2) == -1);
  CHECK(naive(ExprOp::div, kMin, 2) == -(1LL << 62));
  CHECK(naive(ExprOp::div, kMin, kMin) == 1);
  CHECK(naive(ExprOp::rem, kMin, kMax) == -1);
  // No value: a zero divisor, a quotient outside int64.
  CHECK(naive(ExprOp::div, 5, 0) == std::nullopt);
  CHECK(naive(ExprOp::rem, 5, 0) == std::nullopt);
  CHECK(naive(ExprOp::div, kMin, -1) == std::nullopt);
  CHECK(naive(ExprOp::rem, kMin, -1) == std::nullopt);
  CHECK(naive(ExprOp::rem, kMin + 1, -1) == 0);
  // Shifts: counts 0..63 only; << keeps the low 64 bits; >> rounds toward minus infinity.
  CHECK(naive(ExprOp::shl, 5, 64) == std::nullopt);
  CHECK(naive(ExprOp::shl, 5, -1) == std::nullopt);
  CHECK(naive(ExprOp::shr, 5, 64) == std::nullopt);
  CHECK(naive(ExprOp::shr, 5, -1) == std::nullopt);
  CHECK(naive(ExprOp::shl, 1, 63) == kMin);
  CHECK(naive(ExprOp::shl, 3, 62) == -(1LL << 62)); // 0xC000...0
  CHECK(naive(ExprOp::shl, -1, 0) == -1);
  CHECK(naive(ExprOp::shr, -7, 1) == -4);
  CHECK(naive(ExprOp::shr, -1, 63) == -1);
  CHECK(naive(ExprOp::shr, kMin, 63) == -1);
  CHECK(naive(ExprOp::shr, kMax, 62) == 1);
  // + - * wrap modulo 2^64.
  CHECK(naive(ExprOp::add, kMax, 1) == kMin);
  CHECK(naive(ExprOp::sub, kMin, 1) == kMax);
  CHECK(naive(ExprOp::mul, kMin, -1) == kMin);
  CHECK(naive(ExprOp::mul, 1LL << 32, 1LL << 32) == 0);
  CHECK(naive_evaluate(*tile::make_unary(ExprOp::neg, constant(kMin)), tile::ExprEnv{}) == kMin);
  // Two's complement bits, ordered comparisons, min and max.
  CHECK(naive(ExprOp::bit_and, -1, kMin) == kMin);
  CHECK(naive(ExprOp::bit_or, kMin, kMax) == -1);
  CHECK(naive(ExprOp::bit_xor, -5, 3) == -8);
  CHECK(naive(ExprOp::min, kMin, kMax) == kMin);
  CHECK(naive(ExprOp::max, kMin, kMax) == kMax);
  CHECK(naive(ExprOp::le, 3, 3) == 1);
  CHECK(naive(ExprOp::ge, 2, 3) == 0);
  CHECK(naive(ExprOp::ne, kMin, kMax) == 1);
  // Only the arm or side taken is evaluated: 1 / 0 elsewhere is no error.
  const ExprPtr none = binary(ExprOp::div, constant(1), constant(0));
  const tile::ExprEnv env;
  CHECK(naive_evaluate(*tile::make_select(constant(1), constant(4), none), env) == 4);
  CHECK(naive_evaluate(*tile::make_select(constant(0), none, constant(5)), env) == 5);
  CHECK(naive_evaluate(*tile::make_select(none, constant(4), constant(5)), env) == std::nullopt);
  CHECK(naive_evaluate(*binary(ExprOp::logical_or, constant(-3), none), env) == 1);
  CHECK(naive_evaluate(*binary(ExprOp::logical_and, constant(0), none), env) == 0);
  CHECK(naive_evaluate(*binary(ExprOp::logical_and, constant(2), none), env) == std::nullopt);
  // clamp(x, lo, hi) = min(max(x, lo), hi).
  const auto clamp = [&](std::int64_t x) {
    return naive_evaluate(
        *binary(ExprOp::min, binary(ExprOp::max, constant(x), constant(0)), constant(16)), env);
  };
  CHECK(clamp(-5) == 0);
  CHECK(clamp(9) == 9);
  CHECK(clamp(kMax) == 16);
}

} // namespace

} // namespace unit_reference_naive_expr
