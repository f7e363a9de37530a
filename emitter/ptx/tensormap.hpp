#pragma once
// The instructions that edit tensor maps in memory and order those edits against the tensor
// copies that read the map through the tensormap proxy (PTX ISA 8.3): tensormap.replace
// (sm_90a only: ptxas 13.0 refuses it on sm_90), fence.proxy.tensormap::generic and
// tensormap.cp_fenceproxy (sm_90). The spec language's ops: docs/spec-format.md,
// "Tensor maps edited on the device".

#include "emitter/ptx/declaration.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/mnemonic.hpp"
#include "emitter/ptx/operand.hpp"
#include "emitter/ptx/qualifier.hpp"
#include "emitter/ptx/types.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptxgen::ptx {

/// The tensormap.replace fields ptxgen emits (the ones the spec language models).
enum class TensormapField : std::uint8_t { global_address, global_dim, global_stride };
std::string_view name(TensormapField f); ///< "global_address", "global_dim", "global_stride"
/// The new value's width: `.b64` for global_address and global_stride, `.b32` for global_dim.
constexpr ScalarType value_type(TensormapField f) {
  return f == TensormapField::global_dim ? ScalarType::b32 : ScalarType::b64;
}
/// Whether the field is per dimension (an `ord` operand: the dimension, innermost 0).
constexpr bool has_ordinal(TensormapField f) {
  return f != TensormapField::global_address;
}

/// tensormap.replace.tile.field.{global,shared::cta}.b1024.{b32,b64} [map], {ord,} value;
/// Writes one field of the 128-byte map at `map` (a generic-proxy write of its bytes).
struct TensormapReplace {
  TensormapField field = TensormapField::global_address;
  bool shared = false; ///< `.shared::cta` (a 32-bit or 64-bit shared address), else `.global`
  Address map;
  Operand ordinal = Immediate{0}; ///< the dimension, innermost 0 (global_dim, global_stride)
  Operand value;
};

template <class V>
void describe(const TensormapReplace& r, V& v) {
  v.opcode(Mnemonic::tensormap_replace);
  v.qualifier(spelling(Qualifier::tile));
  v.qualifier(name(r.field));
  v.qualifier(spelling(r.shared ? Qualifier::shared_cta : Qualifier::global));
  v.qualifier(spelling(Qualifier::b1024));
  v.qualifier(name(value_type(r.field)));
  v.address(r.map, {Role::address, r.shared ? AddressWidth::b32_or_b64 : AddressWidth::b64,
                    SymbolScope::shared});
  if (has_ordinal(r.field))
    v.use(r.ordinal, {Role::first, ScalarType::u32});
  v.use(r.value, {Role::source, value_type(r.field)});
  v.feature(Feature::tensormap_replace);
}

/// fence.proxy.tensormap::generic.release.gpu;  or
/// fence.proxy.tensormap::generic.acquire.gpu [map], 128;  (`map` a generic address)
struct FenceProxyTensormap {
  bool acquire = false;
  Address map;                   ///< acquire only
  Operand size = Immediate{128}; ///< the map's bytes (the one size PTX allows)
};

template <class V>
void describe(const FenceProxyTensormap& f, V& v) {
  v.opcode(Mnemonic::fence_proxy_tensormap);
  v.qualifier(spelling(f.acquire ? Qualifier::acquire : Qualifier::release));
  v.qualifier(spelling(Qualifier::gpu));
  if (f.acquire) {
    v.address(f.map, {Role::tensor_map, AddressWidth::b64, SymbolScope::none});
    v.use(f.size, {Role::size, ScalarType::u32});
  }
  v.feature(Feature::tensormap_fence);
}

/// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned
///   [dst], [src], 128;
/// Copies a map from shared to global memory and releases it to the tensormap proxy; every
/// thread of the warp executes it.
struct TensormapCpFenceproxy {
  Address dst;                   ///< global, 64-bit
  Address src;                   ///< shared
  Operand size = Immediate{128}; ///< the map's bytes (the one size PTX allows)
};

template <class V>
void describe(const TensormapCpFenceproxy& c, V& v) {
  v.opcode(Mnemonic::tensormap_cp_fenceproxy);
  v.qualifier(spelling(Qualifier::global));
  v.qualifier(spelling(Qualifier::shared_cta));
  v.qualifier(spelling(Qualifier::tensormap_generic));
  v.qualifier(spelling(Qualifier::release));
  v.qualifier(spelling(Qualifier::gpu));
  v.qualifier(spelling(Qualifier::sync));
  v.qualifier(spelling(Qualifier::aligned));
  v.address(c.dst, {Role::dst_address, AddressWidth::b64, SymbolScope::none});
  v.address(c.src, {Role::src_address, AddressWidth::b32_or_b64, SymbolScope::shared});
  v.use(c.size, {Role::size, ScalarType::u32});
  v.feature(Feature::tensormap_fence);
}

} // namespace ptxgen::ptx
