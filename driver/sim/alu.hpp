#pragma once
// The simulator's arithmetic (internal to driver/sim): pure functions on
// register bits, one per instruction family, with PTX's semantics exactly
// (PTX ISA "Integer Arithmetic", "Logic and Shift", "Floating-Point", "cvt").
//
// Floats: every f16, bf16 and f32 operation is computed exactly in double
// (sums with their exact rounding error, by TwoSum), then rounded once to the
// destination format by round_to() in the instruction's rounding mode. f64
// add/sub/mul round in every mode; f64 fma only to nearest.

#include "driver/sim/ir.hpp"

#include <cstdint>

namespace ptxgen::sim::alu {

/// -1, 0 or 1: the sign of a rounding error `e` (which side of the result the exact value lies).
inline int sign_of(double e) {
  return e > 0 ? 1 : e < 0 ? -1 : 0;
}

// ------------------------------------------------ integers

/// prmt.b32{.mode} d, a, b, c: bytes of {b, a} picked by c.
std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t c, ir::Permute mode);

/// bfi.bN d, f, b, pos, len: b with bits [pos, pos+len) (cut at the msb) taken
/// from the low bits of f; pos and len use their low 8 bits.
std::uint64_t bfi(std::uint64_t f, std::uint64_t b, std::uint32_t pos, std::uint32_t len,
                  unsigned bits);

/// shf.{l,r}.{wrap,clamp}.b32 d, a, b, n: the 64-bit {b, a} shifted, the upper
/// (left) or lower (right) 32 bits. wrap: n mod 32; clamp: min(n, 32).
std::uint32_t shf(std::uint32_t a, std::uint32_t b, std::uint32_t n, bool left, bool clamp);

/// lop3.b32 d, a, b, c, lut: each bit of d is lut's bit number (a<<2 | b<<1 | c).
std::uint32_t lop3(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint8_t lut);

/// popc.bN: the number of set bits of the low `bits` of a.
std::uint32_t popc(std::uint64_t a, unsigned bits);
/// clz.bN: the leading zeros of the low `bits` of a (bits when a is 0).
std::uint32_t clz(std::uint64_t a, unsigned bits);
/// brev.bN: the low `bits` of a in reverse order.
std::uint64_t brev(std::uint64_t a, unsigned bits);

/// add.sat.s32 / sub.sat.s32: the exact result clamped to [INT32_MIN, INT32_MAX].
std::uint32_t add_sat_s32(std::uint32_t a, std::uint32_t b, bool subtract);

/// dp4a d, a, b, c: c + the sum of the products of a's and b's four bytes, each zero-extended
/// (.u32) or sign-extended (.s32, `a_signed` / `b_signed`); modulo 2^32.
std::uint32_t dot4(std::uint32_t a, std::uint32_t b, std::uint32_t c, bool a_signed, bool b_signed);
/// dp2a.lo / .hi d, a, b, c: c + a's two 16-bit halves times b's bytes `first_byte` and
/// `first_byte` + 1 (0: .lo, 2: .hi), extended as dot4's; modulo 2^32.
std::uint32_t dot2(std::uint32_t a, std::uint32_t b, std::uint32_t c, bool a_signed, bool b_signed,
                   unsigned first_byte);

/// The operations of the packed 16-bit integer pairs.
enum class PairOp : std::uint8_t { add, min, max };
/// add / min / max .u16x2 / .s16x2 d, a, b: each 16-bit half of a with the same half of
/// b (sums wrap within the half); `relu` (min / max .relu.s16x2): a negative half becomes 0.
std::uint32_t integer_pair(PairOp op, bool is_signed, bool relu, std::uint32_t a, std::uint32_t b);

// ------------------------------------------------ floats

/// A float instruction's modifiers.
struct FloatMode {
  ir::Round round = ir::Round::rn; ///< rn, rz, rm or rp
  bool ftz = false;                ///< subnormal inputs and results flushed to signed zero
  bool sat = false;                ///< result clamped to [+0, 1], NaN to +0
  bool nan = false;                ///< min / max .NaN: a NaN operand gives the canonical NaN
};

/// The float arithmetic operations.
enum class FloatOp : std::uint8_t {
  add, ///< a + b
  sub, ///< a - b
  mul, ///< a * b
  fma, ///< a * b + c, rounded once (also mad.rnd)
  min, ///< the lesser; a NaN operand yields the other one
  max, ///< the greater; a NaN operand yields the other one
  neg, ///< -a (the sign bit flipped)
  abs, ///< |a| (the sign bit cleared)
  div, ///< a / b, rounded once (div.rnd: IEEE 754's correctly rounded quotient)
};

/// One float operation on register bits of `num` (x2 forms: each half).
std::uint64_t float_op(FloatOp op, ir::Num num, const FloatMode& m, std::uint64_t a,
                       std::uint64_t b, std::uint64_t c);

/// div.approx{.ftz}.f32 and div.full{.ftz}.f32, which the ISA defines only to within 2 ulp
/// (`full`: over the whole range; .approx: for |b| in [2^-126, 2^126], and for 2^126 < |b| <
/// 2^128 a NaN when a is infinite, else zero). The simulator returns the exact quotient rounded
/// to nearest, and .approx's zero (or NaN) for that range of b: deterministic and within the
/// ISA's bound of the GPU's value, but not its bits.
std::uint64_t divide_approx(bool full, bool ftz, std::uint64_t a, std::uint64_t b);

/// setp.cmp{.ftz}.f: the comparison of two floats (x2 forms are not comparisons).
bool float_compare(ir::Cmp cmp, ir::Num num, bool ftz, std::uint64_t a, std::uint64_t b);

/// cvt{.rnd}{.ftz}{.sat}.to.from d, a for one element (to and from not x2).
std::uint64_t convert(ir::Type to, ir::Type from, const ir::Op& op, std::uint64_t a);
/// cvt to tf32 (ir::Op::to_tf32) of the f32 bits `a`: rounded to 10 fraction bits, ties away
/// from zero (`ties_away`, .rna), to even (rn) or toward zero (rz); the 13 low bits zero. A NaN
/// stays a NaN (the canonical one), an infinity an infinity; `satfinite` turns a result beyond
/// tf32's largest finite value (an infinity too) into that value, of its sign.
std::uint64_t to_tf32(std::uint64_t a, bool ties_away, ir::Round round, bool satfinite);

/// The number of bits of one element of `num` (16 for the x2 forms).
unsigned element_bits(ir::Num num);

/// The value of float bits as a double (exact for every format).
double to_double(ir::Num num, std::uint64_t bits);

/// `exact` = d + e (|e| below half an ulp of d, e's sign given by `sticky`:
/// -1, 0, 1) rounded to `num` in mode `round` (rn, rz, rm, rp); NaN becomes
/// the canonical NaN, a subnormal result zero when `ftz`.
std::uint64_t round_to(ir::Num num, double d, int sticky, ir::Round round, bool ftz);

// ------------------------------------------------ kernel math (alu_math.cpp)

/// The math functions.
enum class MathOp : std::uint8_t { ex2, lg2, rcp, sqrt, rsqrt, sin, cos, tanh };

/// ex2 lg2 rcp sqrt rsqrt sin cos tanh{.approx|.rnd}{.ftz}.type d, a (`round` none: .approx;
/// x2 forms: each half). The rounded forms (rcp, sqrt .rn/.rz/.rm/.rp, f32 and f64) are IEEE
/// 754's correctly rounded results, bit for bit the GPU's. The .approx forms are the exact
/// function rounded to nearest in the destination format, with the ISA's special values
/// (ex2(-inf) = +0, lg2(0) = -inf, rsqrt(-0) = -inf, sin(inf) = NaN, ...): deterministic, and
/// within the ISA's stated error of the GPU's hardware approximation, but not its bits.
std::uint64_t math_op(MathOp f, ir::Num num, ir::Round round, bool ftz, std::uint64_t a);

/// The packed cvt forms (PTX ISA, cvt): .f16x2/.bf16x2 from two .f32 `a` (upper half) and `b`,
/// .e4m3x2/.e5m2x2 from two .f32 or from one .f16x2 `a`, .f16x2 from one .e4m3x2/.e5m2x2 `a`;
/// to nearest even, `.relu` (negatives to +0) and `.satfinite` (beyond the largest finite value,
/// infinities included, to it) as `op` says. Exact: every result is the ISA's one rounding.
std::uint64_t convert_packed(const ir::Op& op, std::uint64_t a, std::uint64_t b);

} // namespace ptxgen::sim::alu
