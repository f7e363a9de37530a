#pragma once
// The kernel's parameter list, shared by the lowering (which declares it) and
// every runner (which passes it): global tensors first, in the kernel's
// declaration order, as .u64 pointers; then scalar parameters in order;
// or the order the spec's `abi = [...]` lists them in (tile::Kernel::abi).

#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::lower {

struct ParamBinding {
  enum class Kind : std::uint8_t {
    tensor, ///< a .u64 global pointer to the tensor `name`
    u32,    ///< a .u32 scalar parameter
    u64,    ///< a .u64 scalar parameter (cache policies)
  } kind = Kind::tensor;
  std::string name;     ///< the tensor's or the parameter's name in the spec
  std::string ptx_name; ///< the name in the PTX parameter list
};

std::vector<ParamBinding> kernel_params(const tile::Kernel& k);

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

} // namespace ptxgen::lower
