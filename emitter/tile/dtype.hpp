#pragma once
// Element types of tensors and views.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
/// Accepts every name() spelling plus the aliases of dtype_aliases() (documented in
/// docs/spec-format.md, "Tables").
std::optional<DType> parse_dtype(std::string_view s);
/// The aliases parse_dtype() accepts besides the names: u8..u64, s8..s64, i8..i64, f16, bf16,
/// f32, f64, half, float, double.
std::vector<std::string_view> dtype_aliases();
/// Every spelling parse_dtype() accepts: the names in enum order, then the aliases.
std::vector<std::string_view> dtype_spellings();
/// "one of: uint8, ..., b64 (or an alias: u8, ..., double)", for messages.
std::string dtype_choices();
/// Size of one element in bytes.
unsigned size_bytes(DType t);

/// Whether one element of `t` holds the integer `v` exactly: integers inside the type's
/// range (the untyped bN types taking signed and unsigned values), floats when `v` is one of
/// their values. An expectation `LHS == v` needs it, whichever door builds the kernel.
bool holds_exactly(DType t, std::int64_t v);

/// parse_dtype(), or an element type the tile layer has no arithmetic for but whose bytes a
/// foreign kernel's tensor may hold: tf32 (as b32), f8 and e4m3 (as b8). `ptxgen lint`'s
/// `--arg NAME=TYPE[...]` takes these (docs/lint.md).
std::optional<DType> parse_storage_dtype(std::string_view s);
/// dtype_choices(), then ", or a storage type: tf32, f8, e4m3", for messages.
std::string storage_dtype_choices();

} // namespace ptxgen::tile
