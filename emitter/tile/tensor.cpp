#include "emitter/tile/tensor.hpp"

namespace ptxgen::tile {

std::int64_t Tensor::element_count() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    // A negative or overflowing shape is the spec loader's error; saturate instead of UB.
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      return -1;
  }
  return n;
}

std::int64_t Tensor::size_bytes() const {
  std::int64_t n = element_count();
  std::int64_t bytes = 0;
  if (n < 0 ||
      __builtin_mul_overflow(n, static_cast<std::int64_t>(tile::size_bytes(dtype)), &bytes))
    return -1;
  return bytes;
}

} // namespace ptxgen::tile
