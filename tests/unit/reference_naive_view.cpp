// The reference's naive view evaluation (driver/reference/naive_view): views
// are built by hand (steps only, no affine form) and every expected offset is
// worked out by hand in the comment beside it.
#include "driver/reference/naive_expr.hpp"
#include "driver/reference/naive_view.hpp"

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_naive_view {

namespace {

namespace tile = ptxgen::tile;
using ptxgen::driver::naive_byte_offsets;
using ptxgen::driver::naive_locate;
using ptxgen::driver::naive_plan;
using ptxgen::driver::naive_shape;
using ptxgen::driver::parse_naive_pattern;
using Offsets = std::vector<std::int64_t>;
using Shape = std::vector<std::int64_t>;

tile::Tensor tensor(Shape shape, tile::DType dt) {
  return tile::Tensor{"T", tile::Space::global, std::move(shape), dt, 16};
}

// Expression nodes come from the tile layer's plain constructors (no
// evaluation logic in them); the reference evaluates them its own way.
tile::ExprPtr leaf(tile::ExprKind k) {
  return tile::make_leaf(k);
}
tile::ExprPtr constant(std::int64_t v) {
  return tile::make_constant(v);
}
tile::ExprPtr binary(tile::ExprOp op, tile::ExprPtr a, tile::ExprPtr b) {
  return tile::make_binary(op, std::move(a), std::move(b));
}

tile::SubEntry index(tile::ExprPtr e) {
  tile::SubEntry s;
  s.index = std::move(e);
  return s;
}
tile::SubEntry slice(std::int64_t b, std::int64_t e) {
  tile::SubEntry s;
  s.is_slice = true;
  s.begin = b;
  s.end = e;
  return s;
}

tile::RearrangeStep rearrange(std::string p,
                              std::map<std::string, std::int64_t, std::less<>> s = {}) {
  return tile::RearrangeStep{std::move(p), std::move(s)};
}

tile::View view(const tile::Tensor& t, std::vector<tile::ViewStep> steps, tile::DType dt) {
  tile::View v;
  v.tensor = &t;
  v.dtype = dt;
  v.steps = std::move(steps);
  return v; // axes / offset_bytes / terms deliberately left empty
}

Offsets at(const tile::View& v, Offsets coords, std::int64_t tid = 0) {
  tile::ExprEnv env;
  env.tid = tid;
  return naive_byte_offsets(v, env, coords);
}

} // namespace

TEST_CASE("naive pattern parser") {
  auto p = parse_naive_pattern("(w t) (r v) -> w t r v");
  REQUIRE(p);
  CHECK(p->lhs == std::vector<std::vector<std::string>>{{"w", "t"}, {"r", "v"}});
  CHECK(p->rhs == std::vector<std::vector<std::string>>{{"w"}, {"t"}, {"r"}, {"v"}});
  auto q = parse_naive_pattern("a 1 b -> (b a) ()");
  REQUIRE(q);
  CHECK(q->lhs == std::vector<std::vector<std::string>>{{"a"}, {}, {"b"}});
  CHECK(q->rhs == std::vector<std::vector<std::string>>{{"b", "a"}, {}});
  auto unnamed = parse_naive_pattern("a b -> a");
  CHECK_FALSE(unnamed);
  CHECK(unnamed.error() == "the two sides do not name the same axes");
  CHECK_FALSE(parse_naive_pattern("a a -> a"));
  auto nested = parse_naive_pattern("((a b)) -> a b");
  CHECK_FALSE(nested);
  CHECK(nested.error() == "nested parentheses");
  CHECK_FALSE(parse_naive_pattern("a b"));
  CHECK_FALSE(parse_naive_pattern("(a b -> a b"));
  CHECK_FALSE(parse_naive_pattern("... a -> a ..."));
}

TEST_CASE("naive shape: forward replay with size inference") {
  const auto A = tensor({128, 32}, tile::DType::float16);
  const auto seed = view(A, {rearrange("(w t) (r v) -> w t r v", {{"w", 4}, {"t", 32}, {"v", 8}})},
                         tile::DType::float16);
  CHECK(naive_shape(seed) == Shape{4, 32, 4, 8});
  // t inferred: 128 / 4.
  const auto inferred =
      view(A, {rearrange("(w t) (r v) -> w t r v", {{"w", 4}, {"v", 8}})}, tile::DType::float16);
  CHECK(naive_shape(inferred) == Shape{4, 32, 4, 8});
  // Two unknowns in one group, a size that does not divide, a size for an unused name.
  CHECK_FALSE(naive_shape(view(A, {rearrange("(w t) c -> w t c")}, tile::DType::float16)));
  CHECK_FALSE(
      naive_shape(view(A, {rearrange("(w t) c -> w t c", {{"w", 3}})}, tile::DType::float16)));
  CHECK_FALSE(naive_shape(view(A, {rearrange("a b -> b a", {{"z", 3}})}, tile::DType::float16)));
  CHECK_FALSE(naive_shape(view(A, {rearrange("a b c -> a b c")}, tile::DType::float16)));
  // sub: an index drops the axis, a slice keeps end - begin, missing entries keep the axis.
  const auto sub =
      view(A, {tile::SubStep{{index(leaf(tile::ExprKind::tid))}}}, tile::DType::float16);
  CHECK(naive_shape(sub) == Shape{32});
  CHECK(naive_shape(view(A, {tile::SubStep{{slice(0, 128), slice(8, 16)}}},
                         tile::DType::float16)) == Shape{128, 8});
  CHECK_FALSE(naive_shape(view(A, {tile::SubStep{{slice(0, 129)}}}, tile::DType::float16)));
  // dtype view: 32 float16 = 64 bytes = 16 uint32; 24 bytes do not make uint64s... (32*2=64 do).
  CHECK(naive_shape(view(A, {tile::ReinterpretStep{tile::DType::uint32}}, tile::DType::uint32)) ==
        Shape{128, 16});
  const auto B = tensor({2, 3}, tile::DType::float16); // rows of 6 bytes
  CHECK_FALSE(
      naive_shape(view(B, {tile::ReinterpretStep{tile::DType::uint32}}, tile::DType::uint32)));
  CHECK(naive_shape(view(B, {tile::ReinterpretStep{tile::DType::uint8}}, tile::DType::uint8)) ==
        Shape{2, 6});
}

TEST_CASE("naive offsets: the seed's split, over the whole domain") {
  const auto A = tensor({128, 32}, tile::DType::float16);
  const auto v = view(A, {rearrange("(w t) (r v) -> w t r v", {{"w", 4}, {"t", 32}, {"v", 8}})},
                      tile::DType::float16);
  // (1,2,3,4): row 1*32+2 = 34, column 3*8+4 = 28; flat 34*32+28 = 1116; bytes 2232, 2233.
  CHECK(at(v, {1, 2, 3, 4}) == Offsets{2232, 2233});
  CHECK(at(v, {0, 0, 0, 0}) == Offsets{0, 1});
  CHECK(at(v, {3, 31, 3, 7}) == Offsets{8190, 8191});
  // Every coordinate: row w*32+t, column r*8+v.
  int mismatches = 0;
  for (std::int64_t w = 0; w < 4; ++w)
    for (std::int64_t t = 0; t < 32; ++t)
      for (std::int64_t r = 0; r < 4; ++r)
        for (std::int64_t x = 0; x < 8; ++x) {
          const std::int64_t o = ((w * 32 + t) * 32 + r * 8 + x) * 2;
          mismatches += at(v, {w, t, r, x}) != Offsets{o, o + 1};
        }
  CHECK(mismatches == 0);
}

TEST_CASE("naive offsets: transpose and merges") {
  const auto T = tensor({4, 6}, tile::DType::float16);
  const auto tr = view(T, {rearrange("a b -> b a")}, tile::DType::float16);
  CHECK(naive_shape(tr) == Shape{6, 4});
  // (5,3) is T[3,5]: flat 3*6+5 = 23, bytes 46, 47.
  CHECK(at(tr, {5, 3}) == Offsets{46, 47});
  CHECK(at(tr, {0, 1}) == Offsets{12, 13}); // T[1,0]: flat 6
  // "a b -> (b a)": 13 = b*4 + a with b=3, a=1: T[1,3], flat 9, bytes 18, 19.
  const auto merged = view(T, {rearrange("a b -> (b a)")}, tile::DType::float16);
  CHECK(naive_shape(merged) == Shape{24});
  CHECK(at(merged, {13}) == Offsets{18, 19});
  CHECK(at(merged, {23}) == Offsets{46, 47}); // b=5, a=3: T[3,5]
  // "a b -> (a b)" is the row-major flattening: 13 -> bytes 26, 27.
  CHECK(at(view(T, {rearrange("a b -> (a b)")}, tile::DType::float16), {13}) == Offsets{26, 27});
  // Split then merge differently: "(x y) b -> y (x b)" x=2 (y=2): (1, 7): y=1, x=7/6=1, b=1;
  // input row x*2+y = 3, column 1: flat 19, bytes 38, 39.
  const auto mixed = view(T, {rearrange("(x y) b -> y (x b)", {{"x", 2}})}, tile::DType::float16);
  CHECK(naive_shape(mixed) == Shape{2, 12});
  CHECK(at(mixed, {1, 7}) == Offsets{38, 39});
}

TEST_CASE("naive offsets: sub with tid and slices") {
  const auto A = tensor({128, 32}, tile::DType::float16);
  const auto row =
      view(A, {tile::SubStep{{index(leaf(tile::ExprKind::tid))}}}, tile::DType::float16);
  // tid 5, column 7: flat 5*32+7 = 167, bytes 334, 335.
  CHECK(at(row, {7}, 5) == Offsets{334, 335});
  CHECK(at(row, {0}, 127) == Offsets{8128, 8129});
  // sub[:, 8:16] at (2,3) is A[2,11]: flat 75, bytes 150, 151.
  const auto cols = view(A, {tile::SubStep{{slice(0, 128), slice(8, 16)}}}, tile::DType::float16);
  CHECK(at(cols, {2, 3}) == Offsets{150, 151});
  // sub[tid + 1, 4:8] for tid 2 at 1: A[3, 5], flat 101, bytes 202, 203.
  const auto shifted =
      view(A,
           {tile::SubStep{{index(binary(tile::ExprOp::add, leaf(tile::ExprKind::tid), constant(1))),
                           slice(4, 8)}}},
           tile::DType::float16);
  CHECK(at(shifted, {1}, 2) == Offsets{202, 203});
  // warp and lane: sub[warp, lane] of a (4,32) uint8 tensor is byte tid.
  const auto G = tensor({4, 32}, tile::DType::uint8);
  const auto wl = view(
      G, {tile::SubStep{{index(leaf(tile::ExprKind::warp)), index(leaf(tile::ExprKind::lane))}}},
      tile::DType::uint8);
  CHECK(naive_shape(wl) == Shape{});
  CHECK(at(wl, {}, 77) == Offsets{77});
  // Split then sub: "(t r) v -> t r v" t=32 then sub[tid]: (r, v) = (2, 5) for tid 3
  // is A[3*4+2, 5]: flat 14*32+5 = 453, bytes 906, 907.
  const auto chain = view(A,
                          {rearrange("(t r) v -> t r v", {{"t", 32}}),
                           tile::SubStep{{index(leaf(tile::ExprKind::tid))}}},
                          tile::DType::float16);
  CHECK(naive_shape(chain) == Shape{4, 32});
  CHECK(at(chain, {2, 5}, 3) == Offsets{906, 907});
}

TEST_CASE("naive offsets: dtype views track bytes of the last axis") {
  const auto A = tensor({128, 32}, tile::DType::float16);
  // row tid=3 as uint32: element 5 is bytes 20..23 of the row; the row starts at 3*64 = 192.
  const auto u32 = view(A,
                        {tile::SubStep{{index(leaf(tile::ExprKind::tid))}},
                         tile::ReinterpretStep{tile::DType::uint32}},
                        tile::DType::uint32);
  CHECK(naive_shape(u32) == Shape{16});
  CHECK(at(u32, {5}, 3) == Offsets{212, 213, 214, 215});
  // (2,3) float16 as uint8: (1,5) is byte 5 of row 1 = byte 1 of element (1,2): 6 + 5 = 11.
  const auto B = tensor({2, 3}, tile::DType::float16);
  CHECK(at(view(B, {tile::ReinterpretStep{tile::DType::uint8}}, tile::DType::uint8), {1, 5}) ==
        Offsets{11});
  // (4,8) uint16 -> uint32 (4,4) -> transpose: (1,2) is uint32 [2,1] = bytes 4..7 of row 2 (16
  // bytes).
  const auto C = tensor({4, 8}, tile::DType::uint16);
  const auto ct = view(C, {tile::ReinterpretStep{tile::DType::uint32}, rearrange("a b -> b a")},
                       tile::DType::uint32);
  CHECK(at(ct, {1, 2}) == Offsets{36, 37, 38, 39});
  // (2,2) uint32 -> uint8 (2,8) -> sub[1, 4:8] -> 2 is byte 6 of row 1: 8 + 6 = 14.
  const auto D = tensor({2, 2}, tile::DType::uint32);
  const auto d8 = view(
      D,
      {tile::ReinterpretStep{tile::DType::uint8}, tile::SubStep{{index(constant(1)), slice(4, 8)}}},
      tile::DType::uint8);
  CHECK(at(d8, {2}) == Offsets{14});
  // uint8 -> uint64: (1, 1) is bytes 8..15 of row 1 of a (2,16) tensor: 24..31.
  const auto E = tensor({2, 16}, tile::DType::uint8);
  CHECK(at(view(E, {tile::ReinterpretStep{tile::DType::uint64}}, tile::DType::uint64), {1, 1}) ==
        Offsets{24, 25, 26, 27, 28, 29, 30, 31});
}

TEST_CASE("naive offsets: a wide base element seen through a narrow view") {
  // (2,2) uint64 as uint16 (2,8): (1,5) is bytes 10, 11 of row 1 (16 bytes): 26, 27.
  const auto F = tensor({2, 2}, tile::DType::uint64);
  const auto f16 = view(F, {tile::ReinterpretStep{tile::DType::uint16}}, tile::DType::uint16);
  CHECK(naive_shape(f16) == Shape{2, 8});
  CHECK(at(f16, {1, 5}) == Offsets{26, 27});
  // and back to uint32 (2,4): (0,3) is bytes 12..15.
  const auto f32 = view(
      F, {tile::ReinterpretStep{tile::DType::uint16}, tile::ReinterpretStep{tile::DType::uint32}},
      tile::DType::uint32);
  CHECK(at(f32, {0, 3}) == Offsets{12, 13, 14, 15});
}

TEST_CASE("naive locate: coordinates outside their axes are reported") {
  const auto A = tensor({128, 32}, tile::DType::float16);
  const auto row =
      view(A, {tile::SubStep{{index(leaf(tile::ExprKind::tid))}}}, tile::DType::float16);
  const auto plan = naive_plan(row);
  tile::ExprEnv env;
  env.tid = 128; // one row past the end
  const Offsets c{0};
  auto loc = naive_locate(plan, row, env, c);
  CHECK_FALSE(loc.in_bounds);
  CHECK(loc.offsets == Offsets{8192, 8193}); // still computed: flat 128*32
  env.tid = 0;
  const Offsets c32{32}; // column 32 would alias row 1, column 0 in the flat form
  loc = naive_locate(plan, row, env, c32);
  CHECK_FALSE(loc.in_bounds);
  const Offsets c31{31};
  loc = naive_locate(plan, row, env, c31);
  CHECK(loc.in_bounds);
  CHECK(loc.error.empty());
  // Division by zero in an index: no offsets.
  const auto bad = view(
      A,
      {tile::SubStep{{index(binary(tile::ExprOp::div, leaf(tile::ExprKind::tid), constant(0)))}}},
      tile::DType::float16);
  CHECK(at(bad, {0}).empty());
  // Wrong rank.
  CHECK(at(row, {0, 0}).empty());
}

TEST_CASE("naive_evaluate: C semantics") {
  using tile::ExprOp;
  tile::ExprEnv env;
  env.tid = 70;
  auto tid = leaf(tile::ExprKind::tid);
  CHECK(ptxgen::driver::naive_evaluate(*leaf(tile::ExprKind::warp), env) == 2);
  CHECK(ptxgen::driver::naive_evaluate(*leaf(tile::ExprKind::lane), env) == 6);
  CHECK(ptxgen::driver::naive_evaluate(*binary(ExprOp::rem, constant(-7), constant(2)), env) == -1);
  CHECK(ptxgen::driver::naive_evaluate(*binary(ExprOp::div, constant(-7), constant(2)), env) == -3);
  CHECK(ptxgen::driver::naive_evaluate(*binary(ExprOp::lt, tid, constant(100)), env) == 1);
  CHECK(ptxgen::driver::naive_evaluate(*binary(ExprOp::shl, constant(1), constant(64)), env) ==
        std::nullopt);
  // 0 && (1/0): short-circuits to 0.
  CHECK(ptxgen::driver::naive_evaluate(*binary(ExprOp::logical_and, constant(0),
                                               binary(ExprOp::div, constant(1), constant(0))),
                                       env) == 0);
  auto param = std::make_shared<tile::Expr>();
  param->kind = tile::ExprKind::param;
  param->name = "valid_rows";
  CHECK(ptxgen::driver::naive_evaluate(*param, env) == std::nullopt);
  env.params["valid_rows"] = 100;
  CHECK(ptxgen::driver::naive_evaluate(*param, env) == 100);
}

TEST_CASE("naive_evaluate: xor, min, max, clamp and repeat axes") {
  using ptxgen::driver::naive_evaluate;
  using tile::ExprOp;
  tile::ExprEnv env;
  env.tid = 70;
  auto tid = leaf(tile::ExprKind::tid);
  CHECK(naive_evaluate(*binary(ExprOp::bit_xor, constant(6), constant(3)), env) == 5);
  CHECK(naive_evaluate(*binary(ExprOp::bit_xor, constant(-5), constant(3)), env) == -8);
  CHECK(naive_evaluate(*binary(ExprOp::bit_xor, tid, constant(7)), env) == 65);
  CHECK(naive_evaluate(*binary(ExprOp::min, constant(-3), constant(2)), env) == -3);
  CHECK(naive_evaluate(*binary(ExprOp::min, constant(2), constant(-3)), env) == -3);
  CHECK(naive_evaluate(*binary(ExprOp::max, constant(-3), constant(2)), env) == 2);
  CHECK(naive_evaluate(*binary(ExprOp::max, tid, constant(2)), env) == 70);
  auto r = std::make_shared<tile::Expr>();
  r->kind = tile::ExprKind::axis;
  r->name = "r";
  CHECK(naive_evaluate(*r, env) == std::nullopt); // no coordinate for r
  // The per-chunk tail clamp(100 - 16 * r, 0, 16) for r = 0..7: 16 x6, 4, 0.
  auto tail = binary(
      ExprOp::min,
      binary(ExprOp::max, binary(ExprOp::sub, constant(100), binary(ExprOp::mul, constant(16), r)),
             constant(0)),
      constant(16));
  const std::int64_t want[] = {16, 16, 16, 16, 16, 16, 4, 0};
  for (std::int64_t i = 0; i < 8; ++i) {
    env.axes["r"] = i;
    CHECK(naive_evaluate(*tail, env) == want[i]);
  }
}

TEST_CASE("naive_axis_names: replayed from the steps") {
  using ptxgen::driver::naive_axis_names;
  tile::Tensor A;
  A.name = "A";
  A.dtype = tile::DType::uint8;
  A.shape = {32, 128};
  auto parsed = [&](const char* text) {
    auto r = tile::parse_view(
        text, [&](std::string_view n) { return n == "A" ? &A : nullptr; },
        [](std::string_view) { return false; });
    REQUIRE(r.value.has_value());
    return *r;
  };
  using Names = std::vector<std::string>;
  CHECK(naive_axis_names(parsed("A.sub[tid, :]"), 2) == Names{""});
  CHECK(naive_axis_names(parsed(R"(A.sub[tid, :].rearrange("(q p v) -> q p v", p=4, v=16))"), 2) ==
        Names{"q", "p", "v"});
  CHECK(naive_axis_names(parsed(R"(A.rearrange("t (q v) -> t q v", v=16).sub[tid, :, :])"), 2) ==
        Names{"q", "v"});
  CHECK(naive_axis_names(parsed(R"(A.rearrange("t (q v) -> (t q) v", v=16))"), 2) ==
        Names{"", "v"});
  CHECK(naive_axis_names(parsed(R"(A.rearrange("t (q v) -> t q v", v=16).sub[:, 1, :])"), 2) ==
        Names{"t", "v"});
}

TEST_CASE("naive_evaluate agrees with tile::evaluate on parsed tails, swizzles and selects") {
  // Two separate implementations: wherever the tile layer gives a value, the
  // reference must give the same one (every thread of a small launch, every r, n).
  const char* texts[] = {
      "clamp(n * 2 - 16 * r, 0, 16)",        "(tid % 8) ^ (tid / 8 % 8)",
      "min(tid, n - 1) * 16 + max(r, 1)",    "tid < n ? 16 : clamp(n - tid, 0, 16)",
      "r != 1 && (lane ^ r) < n || !r",      "max(-tid, r - n) ^ -3",
      "min(max(tid - 64, -8), 8) * (r + 1)", "if_then_else(r < 2, n ^ tid, min(n, tid))",
  };
  auto is_param = [](std::string_view s) { return s == "n"; };
  auto is_axis = [](std::string_view s) { return s == "r"; };
  int compared = 0;
  for (const char* text : texts) {
    auto parsed = tile::parse_expr(text, is_param, is_axis);
    REQUIRE(parsed.value.has_value());
    const tile::Expr& e = **parsed;
    for (std::int64_t n = 0; n < 40; n += 7)
      for (std::int64_t r = 0; r < 4; ++r)
        for (std::int64_t tid = 0; tid < 96; ++tid) {
          tile::ExprEnv env;
          env.tid = tid;
          env.params["n"] = n;
          env.axes["r"] = r;
          auto want = tile::evaluate(e, env);
          if (!want)
            continue;
          INFO(text, " tid=", tid, " n=", n, " r=", r);
          CHECK(ptxgen::driver::naive_evaluate(e, env) == want);
          ++compared;
        }
  }
  CHECK(compared > 10000);
}

} // namespace unit_reference_naive_view
