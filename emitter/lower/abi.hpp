#pragma once
// The kernel's parameter list, shared by the lowering (which declares it) and
// every runner (which passes it): global tensors first, in the kernel's
// declaration order, as .u64 pointers; then scalar parameters in order.

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

} // namespace ptxgen::lower
