#pragma once
// PTX scalar types and state spaces.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptxgen::ptx {

/// A PTX fundamental type, as written after the dot (`.u32`).
enum class ScalarType : std::uint8_t {
  pred, ///< predicate register type
  b8,   ///< untyped 8 bits
  b16,  ///< untyped 16 bits
  b32,  ///< untyped 32 bits
  b64,  ///< untyped 64 bits
  u8,   ///< unsigned 8-bit integer
  u16,  ///< unsigned 16-bit integer
  u32,  ///< unsigned 32-bit integer
  u64,  ///< unsigned 64-bit integer
  s8,   ///< signed 8-bit integer
  s16,  ///< signed 16-bit integer
  s32,  ///< signed 32-bit integer
  s64,  ///< signed 64-bit integer
  f16,  ///< IEEE half
  f32,  ///< IEEE single
  f64,  ///< IEEE double
};

/// "u32" for ScalarType::u32 (no leading dot).
std::string_view name(ScalarType t);
/// Inverse of name(); nullopt for an unknown spelling.
std::optional<ScalarType> parse_scalar_type(std::string_view s);
/// Width in bits; 1 for pred.
unsigned bit_width(ScalarType t);

/// What a type's bits hold.
enum class TypeFamily : std::uint8_t {
  pred,      ///< a predicate
  bits,      ///< untyped bits: b8 .. b64
  unsigned_, ///< an unsigned integer: u8 .. u64
  signed_,   ///< a two's complement integer: s8 .. s64
  float_,    ///< an IEEE float: f16, f32, f64
};
TypeFamily family(ScalarType t);

/// The type twice as wide, as mul.wide and mad.wide produce: u16 -> u32, s32 -> s64;
/// any other type is returned unchanged (the validator refuses it there).
ScalarType widened(ScalarType t);

/// A setp comparison. The first ten apply to integers (the emitter's loops use them), the
/// last eight to floats only: the `u` forms are also true when an operand is NaN.
enum class CompareOp : std::uint8_t {
  eq,  ///< equal
  ne,  ///< not equal
  lt,  ///< less (signed)
  le,  ///< less or equal (signed)
  gt,  ///< greater (signed)
  ge,  ///< greater or equal (signed)
  lo,  ///< lower (unsigned)
  ls,  ///< lower or same (unsigned)
  hi,  ///< higher (unsigned)
  hs,  ///< higher or same (unsigned)
  equ, ///< equal, or unordered (floats)
  neu, ///< not equal, or unordered
  ltu, ///< less, or unordered
  leu, ///< less or equal, or unordered
  gtu, ///< greater, or unordered
  geu, ///< greater or equal, or unordered
  num, ///< neither operand is NaN
  nan, ///< either operand is NaN
};

/// "lt" for CompareOp::lt (no leading dot).
std::string_view name(CompareOp c);
/// Inverse of name(); nullopt for an unknown spelling.
std::optional<CompareOp> parse_compare_op(std::string_view s);
/// Whether `c` compares floats only (equ ... nan).
constexpr bool float_only(CompareOp c) {
  return c >= CompareOp::equ;
}

/// A rounding modifier; `none` is the instruction's default (no modifier written).
enum class Rounding : std::uint8_t {
  none, ///< no modifier
  rn,   ///< to nearest, ties to even
  rz,   ///< toward zero
  rm,   ///< toward -infinity
  rp,   ///< toward +infinity
  rni,  ///< to the nearest integer, ties to even
  rzi,  ///< to the integer toward zero
  rmi,  ///< to the integer toward -infinity
  rpi,  ///< to the integer toward +infinity
};

/// A PTX state space.
enum class StateSpace : std::uint8_t {
  reg,        ///< `.reg`
  param,      ///< `.param` (kernel parameters)
  global,     ///< `.global`
  shared,     ///< `.shared` (the executing CTA's shared memory)
  shared_cta, ///< `.shared::cta`, the explicit spelling of `.shared` (PTX 7.8 by the manual)
  local,      ///< `.local`
  /// `.shared::cluster`: a shared address of any CTA of the cluster (mapa's result; sm_90)
  shared_cluster,
};

/// "global", "shared::cta", ... (no leading dot).
std::string_view name(StateSpace s);

} // namespace ptxgen::ptx
