#pragma once
// Element types of tensors and views.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptxgen::tile {

enum class DType : std::uint8_t {
  uint8,    ///< unsigned 8-bit integer
  int8,     ///< signed 8-bit integer
  uint16,   ///< unsigned 16-bit integer
  int16,    ///< signed 16-bit integer
  float16,  ///< IEEE half precision
  bfloat16, ///< bfloat16 (8-bit exponent, 7-bit mantissa)
  uint32,   ///< unsigned 32-bit integer
  int32,    ///< signed 32-bit integer
  float32,  ///< IEEE single precision
  uint64,   ///< unsigned 64-bit integer
  int64,    ///< signed 64-bit integer
  float64,  ///< IEEE double precision
  b8,       ///< untyped byte view
  b16,      ///< untyped 16-bit view
  b32,      ///< untyped 32-bit view
  b64,      ///< untyped 64-bit view
};

/// "float16"; the untyped ones are "b8".."b64".
std::string_view name(DType t);
/// Accepts every name() spelling plus the aliases u8/u16/u32/u64, s8.., i8.., f16, bf16, f32,
/// f64, half, float, double.
std::optional<DType> parse_dtype(std::string_view s);
/// Size of one element in bytes.
unsigned size_bytes(DType t);

} // namespace ptxgen::tile
