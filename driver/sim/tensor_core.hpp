#pragma once
// The tensor-core arithmetic and layouts (internal to driver/sim): pure functions on register
// bits, shared-memory offsets and lane numbers, as the PTX ISA defines them ("Matrix
// multiply-accumulate operation using mma instruction", "Matrix fragments for mma.mMnNkK",
// "Asynchronous Warpgroup Level Matrix ... Matrix Descriptor", "Shared Memory Matrix Layout").
//
// What the ISA fixes and what it leaves open, and how the simulator computes:
// - Integer forms (s8/u8/s4/u4 -> s32) are exact: every product and sum is an integer that a
//   double holds exactly here (|sum| < 2^53); the s32 result wraps modulo 2^32, or with
//   .satfinite is clamped to [INT32_MIN, INT32_MAX]. These must equal the GPU bit for bit.
// - Floating forms: the ISA fixes neither the order in which the K products are added nor the
//   precision of the intermediate sums. The simulator forms every product exactly (f16, bf16,
//   tf32, e4m3 and e5m2 products fit a double's 53 bits), sums C and the products in k order
//   exactly (a double-double: TwoSum), and rounds that sum once to D's format, to nearest even:
//   the exact result, correctly rounded. f64 forms are fused multiply-adds in k order, each
//   rounded to nearest. NaN and infinity inputs follow IEEE arithmetic in double (a NaN result
//   is the canonical NaN). The GPU may round its partial sums: GPU and simulator are compared
//   under the mode tools/tensor_core_device/cases.hpp declares, never a silent tolerance.

#include "driver/sim/ir.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::sim::tc {

/// The qualifier words of the tensor-core forms besides their shapes and element types (which
/// are families: parse_shape, parse_elem). Not in emitter/ptx/qualifiers.def yet: moving them
/// there rebuilds nearly everything, left for a batch of table changes.
inline constexpr std::string_view word_row = "row";
inline constexpr std::string_view word_col = "col";
inline constexpr std::string_view word_satfinite = "satfinite";
/// The single-bit wmma.mma's `.and.popc` / `.xor.popc` (words of qualifiers.def too).
inline constexpr std::string_view word_and = "and";
inline constexpr std::string_view word_xor = "xor";
inline constexpr std::string_view word_popc = "popc";
/// Whether `s` is a word of the tensor-core forms: a shape, an element type or one of the above.
bool is_tensor_word(std::string_view s);

/// "m16n8k16" -> {16, 8, 16}; nullopt for anything else.
std::optional<std::array<unsigned, 3>> parse_shape(std::string_view s);
/// "f16" -> Elem::f16, ... ("e4m3", "tf32", "s32"); nullopt for other words.
std::optional<ir::Elem> parse_elem(std::string_view s);
std::string_view name(ir::Elem e);
/// The bits of one element (f64: 64; tf32: 32, a whole register).
unsigned elem_bits(ir::Elem e);
bool is_integer(ir::Elem e);
/// Elements per register (f64: one per 64-bit register).
inline unsigned per_register(ir::Elem e) {
  return e == ir::Elem::f64 ? 1 : 32 / elem_bits(e);
}

/// The value of one element's bits (its elem_bits low bits), exactly.
double value(ir::Elem e, std::uint64_t bits);
/// Element `i` of a register `reg` holding per_register(e) elements, the first in the low bits.
inline std::uint64_t element_of(ir::Elem e, std::uint64_t reg, unsigned i) {
  const unsigned b = elem_bits(e);
  return b >= 64 ? reg : (reg >> (i * b)) & ((1ull << b) - 1);
}

/// Why an mma.sync of this shape and these types is not one the simulator runs, if it is not.
std::optional<std::string> check_mma(const ir::MatrixOp& m);
/// Why a wgmma.mma_async of this shape and these types is not simulated, if it is not.
std::optional<std::string> check_wgmma(const ir::MatrixOp& m);

/// The register counts of an mma.sync's operands (D and C alike).
unsigned a_registers(const ir::MatrixOp& m);
unsigned b_registers(const ir::MatrixOp& m);
unsigned c_registers(unsigned rows, unsigned cols, ir::Elem c);

/// A matrix element's row and column.
struct Cell {
  unsigned row = 0, col = 0;
};

/// Why a wmma.load / wmma.store / wmma.mma of this shape and these types (m.d: the moved
/// fragment's type, or D's; a, b, c: wmma.mma's) is not simulated, if it is not. `part` is the
/// moved matrix ('a', 'b', 'c', 'd'), 0 for wmma.mma.
std::optional<std::string> check_wmma(const ir::MatrixOp& m, char part);
/// The registers of a wmma fragment of matrix `part` ('a': m x k, 'b': k x n, 'c'/'d': m x n)
/// of element type `e` (PTX ISA, "Matrix Fragments for WMMA"): rows x cols elements spread
/// over the warp, except the .f16 A and B fragments, 8 registers at every shape, which hold
/// each element in 2 or 4 lanes.
unsigned wmma_registers(const ir::MatrixOp& m, char part, ir::Elem e);
/// The rows and columns of wmma matrix `part` of shape m.
std::array<unsigned, 2> wmma_dims(const ir::MatrixOp& m, char part);
/// mma.sync's fragments (m8 and m16 by n8 shapes): which element of A (rows x k), B (k x 8)
/// and C/D (rows x 8) lane `lane` holds as its element `i` (element i of register
/// i / per_register). The same layout is a warp's slice of wgmma's A in registers.
Cell a_cell(unsigned rows, ir::Elem a, unsigned lane, unsigned i);
Cell b_cell(ir::Elem b, unsigned lane, unsigned i);
Cell c_cell(unsigned lane, unsigned i);
/// wgmma's accumulator: element `i` of thread `t` of the warpgroup (0..127), of 64 x N.
Cell wgmma_d_cell(unsigned t, unsigned i);
/// wmma's fragments. The ISA leaves the distribution of a fragment's elements over the lanes
/// unspecified ("the mapping of matrix elements into fragments is unspecified"; the fragment is
/// opaque to the program), requiring only that a wmma.mma reads the fragments the loads of the
/// same layouts wrote. The simulator's: lane `lane`'s element `i` (of `per_lane`) is element
/// (lane * per_lane + i) mod (rows * cols) of the matrix enumerated in its memory order
/// (`col_major`: column by column; else row by row), so that each lane's elements are runs of
/// contiguous memory. Accumulator fragments (C, D) are enumerated row by row whatever the
/// layout of their load or store, since wmma.mma names no layout for them.
Cell wmma_cell(unsigned rows, unsigned cols, bool col_major, unsigned per_lane, unsigned lane,
               unsigned i);

/// D = A B + C for one matrix (row-major values: A rows x k, B k x cols, C rows x cols), each
/// element as the bits of D's type (see the header comment for the order of the sums).
std::vector<std::uint64_t> multiply(const ir::MatrixOp& m, unsigned rows, unsigned cols,
                                    std::span<const double> a, std::span<const double> b,
                                    std::span<const double> c);
/// D's bits for the value `v` + a tail of sign `sticky` (-1, 0, 1) below half an ulp of v,
/// rounded to nearest even (integers: wrapped, or clamped by .satfinite).
std::uint64_t result_bits(ir::Elem d, bool satfinite, double v, int sticky);

/// A wgmma shared-memory matrix descriptor's fields (PTX ISA, "Matrix Descriptor Format").
struct Descriptor {
  std::uint32_t start = 0;  ///< shared address of the matrix (bits 0-13, in 16-byte units)
  std::uint32_t lbo = 0;    ///< leading dimension byte offset (bits 16-29, 16-byte units)
  std::uint32_t sbo = 0;    ///< stride dimension byte offset (bits 32-45, 16-byte units)
  unsigned base_offset = 0; ///< bits 49-51
  unsigned swizzle = 0;     ///< swizzle span in bytes: 0 (none), 32, 64 or 128 (bits 62-63)
};
Descriptor decode_descriptor(std::uint64_t d);
/// The shared address of element (r, kk) of a K-major operand (r: its row of M or N, kk its
/// column of K) of `bits`-bit elements: core matrices of 8 rows by 16 bytes, `lbo` apart along
/// K and `sbo` apart along M/N, without swizzle; with a swizzle of span W, 8-row atoms of W-byte
/// rows `sbo` apart, the 16-byte chunks of each row XOR-permuted by address bits 7.. (the
/// pattern repeats every 8 W bytes).
std::uint64_t kmajor_address(const Descriptor& d, unsigned r, unsigned kk, unsigned bits);
/// The same for an MN-major operand (imm-trans 1: A M-major, B N-major), its 16-byte chunks
/// running along M or N: without swizzle, core matrices of 8 K-rows by 16 bytes of M/N, `sbo`
/// apart along M/N and `lbo` apart along K (each 8 K-rows); with a swizzle of span W, atoms of 8
/// K-rows by W bytes of M/N, `lbo` apart along M/N and `sbo` apart along K, XOR-permuted as
/// kmajor_address's (PTX ISA, "Shared Memory Matrix Layout"; CUTLASS's canonical GMMA
/// layouts agree).
std::uint64_t mnmajor_address(const Descriptor& d, unsigned r, unsigned kk, unsigned bits);

} // namespace ptxgen::sim::tc
