#include "emitter/tile/dtype.hpp"

#include "emitter/tile/dtype_float.hpp"

#include <array>
#include <bit>
#include <utility>

namespace ptxgen::tile {

namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  unsigned size;
};

constexpr std::array<DTypeInfo, 16> kTypes = {{
    {DType::uint8, "uint8", 1},
    {DType::int8, "int8", 1},
    {DType::uint16, "uint16", 2},
    {DType::int16, "int16", 2},
    {DType::float16, "float16", 2},
    {DType::bfloat16, "bfloat16", 2},
    {DType::uint32, "uint32", 4},
    {DType::int32, "int32", 4},
    {DType::float32, "float32", 4},
    {DType::uint64, "uint64", 8},
    {DType::int64, "int64", 8},
    {DType::float64, "float64", 8},
    {DType::b8, "b8", 1},
    {DType::b16, "b16", 2},
    {DType::b32, "b32", 4},
    {DType::b64, "b64", 8},
}};

constexpr std::array<std::pair<std::string_view, DType>, 20> kAliases = {{
    {"u8", DType::uint8},       {"u16", DType::uint16},      {"u32", DType::uint32},
    {"u64", DType::uint64},     {"s8", DType::int8},         {"s16", DType::int16},
    {"s32", DType::int32},      {"s64", DType::int64},       {"i8", DType::int8},
    {"i16", DType::int16},      {"i32", DType::int32},       {"i64", DType::int64},
    {"f16", DType::float16},    {"bf16", DType::bfloat16},   {"f32", DType::float32},
    {"f64", DType::float64},    {"half", DType::float16},    {"float", DType::float32},
    {"double", DType::float64}, {"bfloat", DType::bfloat16},
}};

/// The storage types of parse_storage_dtype(), each as the untyped DType of its size.
constexpr std::array<std::pair<std::string_view, DType>, 3> kStorage = {{
    {"tf32", DType::b32},
    {"f8", DType::b8},
    {"e4m3", DType::b8},
}};

const DTypeInfo& info(DType t) {
  for (const auto& i : kTypes)
    if (i.type == t)
      return i;
  return kTypes[0]; // unreachable for a valid enum value
}

} // namespace

std::string_view name(DType t) {
  return info(t).name;
}

std::optional<DType> parse_dtype(std::string_view s) {
  for (const auto& i : kTypes)
    if (i.name == s)
      return i.type;
  for (const auto& [alias, type] : kAliases)
    if (alias == s)
      return type;
  return std::nullopt;
}

std::vector<std::string_view> dtype_aliases() {
  std::vector<std::string_view> out;
  for (const auto& a : kAliases)
    out.push_back(a.first);
  return out;
}

std::vector<std::string_view> dtype_spellings() {
  std::vector<std::string_view> out;
  for (const auto& i : kTypes)
    out.push_back(i.name);
  for (const auto& a : kAliases)
    out.push_back(a.first);
  return out;
}

std::string dtype_choices() {
  std::string out = "one of: ";
  for (std::size_t k = 0; k < kTypes.size(); ++k)
    out += std::string(k ? ", " : "") + std::string(kTypes[k].name);
  out += " (or an alias: ";
  for (std::size_t k = 0; k < kAliases.size(); ++k)
    out += std::string(k ? ", " : "") + std::string(kAliases[k].first);
  return out + ")";
}

unsigned size_bytes(DType t) {
  return info(t).size;
}

std::optional<DType> parse_storage_dtype(std::string_view s) {
  if (auto t = parse_dtype(s))
    return t;
  for (const auto& [storage, type] : kStorage)
    if (storage == s)
      return type;
  return std::nullopt;
}

std::string storage_dtype_choices() {
  std::string out = dtype_choices() + ", or a storage type: ";
  for (std::size_t k = 0; k < kStorage.size(); ++k)
    out += std::string(k ? ", " : "") + std::string(kStorage[k].first);
  return out;
}

namespace {

bool is_signed_integer(DType t) {
  return t == DType::int8 || t == DType::int16 || t == DType::int32 || t == DType::int64;
}

bool is_untyped(DType t) {
  return t == DType::b8 || t == DType::b16 || t == DType::b32 || t == DType::b64;
}

} // namespace

FloatFormat float_format(DType t) {
  switch (t) {
  case DType::float16:
    return {11, 65504};
  case DType::bfloat16:
    return {8, 0};
  case DType::float32:
    return {24, 0};
  case DType::float64:
    return {53, 0};
  default:
    return {};
  }
}

bool holds_exactly(DType t, std::int64_t v) {
  const FloatFormat f = float_format(t);
  if (f.significand_bits != 0) {
    const std::uint64_t m =
        v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    if (f.max_finite != 0 && m > f.max_finite)
      return false;
    // Exact iff the magnitude's odd part fits the significand.
    return m == 0 || (m >> std::countr_zero(m)) < (std::uint64_t{1} << f.significand_bits);
  }
  const unsigned bits = 8 * size_bytes(t);
  if (bits >= 64)
    return is_signed_integer(t) || is_untyped(t) || v >= 0;
  const std::int64_t half = std::int64_t{1} << (bits - 1);
  if (is_signed_integer(t))
    return v >= -half && v < half;
  if (is_untyped(t))
    return v >= -half && v < 2 * half;
  return v >= 0 && v < 2 * half;
}

} // namespace ptxgen::tile
