#pragma once
// The per-op proofs of the sm_90 bulk-copy family (docs/spec-format.md, "Bulk copies and
// tensor maps (sm_90)"), for every thread whose pred may hold and every value of the
// declared ranges: the 1-D operands (contiguous, equal sizes, a multiple of 16 in
// 16..ptx::max_bulk_bytes, 16-byte aligned starts, not swizzled), the shared side of a
// tensor copy (contiguous, the box's bytes, the map's swizzle, aligned to the swizzle's
// period), tensor coordinates (signed 32-bit; a store's never negative and never
// spilling past the inner extent), expect_tx's byte count, and the elements of a
// swizzled tensor's views (each inside one 16-byte chunk).
//
// Alignment is proved by divisibility: a start's offset is a sum of a constant and terms
// index * stride, and known_divisor() gives a number every value of an index is a
// multiple of. Where that does not prove it and the view names no parameter or loop
// variable, the threads are enumerated; otherwise the op is refused.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

namespace ptxgen::tile {

/// What the bulk proofs take from the contract checker.
struct BulkProofContext {
  const Kernel& kernel;
  /// The launch, the parameters' declared ranges and the open loops' variables.
  const LaunchBounds& bounds;
  Diagnostics& out;
  /// Every byte of the view inside its tensor for every thread whose pred (may be null)
  /// may hold; false after reporting.
  std::function<bool(const Located<View>&, std::string_view role, const Located<ExprPtr>* pred)>
      in_bounds;
  /// The 32-bit rule for e's operations under `lb` (and for its value when `whole`).
  std::function<void(const Expr& e, const LaunchBounds& lb, const SourcePos& pos,
                     std::uint32_t length, std::string_view what, bool whole)>
      u32;
};

void check_bulk_load(const BulkProofContext& c, const BulkLoadOp& op);
void check_bulk_store(const BulkProofContext& c, const BulkStoreOp& op);
/// A bulk_copy_peer: its dst (a peer's) and src as a bulk copy's pair.
void check_bulk_peer(const BulkProofContext& c, const BulkCopyPeerOp& op);
/// A bulk_reduce: the operands as a bulk_store's, one element type on both sides
/// (contract_reduce_dtype) and a reduction of that type that is a PTX form
/// (contract_reduce_type, shown at the `reduce` key).
void check_bulk_reduce(const BulkProofContext& c, const BulkReduceOp& op, const SourcePos& at);
void check_expect_tx(const BulkProofContext& c, const ExpectTxOp& op);
void check_tensor_load(const BulkProofContext& c, const TensorLoadOp& op);
void check_tensor_store(const BulkProofContext& c, const TensorStoreOp& op);
/// A tensormap_copy: its dst slot (128 contiguous bytes, 128-byte aligned; global with `src`)
/// and its src slot (shared) (contract_tensormap_slot).
void check_tensormap_copy(const BulkProofContext& c, const TensormapCopyOp& op);
/// A tensormap_replace: its slot, and the new value legal for the map for every issuing thread
/// and value of the declared ranges (contract_tensormap_value): a global address of a global
/// tensor of the map's dtype, 16-byte aligned; a global dim in 1..2^32; a global stride a
/// multiple of 16 below 2^40; `dim` a dimension of the map.
void check_tensormap_replace(const BulkProofContext& c, const TensormapReplaceOp& op);
/// A tensormap_fence: its slot (global for an acquire).
void check_tensormap_fence(const BulkProofContext& c, const TensormapFenceOp& op);
/// A tensor copy's `map`, when it has one: a global slot.
void check_tensor_copy_map(const BulkProofContext& c, const std::optional<Located<View>>& map,
                           const std::optional<Located<ExprPtr>>& pred);
/// A tensor_reduce: src of the map's dtype (contract_reduce_dtype), a reduction of that type
/// that the tensor form has (contract_tensor_reduce_type, at the `reduce` key), then a
/// tensor_store's proofs.
void check_tensor_reduce(const BulkProofContext& c, const TensorReduceOp& op, const SourcePos& at);

/// A copy's or fill's view of a swizzled shared tensor: every element inside one 16-byte
/// chunk (the swizzle moves chunks, so an element across two would be torn apart).
void check_swizzled_elements(const BulkProofContext& c, const Located<View>& v,
                             std::string_view role);

/// A positive number every value of e is a multiple of (1 when nothing better is known;
/// 0 for the constant 0, a multiple of everything).
std::int64_t known_divisor(const Expr& e);

/// The bytes of the view when its elements are one contiguous row-major range.
std::optional<std::int64_t> contiguous_bytes(const View& v);

/// Whether a tensor store through `map` at `coords` writes a BoxPlace::spill element (the
/// same answer as box_elements, computed per dimension instead of per element).
bool store_spills(const TensorMapDesc& map, std::span<const std::int64_t> coords);

} // namespace ptxgen::tile
