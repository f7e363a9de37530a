#pragma once
// The simulator's instruction forms as a table (internal to driver/sim): one
// Form per SIM_FORM row of forms.def. The parser (decode.cpp) reads an
// instruction by its form.

#include "driver/sim/ir.hpp"
#include "emitter/ptx/mnemonic.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace ptxgen::sim::detail {

/// The grammar of the qualifiers that follow a form's mnemonic.
enum class Quals : std::uint8_t {
  none,         ///< nothing may follow (cp.async.commit_group)
  uni,          ///< an optional `.uni` (ret, exit, bra)
  aligned,      ///< an optional `.aligned`; anything else is not simulated (bar.sync)
  type,         ///< exactly one type (add.s32); more qualifiers are not simulated
  cmp_type,     ///< a comparison, then a type (setp.lt.s32)
  type_type,    ///< the destination type, then the source type (cvt.u64.u32)
  memory,       ///< ld/st: a state space, `.v2`/`.v4`, cache hints and one type, in any order
  cvta,         ///< `{.to}.space.type`
  cp_async,     ///< `.ca|.cg .shared .global {.L2::cache_hint} {.L2::64B|128B|256B}`
  createpolicy, ///< one or two `.L2::evict_*` priorities, then `.b64`
  arith,        ///< `.rn|.rz|.rm|.rp`, `.ftz`, `.sat` (each at most once), then one type
  cvt,      ///< a float or integer rounding, `.ftz`, `.sat`, then the destination and source types
  prmt,     ///< `.b32`, then an optional mode (`.f4e .b4e .rc8 .ecl .ecr .rc16`)
  shf,      ///< `.l|.r`, then `.wrap|.clamp`, then `.b32`
  mbarrier, ///< mbarrier family: `.sem .scope .space .b64` ({.noinc} for cp.async.mbarrier)
  bulk,     ///< cp.async.bulk: `.shared::{cta,cluster} .global .mbarrier::complete_tx::bytes`
  bulk_prefetch,   ///< cp.async.bulk.prefetch: `.L2 .global {.L2::cache_hint}`
  tensor_prefetch, ///< cp.async.bulk.prefetch.tensor: `.Nd .L2 .global {.tile} {.L2::cache_hint}`
  tensor,    ///< cp.async.bulk.tensor: `.Nd`, the load's or the store's spaces, `{.tile}`, its
             ///< completion, `{.L2::cache_hint}`
  bulk_wait, ///< cp.async.bulk.wait_group: `{.read}`
  fence,     ///< fence.proxy.async{.space} / fence.mbarrier_init.release.cluster
  tensormap, ///< tensormap.replace, tensormap.cp_fenceproxy, fence.proxy.tensormap::generic
  space,     ///< exactly one state space (isspacep.global); the operand is a 64-bit address
  ldmatrix,  ///< `.sync.aligned.m8n8.x1|.x2|.x4{.trans}.shared{::cta}.b16`
  prefetch,  ///< `{.global|.local}.L1|.L2|.L2::evict_last|.L2::evict_normal` (prefetchu: `.L1`)
  shfl,      ///< `.sync.up|.down|.bfly|.idx.b32`
  vote,      ///< `.sync.all|.any|.uni.pred` or `.sync.ballot.b32`
  atomic,    ///< atom/red: `.sem .scope .space` (any order, each optional), `.op`, one type
  scope,     ///< fence.sc/acq_rel: one scope (`.cta .cluster .gpu .sys`); membar: `.cta .gl .sys`
  bfind,     ///< `{.shiftamt}` then one type
  // kernel math and barriers
  bar_red,     ///< bar.red: `.popc{.aligned}.u32` or `.and|.or{.aligned}.pred`
  redux,       ///< redux.sync: `.add|.min|.max .u32|.s32` or `.and|.or|.xor .b32`
  setmaxnreg,  ///< `.inc|.dec .sync .aligned .u32`
  math,        ///< `{.approx|.rn|.rz|.rm|.rp}{.ftz}` then one float type (ex2, sqrt, ...)
  tensor_core, ///< read with the operands (Shape::tensor_operands, tensor_parse.cpp)
  // clusters
  cluster_barrier, ///< barrier.cluster.arrive `{.relaxed|.release}{.aligned}`, .wait
                   ///< `{.acquire}{.aligned}`
  mapa,            ///< `{.shared::cluster}` then `.u32|.u64|.b32|.b64`
  // integer dot products
  dot, ///< dp4a / dp2a.{lo,hi}: `.atype.btype`, each .u32 or .s32
};

/// Which PTX types a form takes (checked on each type qualifier).
enum class Types : std::uint8_t {
  none,            ///< no type qualifier
  any,             ///< every type, .pred and floats included (mov)
  value,           ///< every type but .pred (selp, ld, st)
  integer,         ///< integers and bN; floats are not simulated; .pred is an error
  integer_or_pred, ///< integers, bN and .pred (the logical operations)
  narrow_integer,  ///< `integer` of at most 32 bits (the .wide forms)
  address,         ///< 32- or 64-bit integers (cvta)
  numeric,         ///< every type but .pred: integers, bN and the floats (f16x2, bf16, ... too)
  floating,        ///< the float types only (fma, float mul)
};

/// What one operand must be, and where it goes in the ir::Op.
enum class Shape : std::uint8_t {
  none,         ///< no operand here (pads the row)
  dst,          ///< a register of the type's width -> dst[0]
  dst_wide,     ///< a register of twice the type's width -> dst[0]
  dst_at_least, ///< a register at least as wide as the type -> dst[0] (cvt)
  dst_pred,     ///< a predicate register -> dst[0]
  pred_pair,    ///< setp's `p` or `p|q`: predicate registers -> dst[0], Op::pred_dst
  bool_src,     ///< setp's `{!}c`, present exactly with a .bop qualifier -> src[2]
  mov_dst,      ///< `dst`; a vector operand is not simulated
  src,          ///< a register, immediate, special register or shared symbol of the type's width
  src_wide,     ///< `src` of twice the type's width (mad.wide's addend)
  src_u32,      ///< `src` of 32 bits whatever the type (a shift amount, a bit position)
  src_from,     ///< `src` of the source type, a register may be wider (cvt)
  src_address,  ///< `src`; a register may be 64 bits whatever the type (cvta)
  mov_src,      ///< `src`, or the bits of a 0f/0d float literal; a vector is not simulated
  pred,         ///< a predicate register as a source (selp's selector)
  group_count,  ///< a non-negative integer immediate -> n (cp.async.wait_group)
  barrier,      ///< a barrier number: an immediate 0..15 -> n, or a register -> src[0] (n = -1)
  thread_count, ///< bar.sync's optional (bar.arrive's required) thread count -> src[1]
  label,        ///< a label declared in the entry -> n (the target instruction index)
  data,         ///< ld's destination / st's source: one register, or {..} for .v2/.v4
  mem,          ///< [reg+off] or [symbol+off] in the form's state space -> addr
  cp_dst,       ///< cp.async's shared destination address -> addr
  cp_src,       ///< cp.async's global source address -> addr2
  cp_size,      ///< cp.async's cp-size immediate (4, 8, 16; 16 for .cg) -> cp_size
  cp_extra,     ///< cp.async's optional src-size or ignore-src, then the cache policy
  fraction,     ///< optional createpolicy fraction literal in (0, 1]
  dst_u32,      ///< a 32-bit register whatever the type -> dst[0] (popc, clz)
  pos_len,      ///< two 32-bit sources: a bit position and a length (bfi)
  src_lut,      ///< a source, then lop3's immLut immediate 0..255 -> n
  src_pair,     ///< cvt to f16x2 / bf16x2: the second source (its lower half); else absent
  mbar_addr,    ///< an mbarrier's address, in the form's space (shared or generic) -> addr
  opt_mem,      ///< an optional generic address -> addr (fence.proxy.tensormap's acquire)
  mbar_state,   ///< mbarrier.arrive's 64-bit state register, or the sink `_` -> dst[0] / sink
  opt_u32,      ///< optional `src_u32` (arrive's count, 1 when absent; try_wait's time hint)
  bulk_tail,    ///< cp.async.bulk's mbarrier address -> addr3 (a load's only), a multicast's
                ///< 16-bit CTA mask -> Op::cta_mask, then the optional cache policy
  tensor_op1,   ///< a tensor copy's first operand: the load's shared destination -> addr, the
                ///< store's `[tmap, {c0, ...}]` -> addr2 and coords
  tensor_op2,   ///< its second: the load's `[tmap, {c0, ...}]`, the store's shared source
  matrix_dst,   ///< ldmatrix: {r0, ...}, one 32-bit register per matrix -> dst[0..vec)
  policy,       ///< ld/st's cache-policy operand, present exactly with .L2::cache_hint
  pred_src,     ///< a predicate register, `!` allowed -> src[0] (Op::src_neg)
  opt_src,      ///< optional `src` (atom.cas's third operand)
  /// `d` or `d|p`: a register of the type's width, or the sink `_` (Op::sink) -> dst[0]; the
  /// predicate after `|` -> Op::pred_dst (shfl.sync, elect.sync)
  dst_pair,
  // kernel math and barriers
  red_tail,  ///< bar.red's `{b,} {!}c`: the optional thread count -> src[1], the predicate
             ///< -> src[2] (Op::src_neg)
  reg_count, ///< setmaxnreg's register count: an immediate multiple of 8 in 24..256 -> n
  /// every operand of a tensor-core instruction, read with its qualifiers by one reader
  /// (tensor_parse.cpp) -> Entry::matrix[Op::n], or dst/src/addr for stmatrix and movmatrix
  tensor_operands,
};

/// One instruction form: a row of forms.def.
struct Form {
  ptx::Mnemonic mnemonic;
  ir::Code code;
  Quals quals;
  Types types;
  std::array<Shape, 4> operands;
};

/// Every form, in the order of forms.def.
std::span<const Form> forms();

/// The form of a mnemonic; nullptr when the simulator has none.
const Form* find_form(ptx::Mnemonic m);

/// The form of an opcode's mnemonic, the longest dotted prefix of `opcode` that
/// ptx::parse_mnemonic finds ("mul.lo.s32" -> the "mul.lo" row); nullptr when there is none.
const Form* find_form(std::string_view opcode);

/// The fewest and the most operands a form takes.
std::size_t min_operands(const Form& f);
std::size_t max_operands(const Form& f);

} // namespace ptxgen::sim::detail
