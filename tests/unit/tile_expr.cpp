// Index expressions: parsing (trees, spans, errors with columns), evaluation,
// interval bounds (brute-force soundness) and the print/parse round trip.
#include "emitter/tile/expr.hpp"

#include <limits>
#include <map>
#include <random>
#include <string>

#include <doctest/doctest.h>

namespace doctest {
template <>
struct StringMaker<ptxgen::tile::Interval> {
  static String convert(const ptxgen::tile::Interval& i) {
    return ("[" + std::to_string(i.lo) + ", " + std::to_string(i.hi) + "]").c_str();
  }
};
template <>
struct StringMaker<std::optional<ptxgen::tile::Interval>> {
  static String convert(const std::optional<ptxgen::tile::Interval>& i) {
    return i ? StringMaker<ptxgen::tile::Interval>::convert(*i) : String("nullopt");
  }
};
} // namespace doctest

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_tile_expr {

using namespace ptxgen;
using namespace ptxgen::tile;

namespace {

bool is_param(std::string_view n) {
  return n == "valid_rows" || n == "n" || n == "p" || n == "q";
}

bool is_axis(std::string_view n) {
  return n == "r";
}

ExprPtr parse_ok(std::string_view text) {
  auto r = parse_expr(text, is_param, is_axis);
  INFO(text, " -> ", r.diagnostics.format_all());
  REQUIRE(r.value.has_value());
  return *r;
}

// The one diagnostic of a failed parse.
Diagnostic parse_err(std::string_view text) {
  auto r = parse_expr(text, is_param);
  INFO(text);
  REQUIRE_FALSE(r.value.has_value());
  REQUIRE(r.diagnostics.items().size() == 1);
  return r.diagnostics.items()[0];
}

std::optional<std::int64_t> eval(std::string_view text, std::int64_t tid = 0,
                                 std::int64_t bid = 0) {
  ExprEnv env;
  env.tid = tid;
  env.bid = bid;
  env.params["n"] = 10;
  env.params["valid_rows"] = 100;
  env.axes["r"] = 3;
  return evaluate(*parse_ok(text), env);
}

ExprPtr c(std::int64_t v) {
  return make_constant(v);
}
ExprPtr tid() {
  return make_leaf(ExprKind::tid);
}
ExprPtr param(std::string n) {
  return make_leaf(ExprKind::param, std::move(n));
}
ExprPtr bin(ExprOp op, ExprPtr a, ExprPtr b) {
  return make_binary(op, std::move(a), std::move(b));
}

} // namespace

TEST_CASE("precedence follows C") {
  CHECK(structurally_equal(*parse_ok("tid + 4 * n"),
                           *bin(ExprOp::add, tid(), bin(ExprOp::mul, c(4), param("n")))));
  CHECK(structurally_equal(*parse_ok("1 - 2 - 3"),
                           *bin(ExprOp::sub, bin(ExprOp::sub, c(1), c(2)), c(3))));
  CHECK(structurally_equal(*parse_ok("1 << 2 + 3"),
                           *bin(ExprOp::shl, c(1), bin(ExprOp::add, c(2), c(3)))));
  CHECK(structurally_equal(*parse_ok("tid & 3 == 3"),
                           *bin(ExprOp::bit_and, tid(), bin(ExprOp::eq, c(3), c(3)))));
  CHECK(structurally_equal(*parse_ok("1 | 2 & 3"),
                           *bin(ExprOp::bit_or, c(1), bin(ExprOp::bit_and, c(2), c(3)))));
  CHECK(
      structurally_equal(*parse_ok("tid < 1 || tid > 2 && n"),
                         *bin(ExprOp::logical_or, bin(ExprOp::lt, tid(), c(1)),
                              bin(ExprOp::logical_and, bin(ExprOp::gt, tid(), c(2)), param("n")))));
  CHECK(structurally_equal(*parse_ok("1 ? 2 : 3 ? 4 : 5"),
                           *make_select(c(1), c(2), make_select(c(3), c(4), c(5)))));
  CHECK(structurally_equal(*parse_ok("-tid * 2"),
                           *bin(ExprOp::mul, make_unary(ExprOp::neg, tid()), c(2))));
  CHECK(structurally_equal(*parse_ok("-5 * tid"), *bin(ExprOp::mul, c(-5), tid())));
  CHECK(structurally_equal(*parse_ok("!tid == 0"),
                           *bin(ExprOp::eq, make_unary(ExprOp::logical_not, tid()), c(0))));
  CHECK(structurally_equal(*parse_ok("0x10 + 0XfF"), *bin(ExprOp::add, c(16), c(255))));
  CHECK(parse_ok("warp")->kind == ExprKind::warp);
  CHECK(parse_ok("lane")->kind == ExprKind::lane);
  CHECK(parse_ok("bid")->kind == ExprKind::bid);
  // `^` sits between `&` and `|`, as in C.
  CHECK(structurally_equal(
      *parse_ok("1 | 2 ^ 3 & 4"),
      *bin(ExprOp::bit_or, c(1), bin(ExprOp::bit_xor, c(2), bin(ExprOp::bit_and, c(3), c(4))))));
  CHECK(structurally_equal(*parse_ok("1 ^ 2 ^ 3"),
                           *bin(ExprOp::bit_xor, bin(ExprOp::bit_xor, c(1), c(2)), c(3))));
  CHECK(structurally_equal(*parse_ok("tid ^ 1 == 1"),
                           *bin(ExprOp::bit_xor, tid(), bin(ExprOp::eq, c(1), c(1)))));
  CHECK(structurally_equal(
      *parse_ok("min(tid, n + 1) * 2"),
      *bin(ExprOp::mul, bin(ExprOp::min, tid(), bin(ExprOp::add, param("n"), c(1))), c(2))));
  CHECK(structurally_equal(
      *parse_ok("max(tid < 3 ? 1 : 2, -4)"),
      *bin(ExprOp::max, make_select(bin(ExprOp::lt, tid(), c(3)), c(1), c(2)), c(-4))));
  // clamp(x, lo, hi) is min(max(x, lo), hi).
  CHECK(structurally_equal(*parse_ok("clamp(tid, 0, n)"),
                           *bin(ExprOp::min, bin(ExprOp::max, tid(), c(0)), param("n"))));
  auto r = parse_ok("r * 16");
  CHECK(r->args[0]->kind == ExprKind::axis);
  CHECK(r->args[0]->name == "r");
  CHECK_FALSE(parse_expr("r * 16", is_param).value.has_value()); // no axes outside an apply
}

TEST_CASE("the seed's spellings: T.if_then_else and T.uint32") {
  auto want = make_select(bin(ExprOp::lt, tid(), param("valid_rows")), c(16), c(0));
  CHECK(structurally_equal(*parse_ok("T.if_then_else(tid < valid_rows, T.uint32(16), T.uint32(0))"),
                           *want));
  CHECK(structurally_equal(*parse_ok("if_then_else(tid < valid_rows, uint32(16), 0)"), *want));
  CHECK(structurally_equal(*parse_ok("tid < valid_rows ? 16 : 0"), *want));
  CHECK(structurally_equal(*parse_ok("uint32(tid + 1)"), *bin(ExprOp::add, tid(), c(1))));
}

TEST_CASE("spans cover each node's text") {
  //                       0123456789012
  auto e = parse_ok("tid + 4 * n");
  CHECK(e->offset == 0);
  CHECK(e->length == 11);
  CHECK(e->args[1]->offset == 6);
  CHECK(e->args[1]->length == 5);
  CHECK(e->args[1]->args[1]->offset == 10);
  auto p = parse_ok("(tid + 1) * 2");
  CHECK(p->offset == 0);
  CHECK(p->length == 13);
  CHECK(p->args[0]->offset == 0);
  CHECK(p->args[0]->length == 9);
  CHECK(p->args[0]->args[0]->offset == 1);
  auto n = parse_ok("  -12 ");
  CHECK(n->value == -12);
  CHECK(n->offset == 2);
  CHECK(n->length == 3);
}

TEST_CASE("parse errors point at the token") {
  auto d = parse_err("tid + foo");
  CHECK(d.column == 7);
  CHECK(d.length == 3);
  CHECK(d.message == "unknown name 'foo'; expected tid, warp, lane, bid, tid.x/y/z, bid.x/y/z, "
                     "ntid[.x/y/z], nbid[.x/y/z] or a kernel parameter");
  CHECK(d.line == 1);
  CHECK(d.source_line == "tid + foo");

  d = parse_err("(tid + 1");
  CHECK(d.column == 9);
  CHECK(d.message.rfind("expected ')'", 0) == 0);

  d = parse_err("(tid + 1 2");
  CHECK(d.column == 10);
  CHECK(d.message.rfind("expected ')'", 0) == 0);

  d = parse_err("tid +");
  CHECK(d.column == 6);
  CHECK(d.message == "unexpected end of expression");

  d = parse_err("3 * 99999999999999999999");
  CHECK(d.column == 5);
  CHECK(d.length == 20);
  CHECK(d.message.find("does not fit in 64 bits") != std::string::npos);

  d = parse_err("9223372036854775808");
  CHECK(d.column == 1);
  CHECK(d.message.find("does not fit in 64 bits") != std::string::npos);
  CHECK(parse_ok("-9223372036854775808")->value == std::numeric_limits<std::int64_t>::min());
  CHECK(parse_ok("9223372036854775807")->value == std::numeric_limits<std::int64_t>::max());
  CHECK(parse_err("-9223372036854775809").column == 1);

  d = parse_err("tid $ 1");
  CHECK(d.column == 5);
  d = parse_err("tid = 1");
  CHECK(d.column == 5);
  CHECK(d.message.find("'=='") != std::string::npos);
  d = parse_err("tid tid");
  CHECK(d.column == 5);
  d = parse_err("tid)");
  CHECK(d.column == 4);
  d = parse_err("12ab + 1");
  CHECK(d.column == 1);
  CHECK(d.length == 4);
  d = parse_err("tid * * 2");
  CHECK(d.column == 7);
  d = parse_err("tid ? 1");
  CHECK(d.column == 8);
  d = parse_err("if_then_else(tid, 1)");
  CHECK(d.column == 1);
  CHECK(d.message.find("takes 3 arguments") != std::string::npos);
  d = parse_err("mxa(tid, 1)");
  CHECK(d.column == 1);
  CHECK(d.id == DiagId::expr_unknown_function);
  CHECK(d.message.find("'max'") != std::string::npos); // the suggestion
  // Wrong arity: the caret covers the whole call.
  d = parse_err("min(tid)");
  CHECK(d.id == DiagId::expr_arity);
  CHECK(d.column == 1);
  CHECK(d.length == 8);
  d = parse_err("tid + max(1, 2, 3)");
  CHECK(d.id == DiagId::expr_arity);
  CHECK(d.column == 7);
  CHECK(d.length == 12);
  d = parse_err("clamp(tid, 0)");
  CHECK(d.id == DiagId::expr_arity);
  CHECK(d.length == 13);
  d = parse_err("min()");
  CHECK(d.id == DiagId::expr_arity);
  d = parse_err("tid ^^ 1");
  CHECK(d.id == DiagId::expr_syntax);
  CHECK(d.column == 6);
  d = parse_err("x ? 1 : 2");
  CHECK(d.column == 1);
  d = parse_err("   ");
  CHECK(d.message.find("empty") != std::string::npos);
}

TEST_CASE("parse_expr_in reports offsets into the whole text") {
  std::string text = "A.sub[tid + foo, :]";
  auto r = parse_expr_in(text, 6, 15, is_param);
  REQUIRE_FALSE(r.value.has_value());
  CHECK(r.diagnostics.items()[0].column == 13);
  CHECK(r.diagnostics.items()[0].source_line == text);
  auto ok = parse_expr_in(text, 6, 9, is_param);
  REQUIRE(ok.value.has_value());
  CHECK((*ok)->offset == 6);
  CHECK((*ok)->kind == ExprKind::tid);
}

TEST_CASE("nesting is limited instead of overflowing the stack") {
  std::string deep = std::string(300, '(') + "1" + std::string(300, ')');
  CHECK(parse_err(deep).message.find("nested too deeply") != std::string::npos);
  std::string chain = "1";
  for (int i = 0; i < 1000; ++i)
    chain += " + 1";
  CHECK(parse_err(chain).message.find("nested too deeply") != std::string::npos);
  CHECK(parse_err(std::string(5000, '-') + "1").message.find("nested too deeply") !=
        std::string::npos);
  std::string ok = std::string(100, '(') + "1" + std::string(100, ')');
  CHECK(parse_ok(ok)->value == 1);
  std::string ok_chain = "1";
  for (int i = 0; i < 200; ++i)
    ok_chain += " + 1";
  CHECK(eval(ok_chain) == 201);
}

TEST_CASE("evaluate: hand-worked values") {
  CHECK(eval("2 + 3 * 4") == 14);
  CHECK(eval("(2 + 3) * 4") == 20);
  CHECK(eval("1 - 2 - 3") == -4);
  CHECK(eval("2 * 3 % 4") == 2);
  CHECK(eval("1 << 2 + 1") == 8);
  CHECK(eval("5 & 3 == 3") == 1);
  CHECK(eval("1 | 2 & 3") == 3);
  CHECK(eval("6 & 3") == 2);
  CHECK(eval("6 | 3") == 7);
  CHECK(eval("7 / 2") == 3);
  CHECK(eval("-7 / 2") == -3); // C truncates toward zero
  CHECK(eval("-7 % 2") == -1); // the remainder has the dividend's sign
  CHECK(eval("7 % -2") == 1);
  CHECK(eval("-8 >> 1") == -4);
  CHECK(eval("-1 >> 10") == -1); // arithmetic shift
  CHECK(eval("-3 << 2") == -12);
  CHECK(eval("3 < 4") == 1);
  CHECK(eval("4 <= 3") == 0);
  CHECK(eval("!0") == 1);
  CHECK(eval("!5") == 0);
  CHECK(eval("2 && 3") == 1);
  CHECK(eval("0 || 0") == 0);
  CHECK(eval("1 ? 2 : 0 ? 3 : 4") == 2);
  CHECK(eval("0 ? 2 : 0 ? 3 : 4") == 4);
  CHECK(eval("warp", 70) == 2);
  CHECK(eval("lane", 70) == 6);
  CHECK(eval("bid * 128 + tid", 5, 3) == 389);
  CHECK(eval("tid < valid_rows ? 16 : 0", 99) == 16);
  CHECK(eval("tid < valid_rows ? 16 : 0", 100) == 0);
  CHECK(eval("n * n") == 100);
  CHECK(eval("6 ^ 3") == 5);
  CHECK(eval("-5 ^ 3") == -8);
  CHECK(eval("1 | 6 ^ 3 & 5") == 7); // 1 | (6 ^ 1)
  CHECK(eval("min(-3, 2)") == -3);
  CHECK(eval("max(-3, 2)") == 2);
  CHECK(eval("min(n, 4)") == 4);
  CHECK(eval("clamp(20, 0, 16)") == 16);
  CHECK(eval("clamp(-4, 0, 16)") == 0);
  CHECK(eval("clamp(7, 0, 16)") == 7);
  CHECK(eval("clamp(n * 2 - 16 * r, 0, 16)") == 0); // 20 - 48
  CHECK(eval("r") == 3);
  CHECK_FALSE(evaluate(*parse_ok("r"), ExprEnv{}).has_value()); // r has no value in env
  // Short circuit: the side not taken may not be evaluable.
  CHECK(eval("0 && 1 / 0") == 0);
  CHECK(eval("1 || 1 / 0") == 1);
  CHECK(eval("1 ? 5 : 1 / 0") == 5);
  CHECK(eval("0 ? 1 % 0 : 6") == 6);
  // Undefined or overflowing operations have no value.
  CHECK_FALSE(eval("1 / 0").has_value());
  CHECK_FALSE(eval("1 % (tid - tid)").has_value());
  CHECK_FALSE(eval("1 << 64").has_value());
  CHECK_FALSE(eval("1 << -1").has_value());
  CHECK_FALSE(eval("1 >> 64").has_value());
  CHECK_FALSE(eval("1 << 63").has_value());
  CHECK(eval("-1 << 63") == std::numeric_limits<std::int64_t>::min());
  CHECK_FALSE(eval("9223372036854775807 + 1").has_value());
  CHECK_FALSE(eval("-9223372036854775808 - 1").has_value());
  CHECK_FALSE(eval("4294967296 * 4294967296").has_value());
  CHECK_FALSE(eval("-9223372036854775808 / -1").has_value());
  CHECK(eval("-9223372036854775808 % -1") == 0);
  CHECK_FALSE(eval("-(-9223372036854775808)").has_value());
  CHECK_FALSE(evaluate(*param("p"), ExprEnv{}).has_value()); // p has no value in env
}

TEST_CASE("constant folding helpers") {
  CHECK(is_constant(*parse_ok("(3 + 4) * 2")));
  CHECK_FALSE(is_constant(*parse_ok("tid * 0")));
  CHECK(constant_value(*parse_ok("(3 + 4) * 2")) == 14);
  CHECK_FALSE(constant_value(*parse_ok("1 / 0")).has_value());
  CHECK_FALSE(constant_value(*parse_ok("n")).has_value());
}

TEST_CASE("bounds: leaves and hand-worked cases") {
  LaunchBounds l;
  l.block = 128;
  l.grid = 4;
  l.params["valid_rows"] = {0, 128};
  auto b = [&](std::string_view t) { return bounds(*parse_ok(t), l); };
  CHECK(b("tid") == Interval{0, 127});
  CHECK(b("warp") == Interval{0, 3});
  CHECK(b("lane") == Interval{0, 31});
  CHECK(b("bid") == Interval{0, 3});
  CHECK(b("n") == Interval{0, 4294967295});
  CHECK(b("valid_rows") == Interval{0, 128});
  CHECK(b("tid % 32") == Interval{0, 31});
  CHECK(b("tid & 15") == Interval{0, 15});
  CHECK(b("tid / 32") == Interval{0, 3});
  CHECK(b("tid * 64 + 16") == Interval{16, 127 * 64 + 16});
  CHECK(b("tid - 200") == Interval{-200, -73});
  CHECK(b("-tid") == Interval{-127, 0});
  CHECK(b("tid < 200 ? 16 : 0") == Interval{16, 16});   // decided: always true
  CHECK(b("tid >= 128 ? 1 / 0 : 8") == Interval{8, 8}); // the dead arm does not matter
  CHECK(b("tid < valid_rows ? 16 : 0") == Interval{0, 16});
  CHECK(b("tid < 64 ? tid : 127 - tid") == Interval{0, 63}); // each arm under its condition
  CHECK(b("tid + 1 > 0") == Interval{1, 1});
  CHECK(b("tid > 127") == Interval{0, 0});
  CHECK(b("tid == tid") == Interval{0, 1}); // intervals do not relate the two sides
  CHECK(b("(bid * 128 + tid) % 7") == Interval{0, 6});
  CHECK(b("(tid % 8) + 64 & 127") == Interval{0, 71}); // 0..min(71, 127)
  CHECK(b("tid >> 4") == Interval{0, 7});
  CHECK(b("1 << (tid & 3)") == Interval{1, 8});
  CHECK(b("tid | 1") == Interval{1, 127});
  CHECK(b("!tid") == Interval{0, 1});
  CHECK(b("!(tid + 1)") == Interval{0, 0});
  CHECK(b("0 && 1 / 0") == Interval{0, 0});
  CHECK(b("(tid + 32) % 64") == Interval{0, 63});
  CHECK(b("(tid % 16 + 32) % 64") == Interval{32, 47});
  CHECK_FALSE(b("tid / 0").has_value());
  CHECK_FALSE(b("tid / (tid - 1)").has_value());
  CHECK_FALSE(b("1 << tid").has_value());
  CHECK_FALSE(b("n * n * n").has_value()); // beyond int64
  // xor, min, max, clamp.
  CHECK(b("tid ^ 5") == Interval{0, 127});
  CHECK(b("(tid & 7) ^ 8") == Interval{0, 15});
  CHECK(b("-1 ^ tid") == Interval{-128, -1});
  CHECK(b("(tid - 64) ^ 3") == Interval{-64, 63});
  CHECK(b("min(tid, 16)") == Interval{0, 16});
  CHECK(b("max(tid, 100)") == Interval{100, 127});
  CHECK(b("min(tid - 64, valid_rows)") == Interval{-64, 63});
  CHECK(b("clamp(valid_rows * 2 - 16 * tid, 0, 16)") == Interval{0, 16});
  CHECK(b("valid_rows * 2 - 16 * tid") == Interval{-2032, 256});
  // Path-sensitive selects.
  CHECK(b("tid < valid_rows ? 16 : 0") == Interval{0, 16});
  CHECK(b("valid_rows > 5 ? valid_rows - 5 : 0") == Interval{0, 123});
  CHECK(b("5 < valid_rows ? valid_rows - 5 : 0") == Interval{0, 123}); // variable on the right
  CHECK(b("valid_rows >= 5 ? 0 : 5 - valid_rows") == Interval{0, 5});
  CHECK(b("valid_rows <= 16 ? valid_rows : 16") == Interval{0, 16});
  CHECK(b("valid_rows == 7 ? valid_rows : 0") == Interval{0, 7});
  CHECK(b("lane < 16 ? lane : 0") == Interval{0, 15});
  CHECK(b("tid < 64 ? warp : 0") == Interval{0, 1});
  CHECK(b("tid >= 100 ? lane : 40") == Interval{4, 40});
  CHECK(b("!(tid < 64) ? tid : 64") == Interval{64, 127});
  CHECK(b("tid < 64 && bid < 2 ? tid + bid * 64 : 0") == Interval{0, 127});
  CHECK(b("tid >= 64 || bid >= 2 ? 0 : tid + bid * 64") == Interval{0, 127});
  CHECK(b("tid < 64 && tid > 100 ? 1 / 0 : 3") == Interval{3, 3}); // an unreachable arm
  CHECK(b("tid != 3 ? tid : 0") == Interval{0, 127});              // != narrows nothing
  CHECK(b("tid < valid_rows ? min(valid_rows - tid, 16) : 0") == Interval{-126, 16});
  l.axes["r"] = {0, 3};
  CHECK(b("r * 16") == Interval{0, 48});
  CHECK(b("clamp(valid_rows * 2 - 16 * r, 0, 16)") == Interval{0, 16});
  CHECK(b("r < 2 ? 16 : valid_rows - 16 * r") == Interval{-48, 96}); // r in 2..3
  l.axes.clear();
  CHECK_FALSE(b("r").has_value()); // an axis with no range
  l.block = 8;
  CHECK(b("lane") == Interval{0, 7});
  CHECK(b("warp") == Interval{0, 0});
  l.block = 0;
  CHECK_FALSE(b("1").has_value());
}

namespace {

// A random expression over tid, warp, lane, bid, p (declared 0..9) and q
// (undeclared), with every operator.
ExprPtr random_expr(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, 99);
  int r = pick(rng);
  if (depth == 0 || r < 25) {
    switch (pick(rng) % 8) {
    case 0:
      return make_leaf(ExprKind::tid);
    case 1:
      return make_leaf(ExprKind::warp);
    case 2:
      return make_leaf(ExprKind::lane);
    case 3:
      return make_leaf(ExprKind::bid);
    case 4:
      return make_leaf(ExprKind::param, "p");
    case 5:
      return make_constant(std::uniform_int_distribution<std::int64_t>(-9, 40)(rng));
    case 6:
      return make_constant(std::uniform_int_distribution<std::int64_t>(0, 4)(rng));
    default:
      if (pick(rng) < 20)
        return make_leaf(ExprKind::axis, "r");
      return pick(rng) < 10
                 ? make_leaf(ExprKind::param, "q")
                 : make_constant(std::uniform_int_distribution<std::int64_t>(1, 64)(rng));
    }
  }
  if (r < 28) { // a select on `variable cmp expression`, which narrows the arms
    static const ExprKind vars[] = {ExprKind::tid, ExprKind::warp,  ExprKind::lane,
                                    ExprKind::bid, ExprKind::param, ExprKind::axis};
    static const ExprOp cmps[] = {ExprOp::lt, ExprOp::le, ExprOp::gt,
                                  ExprOp::ge, ExprOp::eq, ExprOp::ne};
    ExprKind k = vars[static_cast<std::size_t>(pick(rng)) % std::size(vars)];
    ExprPtr x = make_leaf(k, k == ExprKind::param  ? (pick(rng) % 2 ? "p" : "q")
                             : k == ExprKind::axis ? "r"
                                                   : "");
    ExprPtr cond = make_binary(cmps[static_cast<std::size_t>(pick(rng)) % std::size(cmps)], x,
                               random_expr(rng, depth - 1));
    if (pick(rng) % 3 == 0)
      cond = make_binary(cond->op, cond->args[1], cond->args[0]);
    if (pick(rng) % 4 == 0)
      cond = make_unary(ExprOp::logical_not, cond);
    return make_select(cond, random_expr(rng, depth - 1), random_expr(rng, depth - 1));
  }
  if (r < 32)
    return make_unary(pick(rng) % 2 ? ExprOp::neg : ExprOp::logical_not,
                      random_expr(rng, depth - 1));
  if (r < 42)
    return make_select(random_expr(rng, depth - 1), random_expr(rng, depth - 1),
                       random_expr(rng, depth - 1));
  static const ExprOp ops[] = {
      ExprOp::add,         ExprOp::sub,        ExprOp::mul,     ExprOp::div,    ExprOp::rem,
      ExprOp::shl,         ExprOp::shr,        ExprOp::bit_and, ExprOp::bit_or, ExprOp::lt,
      ExprOp::le,          ExprOp::gt,         ExprOp::ge,      ExprOp::eq,     ExprOp::ne,
      ExprOp::logical_and, ExprOp::logical_or, ExprOp::bit_xor, ExprOp::min,    ExprOp::max,
      ExprOp::bit_xor,     ExprOp::min,        ExprOp::max};
  ExprOp op = ops[static_cast<std::size_t>(pick(rng)) % std::size(ops)];
  return make_binary(op, random_expr(rng, depth - 1), random_expr(rng, depth - 1));
}

} // namespace

TEST_CASE("bounds are sound: brute force over small launches") {
  std::mt19937 rng(20240607);
  const std::int64_t q_samples[] = {0, 1, 7, 1LL << 31, (1LL << 32) - 1};
  const std::pair<std::int64_t, std::int64_t> launches[] = {
      {1, 1}, {5, 2}, {32, 1}, {33, 3}, {70, 2}};
  int bounded = 0, checked = 0, violations = 0, tight = 0;
  for (int n = 0; n < 1500; ++n) {
    ExprPtr e = random_expr(rng, 4);
    for (auto [block, grid] : launches) {
      LaunchBounds l;
      l.block = block;
      l.grid = grid;
      l.params["p"] = {0, 9};
      l.axes["r"] = {0, 2};
      auto b = bounds(*e, l);
      if (!b)
        continue;
      ++bounded;
      bool hit_lo = false, hit_hi = false;
      ExprEnv env;
      for (std::int64_t p = 0; p <= 9; ++p)
        for (std::int64_t q : q_samples)
          for (std::int64_t rr = 0; rr <= 2; ++rr)
            for (env.bid = 0; env.bid < grid; ++env.bid)
              for (env.tid = 0; env.tid < block; ++env.tid) {
                env.params["p"] = p;
                env.params["q"] = q;
                env.axes["r"] = rr;
                auto v = evaluate(*e, env);
                if (!v)
                  continue;
                ++checked;
                hit_lo = hit_lo || *v == b->lo;
                hit_hi = hit_hi || *v == b->hi;
                if (!b->contains(*v) && ++violations <= 5)
                  FAIL_CHECK(print(*e)
                             << " = " << *v << " at tid=" << env.tid << " bid=" << env.bid
                             << " p=" << p << " q=" << q << " r=" << rr << " is outside [" << b->lo
                             << ", " << b->hi << "] (block " << block << ", grid " << grid << ")");
              }
      tight += hit_lo && hit_hi;
    }
  }
  CHECK(violations == 0);
  // The test means something only if most expressions get bounds, and many exactly.
  CHECK(bounded > 3000);
  CHECK(checked > 1000000);
  CHECK(tight > 1000);
}

TEST_CASE("print: canonical text") {
  auto pp = [](std::string_view t) { return print(*parse_ok(t)); };
  CHECK(pp("((tid))+(1*2)") == "tid + 1 * 2");
  CHECK(pp("tid-(n-1)") == "tid - (n - 1)");
  CHECK(pp("(tid-n)-1") == "tid - n - 1");
  CHECK(pp("-(5)") == "-(5)");
  CHECK(pp("-5") == "-5");
  CHECK(pp("tid - -5") == "tid - -5");
  CHECK(pp("(tid < 1 ? 2 : 3) ? 4 : 5") == "(tid < 1 ? 2 : 3) ? 4 : 5");
  CHECK(pp("tid ? 1 : (n ? 2 : 3)") == "tid ? 1 : n ? 2 : 3");
  CHECK(pp("(tid ? 1 : 2) + 3") == "(tid ? 1 : 2) + 3");
  CHECK(pp("T.if_then_else(tid < valid_rows, T.uint32(16), T.uint32(0))") ==
        "tid < valid_rows ? 16 : 0");
  CHECK(pp("!(tid < 3)") == "!(tid < 3)");
  CHECK(pp("-(tid * 2)") == "-(tid * 2)");
  CHECK(pp("(-tid) * 2") == "-tid * 2");
  CHECK(pp("0x20") == "32");
  CHECK(pp("(tid & 3) | (n << 1)") == "tid & 3 | n << 1");
  CHECK(pp("(tid ^ 3) | (n ^ 1)") == "tid ^ 3 | n ^ 1");
  CHECK(pp("(tid | 3) ^ 1") == "(tid | 3) ^ 1");
  CHECK(pp("(tid ^ 3) & 1") == "(tid ^ 3) & 1");
  CHECK(pp("clamp(n*2 - 16*r, 0, 16)") == "min(max(n * 2 - 16 * r, 0), 16)");
  CHECK(pp("(min(tid,(n)))") == "min(tid, n)");
}

TEST_CASE("print then parse gives the same tree: hand-written expressions") {
  const char* cases[] = {
      "tid",
      "tid + 1",
      "tid + 4 * n - 3",
      "tid - (n - 1)",
      "(tid - n) - 1",
      "tid / 32 * 32 + tid % 32",
      "tid << 2 >> 1",
      "tid << (2 >> 1)",
      "1 << 2 + 3",
      "(1 << 2) + 3",
      "tid & 7 | n & 8",
      "tid & (7 | n) & 8",
      "tid == 1 != 0",
      "tid == (1 != 0)",
      "tid < n == n > tid",
      "tid < (n == n) > tid",
      "tid && n || !tid",
      "tid && (n || !tid)",
      "!!tid",
      "- -tid",
      "-(-5)",
      "-(5)",
      "-5 * -3",
      "-(5 * 3)",
      "-9223372036854775808",
      "-(-9223372036854775808)",
      "9223372036854775807",
      "tid < valid_rows ? 16 : 0",
      "tid ? n ? 1 : 2 : 3",
      "(tid ? n : 1) ? 2 : 3",
      "tid ? 1 : n ? 2 : 3",
      "(tid ? 1 : n) + (tid ? 2 : 3)",
      "if_then_else(tid < 3, if_then_else(n, 1, 2), 4)",
      "T.uint32((tid + 1) * 2)",
      "warp * 32 + lane",
      "bid * 128 + tid",
      "(bid * 128 + tid) % 97",
      "!(tid < 3) && n",
      "-tid % 3",
      "-(tid % 3)",
      "tid % (3 * n)",
      "(tid * 3) % n",
      "tid ^ n & 3 | 1",
      "(tid | n) ^ 3",
      "tid ^ (n ^ 3)",
      "min(tid, n) + max(1, tid ^ 3)",
      "min(tid < 3 ? 1 : 2, -5)",
      "-min(tid, 2)",
      "clamp(n * 2 - 16 * r, 0, 16)",
      "max(tid ? 1 : 2, min(n, r)) * 3",
  };
  for (const char* text : cases) {
    ExprPtr a = parse_ok(text);
    std::string printed = print(*a);
    ExprPtr b = parse_ok(printed);
    INFO(text, " printed as ", printed);
    CHECK(structurally_equal(*a, *b));
    CHECK(print(*b) == printed);
  }
  // Different texts that must not collapse to the same tree.
  CHECK_FALSE(structurally_equal(*parse_ok("tid - (n - 1)"), *parse_ok("tid - n - 1")));
  CHECK_FALSE(structurally_equal(*parse_ok("-(5)"), *parse_ok("-5")));
}

TEST_CASE("print then parse gives the same tree: random trees") {
  std::mt19937 rng(7);
  for (int n = 0; n < 3000; ++n) {
    ExprPtr e = random_expr(rng, 5);
    if (n % 7 == 0) // negative constants in every position, and the extreme ones
      e = make_binary(ExprOp::sub, e, make_unary(ExprOp::neg, make_constant(-(n % 5))));
    if (n % 11 == 0)
      e = make_select(make_constant(std::numeric_limits<std::int64_t>::min()), e,
                      make_unary(ExprOp::neg, e));
    std::string printed = print(*e);
    auto r = parse_expr(printed, is_param, is_axis);
    INFO(printed);
    REQUIRE(r.value.has_value());
    CHECK(structurally_equal(*e, **r));
  }
}

TEST_CASE("min, max and clamp bounds are exact over every pair of small ranges") {
  // p in [a, b] and q in [c, d]: the bounds equal the hull of the values.
  const char* texts[] = {"min(p, q)", "max(p, q)", "clamp(p, q, 5)", "clamp(p, -2, q)"};
  int cases = 0;
  for (std::int64_t a = -4; a <= 4; ++a)
    for (std::int64_t b = a; b <= 4; ++b)
      for (std::int64_t c = -4; c <= 4; ++c)
        for (std::int64_t d = c; d <= 4; ++d)
          for (const char* text : texts) {
            ExprPtr e = parse_ok(text);
            LaunchBounds l;
            l.params["p"] = {a, b};
            l.params["q"] = {c, d};
            Interval hull{std::numeric_limits<std::int64_t>::max(),
                          std::numeric_limits<std::int64_t>::min()};
            ExprEnv env;
            for (std::int64_t p = a; p <= b; ++p)
              for (std::int64_t q = c; q <= d; ++q) {
                env.params["p"] = p;
                env.params["q"] = q;
                auto v = evaluate(*e, env);
                REQUIRE(v.has_value());
                hull.lo = std::min(hull.lo, *v);
                hull.hi = std::max(hull.hi, *v);
              }
            INFO(text, " p in ", a, "..", b, " q in ", c, "..", d);
            // clamp with lo > hi is min(max(x, lo), hi): still exact as a composition.
            CHECK(bounds(*e, l) == hull);
            ++cases;
          }
  CHECK(cases > 4000);
}

TEST_CASE("xor bounds are sound and reach both ends for sign-uniform ranges") {
  for (std::int64_t a = -9; a <= 9; ++a)
    for (std::int64_t b = a; b <= 9; ++b)
      for (std::int64_t c = -9; c <= 9; ++c)
        for (std::int64_t d = c; d <= 9; ++d) {
          LaunchBounds l;
          l.params["p"] = {a, b};
          l.params["q"] = {c, d};
          auto bd = bounds(*parse_ok("p ^ q"), l);
          REQUIRE(bd.has_value());
          for (std::int64_t p = a; p <= b; ++p)
            for (std::int64_t q = c; q <= d; ++q) {
              INFO(p, " ^ ", q, " in [", bd->lo, ", ", bd->hi, "]");
              REQUIRE(bd->contains(p ^ q));
            }
        }
  LaunchBounds l;
  l.params["p"] = {0, 7};
  l.params["q"] = {0, 7};
  CHECK(bounds(*parse_ok("p ^ q"), l) == Interval{0, 7});
}

TEST_CASE("substitute_axes folds each repeat's value and keeps the rest shared") {
  ExprPtr e = parse_ok("clamp(n * 2 - 16 * r, 0, 16)");
  std::map<std::string, std::int64_t, std::less<>> at;
  // r = 0: n * 2 - 0 becomes n * 2; the rest stays a runtime expression.
  at["r"] = 0;
  CHECK(print(*substitute_axes(e, at)) == "min(max(n * 2, 0), 16)");
  at["r"] = 2;
  CHECK(print(*substitute_axes(e, at)) == "min(max(n * 2 - 32, 0), 16)");
  // Unchanged subtrees are the same pointers; an expression with no axis is e itself.
  ExprPtr s = substitute_axes(e, at);
  CHECK(s->args[0]->args[0]->args[0] == e->args[0]->args[0]->args[0]); // n * 2
  ExprPtr plain = parse_ok("tid + n");
  CHECK(substitute_axes(plain, at) == plain);
  // Decided conditions and constants fold as evaluate() would.
  CHECK(print(*substitute_axes(parse_ok("r < 2 ? tid : n"), at)) == "n");
  CHECK(print(*substitute_axes(parse_ok("r == 3 && tid / 0"), at)) == "0");
  CHECK(print(*substitute_axes(parse_ok("r == 2 || tid / 0"), at)) == "1");
  CHECK(print(*substitute_axes(parse_ok("(r - 2) * tid + r * 8"), at)) == "0 * tid + 16");
  CHECK(print(*substitute_axes(parse_ok("tid / (r - 2)"), at)) == "tid / 0"); // no value: kept
  // Whatever it folds, the value agrees with evaluating e at that coordinate.
  for (std::int64_t r = 0; r < 4; ++r)
    for (std::int64_t n = 0; n < 40; n += 3)
      for (std::int64_t t = 0; t < 4; ++t) {
        at["r"] = r;
        ExprEnv env;
        env.tid = t;
        env.params["n"] = n;
        env.axes["r"] = r;
        for (const char* text : {"clamp(n * 2 - 16 * r, 0, 16)", "r < 2 ? tid : n - r",
                                 "(r ^ tid) + min(r, n) * 1 - 0", "r != 1 && tid < n"}) {
          ExprPtr x = parse_ok(text);
          INFO(text, " r=", r, " n=", n, " tid=", t);
          CHECK(evaluate(*substitute_axes(x, at), env) == evaluate(*x, env));
        }
      }
}

TEST_CASE("fold_truth keeps the truth value and drops constant && / || operands") {
  auto ft = [](std::string_view t) { return print(*fold_truth(parse_ok(t))); };
  CHECK(ft("tid != 5 || 0") == "tid != 5");
  CHECK(ft("0 || tid != 5") == "tid != 5");
  CHECK(ft("tid != 5 || 1") == "1");
  CHECK(ft("tid < 3 && 2") == "tid < 3");
  CHECK(ft("tid < 3 && 0") == "0");
  CHECK(ft("!(0 || 0) && tid") == "tid");
  CHECK(ft("!(tid && 1)") == "!tid");
  CHECK(ft("tid + 0") == "tid + 0"); // arithmetic is substitute_axes' business
  const char* texts[] = {"tid % 3 || 0", "!(lane == 2 && 5) || 0 && n",
                         "(tid > 4 || 0) && (1 && n < 7)", "!!(tid & 1) || 0"};
  for (const char* text : texts) {
    ExprPtr e = parse_ok(text);
    ExprPtr f = fold_truth(e);
    for (std::int64_t t = 0; t < 40; ++t)
      for (std::int64_t n = 0; n < 10; ++n) {
        ExprEnv env;
        env.tid = t;
        env.params["n"] = n;
        auto a = evaluate(*e, env), b = evaluate(*f, env);
        INFO(text, " tid=", t, " n=", n);
        REQUIRE(a.has_value());
        REQUIRE(b.has_value());
        CHECK((*a != 0) == (*b != 0));
      }
  }
}

// expr_ops.def's properties, checked against evaluate() (which does not read them) and
// against the parser: negation and swap of every comparison, predicate values, spellings.
TEST_CASE("expr_ops.def: every row agrees with evaluation and with the parser") {
  const auto table = expr_op_table();
  REQUIRE(table.size() == static_cast<std::size_t>(ExprOp::neg) + 1);
  ExprEnv env;
  for (std::size_t k = 0; k < table.size(); ++k) {
    const auto op = static_cast<ExprOp>(k);
    const ExprOpInfo& row = info(op);
    CAPTURE(row.spelling);
    CHECK(op_spelling(op) == row.spelling);
    if (row.negated != ExprOp::none) {
      CHECK(info(row.negated).negated == op);
      CHECK(info(row.swapped).swapped == op);
    }
    if (!row.infix && row.precedence != Precedence::call)
      continue;
    for (std::int64_t a = -3; a <= 3; ++a)
      for (std::int64_t b = -3; b <= 3; ++b) {
        CAPTURE(a);
        CAPTURE(b);
        if ((op == ExprOp::div || op == ExprOp::rem) && b == 0)
          continue;
        if ((op == ExprOp::shl || op == ExprOp::shr) && b < 0)
          continue;
        auto v = evaluate(*make_binary(op, make_constant(a), make_constant(b)), env);
        REQUIRE(v);
        if (row.predicate)
          CHECK((*v == 0 || *v == 1));
        if (row.negated != ExprOp::none) {
          auto n = evaluate(*make_binary(row.negated, make_constant(a), make_constant(b)), env);
          auto s = evaluate(*make_binary(row.swapped, make_constant(b), make_constant(a)), env);
          CHECK(*n == 1 - *v);
          CHECK(*s == *v);
        }
      }
    // The parser reads the spelling back as this operator.
    const std::string text =
        row.infix ? "n " + std::string(row.spelling) + " 2" : std::string(row.spelling) + "(n, 2)";
    auto parsed = parse_expr(text, is_param);
    REQUIRE_MESSAGE(parsed, text);
    CHECK((*parsed)->op == op);
  }
}

TEST_CASE("launch coordinates: parse, print, evaluate against an independent unravel, bounds") {
  for (Special s : kSpecials) {
    auto e = parse_ok(spelling(s));
    CHECK(e->kind == ExprKind::special);
    CHECK(e->special == s);
    CHECK(print(*e) == spelling(s));
    CHECK(parse_special(spelling(s)) == s);
  }
  CHECK_FALSE(parse_special("tid.w").has_value());
  const Dim3 block{4, 3, 2}, grid{2, 3, 5};
  LaunchBounds lb;
  lb.block = block.count();
  lb.grid = grid.count();
  lb.block_dim = block;
  lb.grid_dim = grid;
  // Walk the launch in hardware order (x fastest) and count the linear indices.
  std::int64_t bid = 0;
  for (std::int64_t bz = 0; bz < grid.z; ++bz)
    for (std::int64_t by = 0; by < grid.y; ++by)
      for (std::int64_t bx = 0; bx < grid.x; ++bx, ++bid) {
        std::int64_t tid = 0;
        for (std::int64_t tz = 0; tz < block.z; ++tz)
          for (std::int64_t ty = 0; ty < block.y; ++ty)
            for (std::int64_t tx = 0; tx < block.x; ++tx, ++tid) {
              ExprEnv env;
              env.tid = tid;
              env.bid = bid;
              env.block_dim = block;
              env.grid_dim = grid;
              const std::map<Special, std::int64_t> expected = {
                  {Special::tid_x, tx}, {Special::tid_y, ty}, {Special::tid_z, tz},
                  {Special::ntid, 24},  {Special::ntid_x, 4}, {Special::ntid_y, 3},
                  {Special::ntid_z, 2}, {Special::bid_x, bx}, {Special::bid_y, by},
                  {Special::bid_z, bz}, {Special::nbid, 30},  {Special::nbid_x, 2},
                  {Special::nbid_y, 3}, {Special::nbid_z, 5}};
              for (const auto& entry : expected) {
                const Special s = entry.first; // INFO captures: no structured binding
                const std::int64_t v = entry.second;
                INFO(spelling(s), " at tid ", tid, " bid ", bid);
                CHECK(evaluate(*make_special(s), env) == v);
                auto b = bounds(*make_special(s), lb);
                REQUIRE(b.has_value());
                CHECK(b->contains(v));
              }
            }
      }
  // The bounds are exact for each coordinate.
  CHECK(bounds(*parse_ok("tid.y"), lb) == Interval{0, 2});
  CHECK(bounds(*parse_ok("bid.z * nbid"), lb) == Interval{0, 120});
}

TEST_CASE("loop variables: names, values, ranges and narrowing") {
  ExprNames names;
  names.is_param = is_param;
  names.is_loop = [](std::string_view n) { return n == "k"; };
  auto r = parse_expr("k < n - 1 ? k + 1 : 0", names);
  REQUIRE(r.value.has_value());
  const ExprPtr e = *r;
  CHECK(e->args[0]->args[0]->kind == ExprKind::loop);
  CHECK(print(*e) == "k < n - 1 ? k + 1 : 0");
  ExprEnv env;
  env.params["n"] = 5;
  CHECK_FALSE(evaluate(*e, env).has_value()); // k has no value outside its loop
  env.loops["k"] = 3;
  CHECK(evaluate(*e, env) == 4);
  env.loops["k"] = 4;
  CHECK(evaluate(*e, env) == 0);
  LaunchBounds lb;
  lb.params["n"] = {1, 10};
  CHECK_FALSE(bounds(*e, lb).has_value()); // outside its loop: no range
  lb.loops["k"] = {0, 100};
  // k < n - 1 <= 8 narrows k to 0..8 in the then-arm.
  CHECK(bounds(*e, lb) == Interval{0, 9});
  // A name that is not a loop variable where none are live.
  CHECK_FALSE(parse_expr("k + 1", ExprNames{is_param, {}, {}}).value.has_value());
}

} // namespace unit_tile_expr
