#pragma once
// The kernel's parameter list, shared by the lowering (which declares it) and
// every runner (which passes it): global tensors first, in the kernel's
// declaration order, as .u64 pointers; then the tensor maps of those that
// declare one ([tensor.NAME.map]), in the same order, as 128-byte
// `.param .align 128 .b8` arrays; then scalar parameters in order; or the
// order the spec's `abi = [...]` lists them in (tile::Kernel::abi).

#include "emitter/ptx/target.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::lower {

struct ParamBinding {
  enum class Kind : std::uint8_t {
    tensor,     ///< a .u64 global pointer to the tensor `name`
    u32,        ///< a .u32 scalar parameter
    u64,        ///< a .u64 scalar parameter (cache policies)
    tensor_map, ///< the 128-byte tensor map of the global tensor `tensor`
  } kind = Kind::tensor;
  std::string name;     ///< the tensor's or the parameter's name in the spec ("A.map" for a map)
  std::string ptx_name; ///< the name in the PTX parameter list
  std::string tensor;   ///< tensor_map: the global tensor the map describes
};

std::vector<ParamBinding> kernel_params(const tile::Kernel& k);

/// How a spec names the tensor map parameter of global tensor `tensor` (in `abi`): "A.map".
std::string map_param_name(std::string_view tensor);

/// Whether global tensor `tensor` is passed by its map alone: the spec's `abi` lists its map
/// ("A.map") and not the tensor ("A"), as a kernel that takes only a `CUtensorMap` does. It
/// then has no pointer parameter, and no op may address it but through the map.
bool map_only(const tile::Kernel& k, std::string_view tensor);

/// The tensor a map parameter's name names ("A" for "A.map"); empty for any other name.
std::string_view map_param_tensor(std::string_view name);

/// The PTX parameter symbol of a global tensor's map ("map_" + name): no other parameter
/// symbol starts so (param_symbol()'s all start with "arg_").
std::string map_param_symbol(std::string_view tensor);

/// A tensor map parameter's bytes and declared alignment: sizeof(CUtensorMap), and the
/// alignment nvcc 13.0 gives a `const __grid_constant__ CUtensorMap` parameter
/// (`.param .align 128 .b8 NAME[128]`: CUDA 13's CUtensorMap is alignas(128)).
inline constexpr std::uint32_t tensor_map_param_bytes = 128;
inline constexpr std::uint32_t tensor_map_param_align = 128;

/// The PTX parameter symbol of a global tensor or scalar parameter named `name`
/// ("arg_" + name): the one place that spells the prefix, so that no spec name
/// collides with a PTX keyword.
std::string param_symbol(std::string_view name);

/// The PTX symbol of a shared tensor's array ("smem_" + name).
std::string shared_symbol(const tile::Tensor& t);

/// The PTX symbol of the one `.extern .shared` array of a kernel whose shared
/// tensors use dynamic shared memory (tile::SharedLayout); no shared tensor's
/// symbol can take it, as those all start with "smem_" + a tensor name and
/// such a kernel declares none of them.
inline constexpr std::string_view dynamic_shared_symbol = "smem_dynamic";

/// The alignment of that array (at least; a tensor asking for more raises it).
inline constexpr std::uint32_t dynamic_shared_align = 1024;

/// The dynamic shared bytes a launch of k must pass (`sharedMemBytes`, and
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES): the shared layout's total
/// when it is dynamic, else 0.
std::uint32_t dynamic_shared_bytes(const tile::Kernel& k);

/// The dynamic shared bytes a launch of `k` on `run_target` asks for: dynamic_shared_bytes(k),
/// padded for a `ctas_per_sm` residency so that no more CTAs than it fit on one SM
/// (tile::shared_bytes_for_residency, over the least shared bytes the kernel can take).
std::uint32_t launch_dynamic_shared_bytes(const tile::Kernel& k, ptx::Target run_target);

} // namespace ptxgen::lower
