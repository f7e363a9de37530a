#pragma once
// The formats of the float element types (dtype.cpp): what the dtype layer's exactness rule
// and a reader or writer of float bytes (lint's input values) both need, declared once.

#include "emitter/tile/dtype.hpp"

#include <cstdint>

namespace ptxgen::tile {

/// A float type's significand bits (the leading one included) and its largest finite value
/// when that is below 2^63; 0 bits for the integer and untyped types.
struct FloatFormat {
  unsigned significand_bits = 0;
  std::uint64_t max_finite = 0; ///< 0: at least 2^63
};

/// float16 {11, 65504}, bfloat16 {8}, float32 {24}, float64 {53}; {} for the others.
FloatFormat float_format(DType t);

} // namespace ptxgen::tile
