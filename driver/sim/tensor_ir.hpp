#pragma once
// The simulator's compact form of the matrix multiplies (mma.sync, wgmma.mma_async, wmma): their
// operand lists are longer than an ir::Op holds (a wgmma m64n256 accumulates in 128 registers), so
// each such op keeps its shape, types and registers in one MatrixOp of Entry::matrix (ir::Op::n
// indexes it).

#include <cstdint>
#include <vector>

namespace ptxgen::sim::ir {

/// The element type of a tensor-core operand, as its qualifier spells it.
enum class Elem : std::uint8_t {
  f16,  ///< IEEE binary16, two per 32-bit register
  bf16, ///< bfloat16, two per register
  tf32, ///< an f32 register of which the 19 high bits count (sign, 8 exponent, 10 fraction)
  f32,  ///< IEEE binary32, one per register
  f64,  ///< IEEE binary64, one per 64-bit register
  s8,   ///< signed 8-bit integer, four per register
  u8,   ///< unsigned 8-bit integer, four per register
  s4,   ///< signed 4-bit integer, eight per register
  u4,   ///< unsigned 4-bit integer, eight per register
  e4m3, ///< 8-bit float with 4 exponent and 3 fraction bits, four per register
  e5m2, ///< 8-bit float with 5 exponent and 2 fraction bits, four per register
  s32,  ///< signed 32-bit integer (integer accumulators)
  b1,   ///< a single bit, thirty-two per register (the first in the low bit)
};

/// In mma.sync's d and ldmatrix's destinations (ir::Op::dst), the sink `_` (that element or
/// matrix is dropped); in mma.sync's c, an immediate (its bits in MatrixOp::cimm): ptxas takes
/// them, and FlashInfer writes `{%f1, _, %f2, _}` from `{%f3, 0., %f4, 0.}` for a row sum and
/// `ldmatrix ... {%r1, _, %r2, _}` for half of an .x4. The index names no register.
constexpr std::uint32_t no_register = 0xFFFFFFFFu;

/// One tensor-core instruction's shape, types, qualifiers and operand registers.
struct MatrixOp {
  std::uint16_t m = 0, n = 0, k = 0;
  Elem d = Elem::f32, a = Elem::f16, b = Elem::f16, c = Elem::f32;
  bool satfinite = false;           ///< integer results clamped to the s32 range (else they wrap)
  std::vector<std::uint32_t> dregs; ///< D's registers
  /// A's registers (wgmma: empty when A comes from a descriptor)
  std::vector<std::uint32_t> aregs;
  std::vector<std::uint32_t> bregs; ///< mma.sync: B's registers
  std::vector<std::uint32_t> cregs; ///< mma.sync: C's registers (wgmma accumulates into dregs)
  /// mma.sync: C's immediates by position, where cregs holds no_register (empty when none)
  std::vector<std::uint64_t> cimm;
  // ---- wgmma.mma_async only
  bool a_desc = false;          ///< A comes from a shared-memory descriptor (a_desc_reg)
  std::uint32_t a_desc_reg = 0; ///< the 64-bit register holding A's descriptor
  std::uint32_t b_desc_reg = 0; ///< the 64-bit register holding B's descriptor
  /// scale-d: a predicate register (scale_reg), or the constant scale_value (true: D = A*B+D,
  /// false: D = A*B).
  bool scale_is_reg = false;
  std::uint32_t scale_reg = 0;
  bool scale_neg = false; ///< `!%p`
  bool scale_value = true;
  std::int8_t scale_a = 1, scale_b = 1;  ///< imm-scale-a / imm-scale-b: 1 or -1 (negate)
  bool trans_a = false, trans_b = false; ///< imm-trans-a / imm-trans-b
  // ---- wmma.load / wmma.store / wmma.mma only
  /// Which matrix a wmma.load or wmma.store moves: 'a', 'b', 'c' (load) or 'd' (store), in
  /// dregs (the load's destination, the store's source); its element type is `d`.
  char part = 0;
  /// Column-major memory layouts: a load's or store's (`.col`) in a_col; wmma.mma's
  /// alayout / blayout in a_col / b_col.
  bool a_col = false, b_col = false;
  /// The single-bit wmma.mma (.b1): each product of bits is their AND ('&', `.and.popc`) or XOR
  /// ('^', `.xor.popc`), so that D = C + the popc of each row of A op each column of B; 0 else.
  char popc = 0;
};

} // namespace ptxgen::sim::ir
