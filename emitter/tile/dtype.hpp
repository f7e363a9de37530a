#pragma once
// Element types of tensors and views.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptxgen::tile {

enum class DType : std::uint8_t {
  uint8, int8, uint16, int16, float16, bfloat16, uint32, int32, float32, uint64, int64, float64,
  b8,  ///< untyped byte view
  b16, ///< untyped 16-bit view
  b32, ///< untyped 32-bit view
  b64, ///< untyped 64-bit view
};

/// "float16"; the untyped ones are "b8".."b64".
std::string_view name(DType t);
/// Accepts every name() spelling plus the aliases u8/u16/u32/u64, s8.., i8.., f16, bf16, f32,
/// f64, half, float, double.
std::optional<DType> parse_dtype(std::string_view s);
/// Size of one element in bytes.
unsigned size_bytes(DType t);

} // namespace ptxgen::tile
