#pragma once
// A tensor declared by a kernel: global memory (a kernel parameter) or a shared allocation.

#include "emitter/tile/dtype.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxgen::tile {

enum class Space : std::uint8_t {
  global, ///< a buffer passed to the kernel as a pointer parameter
  shared, ///< a `.shared` array of the CTA
};

/// A TMA swizzle mode: within each 1024/512/256-byte period, the 16-byte chunk j of 128-byte row
/// r sits at chunk j ^ (r % 8, 4, 2) (tensor_map.hpp's swizzle_rows has each mode's numbers).
enum class TensorMapSwizzle : std::uint8_t { none, b32, b64, b128 };

/// The base alignment of a tensor that declares none (the spec's `align` default).
inline constexpr std::uint32_t default_global_align = 16;
inline constexpr std::uint32_t default_shared_align = 128;

struct Tensor {
  std::string name;
  Space space = Space::global;
  std::vector<std::int64_t> shape; ///< row-major ("default" layout)
  DType dtype = DType::uint8;
  std::uint32_t align = default_global_align; ///< declared base alignment in bytes
  /// Shared only (`swizzle = "128B"`): the tensor's row-major bytes are stored swizzled, as a
  /// tensor load with that mode writes them, so that views see the elements in order.
  TensorMapSwizzle swizzle = TensorMapSwizzle::none;

  /// Product of the shape (1 for rank 0); -1 when a dimension is negative or it overflows.
  std::int64_t element_count() const;
  /// element_count() * the element size; -1 when that is -1 or overflows.
  std::int64_t size_bytes() const;
};

} // namespace ptxgen::tile
