#pragma once
// Typed instructions of the sm_90 bulk-copy family: 1-D bulk copies, their groups and
// the L2 prefetch (cp.async.bulk), tensor tiles in `.tile` mode (cp.async.bulk.tensor),
// the mbarrier transaction-count instructions and the async-proxy fences. Each kind is
// declared as in instruction.hpp: its struct, then describe(). Every qualifier is an
// enum or a flag, printed in the PTX ISA manual's order; the gates are the feature rows
// each declaration names (feature.cpp), measured against ptxas 13.0 (docs/ptx-rules.md,
// "Bulk copies").
//
// Not declared yet (the next steps): im2col modes, tensor bulk reductions
// (cp.reduce.async.bulk.tensor), tensormap.replace, the sm_100 forms.

#include "emitter/ptx/declaration.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/mnemonic.hpp"
#include "emitter/ptx/opcode.hpp"
#include "emitter/ptx/operand.hpp"
#include "emitter/ptx/qualifier.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

namespace ptxgen::ptx {

/// Where a bulk load writes: the executing CTA's shared memory, named two ways.
enum class BulkDst : std::uint8_t {
  shared_cluster, ///< `.shared::cluster` (PTX 8.0; a CTA's own shared memory is in its cluster's)
  shared_cta,     ///< `.shared::cta` (PTX 8.6)
};
std::string_view name(BulkDst d); ///< "shared::cluster", "shared::cta"

/// cp.async.bulk.{shared::cluster,shared::cta}.global.mbarrier::complete_tx::bytes
///   {.L2::cache_hint} [dst], [src], size, [mbar]{, policy};
/// Copies `size` bytes from global to shared memory and completes them as transaction bytes
/// on the mbarrier.
struct CpAsyncBulkLoad {
  BulkDst dst_space = BulkDst::shared_cluster;
  bool cache_hint = false;
  Address dst;  ///< shared, 16-byte aligned
  Address src;  ///< global, 16-byte aligned, in a 64-bit register
  Operand size; ///< a .u32 register or an immediate multiple of 16 in 0..max_bulk_bytes
  Address mbar; ///< the mbarrier in shared memory
  CachePolicy cache_policy;
  /// `.multicast::cluster`: a .b16 register or immediate, bit r for the CTA of cluster rank r
  /// (each gets the bytes at dst and completes them on its mbar, both CTA-relative).
  std::optional<Operand> cta_mask;
};

/// `.multicast::cluster` and its CTA mask operand, when the load has one. ptxas refuses it
/// with a `.shared::cta` destination and with a 32-bit mask.
template <class V>
void describe_multicast_qualifier(const std::optional<Operand>& mask, V& v) {
  if (mask)
    v.qualifier(spelling(Qualifier::multicast_cluster));
}
template <class V>
void describe_cta_mask(const std::optional<Operand>& mask, V& v) {
  if (!mask)
    return;
  v.use(*mask, {Role::cta_mask, ScalarType::b16});
  v.feature(Feature::bulk_multicast);
}

template <class V>
void describe(const CpAsyncBulkLoad& c, V& v) {
  v.opcode(Mnemonic::cp_async_bulk);
  v.qualifier(name(c.dst_space));
  v.qualifier(spelling(Qualifier::global));
  v.qualifier(spelling(Qualifier::complete_tx_bytes));
  describe_multicast_qualifier(c.cta_mask, v);
  if (c.cache_hint)
    v.qualifier(spelling(Qualifier::L2_cache_hint));
  v.address(c.dst, {Role::dst_address, AddressWidth::b32_or_b64, SymbolScope::shared});
  v.address(c.src, {Role::src_address, AddressWidth::b64, SymbolScope::none});
  v.use(c.size, {Role::size, ScalarType::u32});
  v.address(c.mbar, {Role::mbarrier, AddressWidth::b32_or_b64, SymbolScope::shared});
  describe_cta_mask(c.cta_mask, v);
  describe_cache_policy(c.cache_hint, c.cache_policy, v);
  v.feature(Feature::bulk_copy);
  if (c.dst_space == BulkDst::shared_cta)
    v.feature(Feature::bulk_shared_cta_dst);
}

/// cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dst], [src], size,
///   [mbar];
/// Copies `size` bytes of the executing CTA's shared memory into the shared memory of a CTA of
/// its cluster (dst, a `.shared::cluster` address from mapa) and completes them on that CTA's
/// mbarrier (mbar, mapped to the same CTA).
struct CpAsyncBulkPeer {
  Address dst;  ///< shared::cluster, 16-byte aligned
  Address src;  ///< the CTA's own shared memory, 16-byte aligned
  Operand size; ///< a .u32 register or an immediate multiple of 16 in 0..max_bulk_bytes
  Address mbar; ///< the destination CTA's mbarrier, shared::cluster
};

template <class V>
void describe(const CpAsyncBulkPeer& c, V& v) {
  v.opcode(Mnemonic::cp_async_bulk);
  v.qualifier(name(BulkDst::shared_cluster));
  v.qualifier(spelling(Qualifier::shared_cta));
  v.qualifier(spelling(Qualifier::complete_tx_bytes));
  v.address(c.dst, {Role::dst_address, AddressWidth::b32_or_b64, SymbolScope::shared});
  v.address(c.src, {Role::src_address, AddressWidth::b32_or_b64, SymbolScope::shared});
  v.use(c.size, {Role::size, ScalarType::u32});
  v.address(c.mbar, {Role::mbarrier, AddressWidth::b32_or_b64, SymbolScope::shared});
  v.feature(Feature::bulk_copy);
  v.feature(Feature::dsmem);
}

/// cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint} [dst], [src], size{, policy};
/// Copies `size` bytes from shared to global memory in the thread's current bulk group.
struct CpAsyncBulkStore {
  bool cache_hint = false;
  Address dst;  ///< global, 16-byte aligned, in a 64-bit register
  Address src;  ///< shared, 16-byte aligned
  Operand size; ///< a .u32 register or an immediate multiple of 16 in 0..max_bulk_bytes
  CachePolicy cache_policy;
};

/// The parts a 1-D bulk copy from shared to global memory shares with a bulk reduction:
/// `.global.shared::cta.bulk_group{.L2::cache_hint}` after the opcode, and the operands
/// [dst], [src], size{, policy}. `C` is CpAsyncBulkStore or CpReduceAsyncBulk.
template <class C, class V>
void describe_to_global_qualifiers(const C& c, V& v) {
  v.qualifier(spelling(Qualifier::global));
  v.qualifier(spelling(Qualifier::shared_cta));
  v.qualifier(spelling(Qualifier::bulk_group));
  if (c.cache_hint)
    v.qualifier(spelling(Qualifier::L2_cache_hint));
}

template <class C, class V>
void describe_to_global_operands(const C& c, V& v) {
  v.address(c.dst, {Role::dst_address, AddressWidth::b64, SymbolScope::none});
  v.address(c.src, {Role::src_address, AddressWidth::b32_or_b64, SymbolScope::shared});
  v.use(c.size, {Role::size, ScalarType::u32});
  describe_cache_policy(c.cache_hint, c.cache_policy, v);
}

template <class V>
void describe(const CpAsyncBulkStore& c, V& v) {
  v.opcode(Mnemonic::cp_async_bulk);
  describe_to_global_qualifiers(c, v);
  describe_to_global_operands(c, v);
  v.feature(Feature::bulk_copy);
}

struct CpAsyncBulkCommitGroup {}; ///< cp.async.bulk.commit_group;

template <class V>
void describe(const CpAsyncBulkCommitGroup&, V& v) {
  v.opcode(Mnemonic::cp_async_bulk_commit_group);
  v.feature(Feature::bulk_commit_group);
}

/// cp.async.bulk.wait_group{.read} N;  waits until at most N bulk groups are pending; with
/// `.read`, only until their sources have been read (the shared bytes may be reused).
struct CpAsyncBulkWaitGroup {
  std::int64_t n = 0;
  bool read = false;
};

template <class V>
void describe(const CpAsyncBulkWaitGroup& w, V& v) {
  v.opcode(Mnemonic::cp_async_bulk_wait_group);
  if (w.read)
    v.qualifier(spelling(Qualifier::read));
  v.immediate(w.n);
  v.feature(Feature::bulk_wait_group);
}

/// cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [src], size{, policy};
struct CpAsyncBulkPrefetch {
  bool cache_hint = false;
  Address src;  ///< global, in a 64-bit register
  Operand size; ///< a .u32 register or an immediate multiple of 16 in 0..max_bulk_bytes
  CachePolicy cache_policy;
};

template <class V>
void describe(const CpAsyncBulkPrefetch& p, V& v) {
  v.opcode(Mnemonic::cp_async_bulk_prefetch);
  v.qualifier(spelling(Qualifier::L2));
  v.qualifier(spelling(Qualifier::global));
  if (p.cache_hint)
    v.qualifier(spelling(Qualifier::L2_cache_hint));
  v.address(p.src, {Role::src_address, AddressWidth::b64, SymbolScope::none});
  v.use(p.size, {Role::size, ScalarType::u32});
  describe_cache_policy(p.cache_hint, p.cache_policy, v);
  v.feature(Feature::bulk_prefetch);
}

/// cp.reduce.async.bulk's `.redOp`.
enum class BulkRedOp : std::uint8_t { add, min, max, inc, dec, and_, or_, xor_ };
std::string_view name(BulkRedOp op); ///< "add", ..., "xor"

/// cp.reduce.async.bulk's element `.type` (`.bf16` is none of ScalarType's).
enum class BulkRedType : std::uint8_t { b32, b64, u32, s32, u64, s64, f16, bf16, f32, f64 };
std::string_view name(BulkRedType t); ///< "b32", ..., "f64"
unsigned size_bytes(BulkRedType t);

/// Whether `.op.type` is a form of the global <- shared::cta bulk reduction, as ptxas 13.0
/// assembles them for sm_90 (docs/ptx-bulk.md, "Bulk reductions"): add .u32 .s32 .u64 .f32
/// .f64 .f16 .bf16; min / max .u32 .s32 .u64 .s64 .f16 .bf16; inc / dec .u32; and / or / xor
/// .b32 .b64.
bool bulk_red_form(BulkRedOp op, BulkRedType t);
/// `.add.f16` and `.add.bf16` are written `.add.noftz.f16` / `.add.noftz.bf16` (the only forms).
constexpr bool bulk_red_noftz(BulkRedOp op, BulkRedType t) {
  return op == BulkRedOp::add && (t == BulkRedType::f16 || t == BulkRedType::bf16);
}

/// cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.redOp{.noftz}.type
///   [dst], [src], size{, policy};
/// Combines `size` bytes of shared elements into global ones, element by element (atomically
/// per element), in the thread's current bulk group.
struct CpReduceAsyncBulk {
  BulkRedOp op = BulkRedOp::add;
  BulkRedType type = BulkRedType::u32;
  bool cache_hint = false;
  Address dst;  ///< global, 16-byte aligned, in a 64-bit register
  Address src;  ///< shared, 16-byte aligned
  Operand size; ///< a .u32 register or an immediate multiple of 16 in 0..max_bulk_bytes
  CachePolicy cache_policy;
};

template <class V>
void describe(const CpReduceAsyncBulk& c, V& v) {
  v.opcode(Mnemonic::cp_reduce_async_bulk);
  describe_to_global_qualifiers(c, v);
  v.qualifier(name(c.op));
  if (bulk_red_noftz(c.op, c.type))
    v.qualifier(spelling(Qualifier::noftz));
  v.qualifier(name(c.type));
  describe_to_global_operands(c, v);
  v.feature(Feature::bulk_reduce);
}

/// A tensor's dimensionality, `.1d` ... `.5d`: the number of coordinates.
enum class TensorRank : std::uint8_t { d1, d2, d3, d4, d5 };
std::string_view name(TensorRank r); ///< "1d" ... "5d"
/// How many coordinates a tensor operand of rank r takes: 1 for `.1d` ... 5 for `.5d`.
constexpr std::size_t coordinates(TensorRank r) {
  return static_cast<std::size_t>(r) + 1;
}

/// The tensor operand `[tensor_map, {c0, c1, ...}]`: the generic address of a 128-byte
/// tensor map and one .s32 coordinate per dimension, innermost first.
struct TensorOperand {
  /// A 64-bit register holding the map's generic address. A symbol is refused: ptxas
  /// takes neither a `.param` nor a `.shared` symbol here ("State space mismatch").
  std::variant<Register, Symbol> tensor_map;
  std::vector<Operand> coords; ///< exactly coordinates(rank) of them
};

template <class V>
void describe_tensor(const TensorOperand& t, V& v) {
  v.tensor(t.tensor_map, t.coords, {Role::tensor_map, ScalarType::b64},
           {Role::coordinate, ScalarType::s32});
}

/// cp.async.bulk.tensor.Nd.{shared::cluster,shared::cta}.global.tile
///   .mbarrier::complete_tx::bytes{.L2::cache_hint} [dst], [tmap, {c...}], [mbar]{, policy};
/// Loads the tensor map's box at the coordinates into shared memory (out-of-bounds elements
/// filled) and completes its bytes on the mbarrier.
struct CpAsyncBulkTensorLoad {
  TensorRank rank = TensorRank::d1;
  BulkDst dst_space = BulkDst::shared_cluster;
  bool cache_hint = false;
  Address dst; ///< shared; 128-byte aligned (1024 for the 128-byte swizzle)
  TensorOperand tensor;
  Address mbar;
  CachePolicy cache_policy;
  std::optional<Operand> cta_mask; ///< `.multicast::cluster`'s, as CpAsyncBulkLoad's
  /// `.im2col` mode's offsets operand `{w, h, d}` (innermost first, `.b16`, rank - 2 of them,
  /// braced even when there is one); nullopt: `.tile` mode.
  std::optional<std::vector<Operand>> im2col_offsets;
};

template <class V>
void describe(const CpAsyncBulkTensorLoad& c, V& v) {
  v.opcode(Mnemonic::cp_async_bulk_tensor);
  v.qualifier(name(c.rank));
  v.qualifier(name(c.dst_space));
  v.qualifier(spelling(Qualifier::global));
  v.qualifier(spelling(c.im2col_offsets ? Qualifier::im2col : Qualifier::tile));
  v.qualifier(spelling(Qualifier::complete_tx_bytes));
  describe_multicast_qualifier(c.cta_mask, v);
  if (c.cache_hint)
    v.qualifier(spelling(Qualifier::L2_cache_hint));
  v.address(c.dst, {Role::dst_address, AddressWidth::b32_or_b64, SymbolScope::shared});
  describe_tensor(c.tensor, v);
  v.address(c.mbar, {Role::mbarrier, AddressWidth::b32_or_b64, SymbolScope::shared});
  if (c.im2col_offsets)
    v.vector(*c.im2col_offsets, {Role::offset, ScalarType::b16});
  describe_cta_mask(c.cta_mask, v);
  describe_cache_policy(c.cache_hint, c.cache_policy, v);
  v.feature(Feature::bulk_tensor);
  if (c.dst_space == BulkDst::shared_cta)
    v.feature(Feature::bulk_shared_cta_dst);
}

/// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group{.L2::cache_hint}
///   [tmap, {c...}], [src]{, policy};
/// Stores a box from shared memory into the tensor in the thread's current bulk group.
struct CpAsyncBulkTensorStore {
  TensorRank rank = TensorRank::d1;
  bool cache_hint = false;
  TensorOperand tensor;
  Address src; ///< shared
  CachePolicy cache_policy;
};

/// The parts a tensor store shares with a tensor reduction: `.Nd.global.shared::cta{.redOp}
/// .tile.bulk_group{.L2::cache_hint}` after the opcode (`redop`: the reduction's, nullptr for
/// a store) and the operands [tmap, {c...}], [src]{, policy}, as describe_to_global_* are for
/// the 1-D forms. `C` is CpAsyncBulkTensorStore or CpReduceAsyncBulkTensor.
template <class C, class V>
void describe_tensor_to_global(const C& c, const BulkRedOp* redop, V& v) {
  v.qualifier(name(c.rank));
  v.qualifier(spelling(Qualifier::global));
  v.qualifier(spelling(Qualifier::shared_cta));
  if (redop)
    v.qualifier(name(*redop));
  v.qualifier(spelling(Qualifier::tile));
  v.qualifier(spelling(Qualifier::bulk_group));
  if (c.cache_hint)
    v.qualifier(spelling(Qualifier::L2_cache_hint));
  describe_tensor(c.tensor, v);
  v.address(c.src, {Role::src_address, AddressWidth::b32_or_b64, SymbolScope::shared});
  describe_cache_policy(c.cache_hint, c.cache_policy, v);
}

template <class V>
void describe(const CpAsyncBulkTensorStore& c, V& v) {
  v.opcode(Mnemonic::cp_async_bulk_tensor);
  describe_tensor_to_global(c, nullptr, v);
  v.feature(Feature::bulk_tensor);
}

/// cp.reduce.async.bulk.tensor.Nd.global.shared::cta.redOp.tile.bulk_group{.L2::cache_hint}
///   [tmap, {c...}], [src]{, policy};
/// Combines a box of shared elements into the tensor, element by element (atomically per
/// element), in the thread's current bulk group. The element type is the map's: the
/// instruction names none (ptxas 13.0 refuses `.f32` or `.noftz` here), so which redOp fits
/// which type is the tile contract's rule (tile::tensor_reduce_ptx_type), not the validator's.
struct CpReduceAsyncBulkTensor {
  TensorRank rank = TensorRank::d1;
  BulkRedOp op = BulkRedOp::add;
  bool cache_hint = false;
  TensorOperand tensor;
  Address src; ///< shared
  CachePolicy cache_policy;
};

template <class V>
void describe(const CpReduceAsyncBulkTensor& c, V& v) {
  v.opcode(Mnemonic::cp_reduce_async_bulk_tensor);
  describe_tensor_to_global(c, &c.op, v);
  v.feature(Feature::bulk_reduce_tensor);
}

/// prefetch.tensormap's address space: a generic address (the default), or one of .param
/// (a kernel parameter's map) or .const.
enum class TensormapSpace : std::uint8_t { generic, param, const_ };

/// prefetch{.param,.const}.tensormap [addr];  a hint: brings the 128-byte map at addr into
/// the cache; nothing in memory changes.
struct PrefetchTensormap {
  TensormapSpace space = TensormapSpace::generic;
  Address addr; ///< a 64-bit register (generic) or a .param / .const symbol
};

template <class V>
void describe(const PrefetchTensormap& p, V& v) {
  v.opcode(Mnemonic::prefetch);
  if (p.space == TensormapSpace::param)
    v.qualifier(spelling(Qualifier::param));
  if (p.space == TensormapSpace::const_)
    v.qualifier(spelling(Qualifier::const_));
  v.qualifier(spelling(Qualifier::tensormap));
  v.address(p.addr, {Role::tensor_map, AddressWidth::b64,
                     p.space == TensormapSpace::param ? SymbolScope::param : SymbolScope::none});
  v.feature(Feature::prefetch_tensormap);
}

/// cp.async.bulk.prefetch.tensor.Nd.L2.global.tile{.L2::cache_hint} [tmap, {c...}]{, policy};
struct CpAsyncBulkPrefetchTensor {
  TensorRank rank = TensorRank::d1;
  bool cache_hint = false;
  TensorOperand tensor;
  CachePolicy cache_policy;
};

template <class V>
void describe(const CpAsyncBulkPrefetchTensor& p, V& v) {
  v.opcode(Mnemonic::cp_async_bulk_prefetch_tensor);
  v.qualifier(name(p.rank));
  v.qualifier(spelling(Qualifier::L2));
  v.qualifier(spelling(Qualifier::global));
  v.qualifier(spelling(Qualifier::tile));
  if (p.cache_hint)
    v.qualifier(spelling(Qualifier::L2_cache_hint));
  describe_tensor(p.tensor, v);
  describe_cache_policy(p.cache_hint, p.cache_policy, v);
  v.feature(Feature::bulk_prefetch_tensor);
}

/// The scope of an mbarrier operation's memory ordering.
enum class MbarrierScope : std::uint8_t {
  cta,     ///< `.cta`
  cluster, ///< `.cluster`
};
std::string_view name(MbarrierScope s); ///< "cta", "cluster"

/// The ordering semantics of mbarrier.arrive.expect_tx (ptxas wants a scope with it).
enum class MbarrierSem : std::uint8_t {
  release, ///< `.release` (the default when no ordering is written)
  relaxed, ///< `.relaxed` (PTX 8.6)
};
std::string_view name(MbarrierSem s); ///< "release", "relaxed"

/// `.sem.scope`: ptxas 13.0 refuses either one without the other.
struct MbarrierOrder {
  MbarrierSem sem = MbarrierSem::release;
  MbarrierScope scope = MbarrierScope::cta;
};

/// mbarrier.expect_tx{.relaxed.scope}{.shared{::cta}}.b64 [addr], txCount;
/// Raises the current phase's expected transaction bytes by txCount.
struct MbarrierExpectTx {
  /// `.relaxed.cta` / `.relaxed.cluster`; expect_tx takes no other semantics (PTX 8.0).
  std::optional<MbarrierScope> relaxed;
  std::optional<SharedSpace> space; ///< no state space means a generic address
  Address address;
  Operand tx_count; ///< a .u32 register or an immediate in 0..max_tx_count
};

/// What every mbarrier instruction says of its object: the `{.shared{::cta}}.b64`
/// qualifiers, the address (a generic one, with no space, must be a 64-bit register:
/// ptxas refuses a 32-bit one there) and the `.shared::cta` feature row.
template <class V>
void describe_mbarrier_space(std::optional<SharedSpace> space, V& v) {
  if (space)
    v.qualifier(name(*space));
  v.qualifier(name(ScalarType::b64));
}
template <class V>
void describe_mbarrier_address(std::optional<SharedSpace> space, const Address& a, V& v) {
  v.address(a, {Role::address, space ? AddressWidth::b32_or_b64 : AddressWidth::b64,
                SymbolScope::shared});
  if (space == SharedSpace::shared_cta)
    v.feature(Feature::shared_cta);
}
/// An arrival's `.b64` phase state, or the sink `_` that discards it.
template <class V>
void describe_mbarrier_state(const std::optional<Register>& state, V& v) {
  const Slot slot{Role::destination, ScalarType::b64};
  if (state)
    v.def(*state, slot);
  else
    v.sink(slot);
}

template <class V>
void describe(const MbarrierExpectTx& m, V& v) {
  v.opcode(Mnemonic::mbarrier_expect_tx);
  if (m.relaxed) {
    v.qualifier(name(MbarrierSem::relaxed));
    v.qualifier(name(*m.relaxed));
  }
  describe_mbarrier_space(m.space, v);
  describe_mbarrier_address(m.space, m.address, v);
  v.use(m.tx_count, {Role::tx_count, ScalarType::u32});
  v.feature(Feature::mbarrier_expect_tx);
}

/// mbarrier.arrive.expect_tx{.sem.scope}{.shared{::cta}}.b64 state | _, [addr], txCount;
/// expect_tx, then one arrival on the current phase.
struct MbarrierArriveExpectTx {
  std::optional<MbarrierOrder> order;
  std::optional<SharedSpace> space; ///< no state space means a generic address
  std::optional<Register> state;    ///< the .b64 phase state; none prints the sink `_`
  Address address;
  Operand tx_count; ///< a .u32 register or an immediate in 0..max_tx_count
};

template <class V>
void describe(const MbarrierArriveExpectTx& m, V& v) {
  v.opcode(Mnemonic::mbarrier_arrive_expect_tx);
  if (m.order) {
    v.qualifier(name(m.order->sem));
    v.qualifier(name(m.order->scope));
  }
  describe_mbarrier_space(m.space, v);
  describe_mbarrier_state(m.state, v);
  describe_mbarrier_address(m.space, m.address, v);
  v.use(m.tx_count, {Role::tx_count, ScalarType::u32});
  v.feature(Feature::mbarrier_arrive_expect_tx);
  if (m.order && m.order->sem == MbarrierSem::relaxed)
    v.feature(Feature::mbarrier_arrive_relaxed);
}

/// mbarrier.arrive.release.cluster.shared::cluster.b64 _, [addr];
/// One arrival on the current phase of a cluster CTA's mbarrier (addr from mapa), releasing
/// the executing thread's earlier accesses at cluster scope. PTX has no state result for a
/// `.shared::cluster` arrival: the sink is the only form.
struct MbarrierArriveRemote {
  Address address;
};

template <class V>
void describe(const MbarrierArriveRemote& m, V& v) {
  v.opcode(Mnemonic::mbarrier_arrive);
  v.qualifier(name(MbarrierSem::release));
  v.qualifier(name(MbarrierScope::cluster));
  v.qualifier(name(BulkDst::shared_cluster));
  v.qualifier(name(ScalarType::b64));
  v.sink({Role::destination, ScalarType::b64});
  v.address(m.address, {Role::address, AddressWidth::b32_or_b64, SymbolScope::shared});
  v.feature(Feature::mbarrier_remote_arrive);
}

/// The state space a proxy fence orders; none orders all of them.
enum class ProxySpace : std::uint8_t {
  global,         ///< `.global`
  shared_cta,     ///< `.shared::cta`
  shared_cluster, ///< `.shared::cluster`
};
std::string_view name(ProxySpace s); ///< "global", "shared::cta", "shared::cluster"

/// fence.proxy.async{.global,.shared::cta,.shared::cluster};  orders the generic proxy's
/// accesses before the async proxy's (a bulk store of bytes written by st.shared needs it).
struct FenceProxyAsync {
  std::optional<ProxySpace> space;
};

template <class V>
void describe(const FenceProxyAsync& f, V& v) {
  v.opcode(Mnemonic::fence_proxy_async);
  if (f.space)
    v.qualifier(name(*f.space));
  v.feature(Feature::fence_proxy_async);
}

/// fence.mbarrier_init.release.cluster;  makes mbarrier.init visible to the async proxy and
/// the cluster (the one form PTX has).
struct FenceMbarrierInit {};

template <class V>
void describe(const FenceMbarrierInit&, V& v) {
  v.opcode(Mnemonic::fence_mbarrier_init);
  v.qualifier(name(MbarrierSem::release));
  v.qualifier(name(MbarrierScope::cluster));
  v.feature(Feature::fence_mbarrier_init);
}

} // namespace ptxgen::ptx
