#include "emitter/ptx/types.hpp"

#include "emitter/support/enum_names.hpp"
#include "emitter/support/unreachable.hpp"

namespace ptxgen::ptx {

namespace {

struct ScalarRow {
  std::string_view name;
  unsigned bits;
  TypeFamily family;
  ScalarType widened;
};

constexpr auto scalar_rows = enum_table<ScalarType::f64>(std::to_array<ScalarRow>({
    {"pred", 1, TypeFamily::pred, ScalarType::pred},
    {"b8", 8, TypeFamily::bits, ScalarType::b8},
    {"b16", 16, TypeFamily::bits, ScalarType::b16},
    {"b32", 32, TypeFamily::bits, ScalarType::b32},
    {"b64", 64, TypeFamily::bits, ScalarType::b64},
    {"u8", 8, TypeFamily::unsigned_, ScalarType::u8},
    {"u16", 16, TypeFamily::unsigned_, ScalarType::u32},
    {"u32", 32, TypeFamily::unsigned_, ScalarType::u64},
    {"u64", 64, TypeFamily::unsigned_, ScalarType::u64},
    {"s8", 8, TypeFamily::signed_, ScalarType::s8},
    {"s16", 16, TypeFamily::signed_, ScalarType::s32},
    {"s32", 32, TypeFamily::signed_, ScalarType::s64},
    {"s64", 64, TypeFamily::signed_, ScalarType::s64},
    {"f16", 16, TypeFamily::float_, ScalarType::f16},
    {"f32", 32, TypeFamily::float_, ScalarType::f32},
    {"f64", 64, TypeFamily::float_, ScalarType::f64},
}));

constexpr auto compare_names =
    enum_names<CompareOp::nan>("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ",
                               "neu", "ltu", "leu", "gtu", "geu", "num", "nan");

} // namespace

std::string_view name(ScalarType t) {
  return row_of(scalar_rows, t).name;
}

std::optional<ScalarType> parse_scalar_type(std::string_view s) {
  return parse_name(scalar_rows, &ScalarRow::name, s);
}

std::string_view name(CompareOp c) {
  return name_of(compare_names, c);
}

std::optional<CompareOp> parse_compare_op(std::string_view s) {
  return parse_name(compare_names, s);
}

unsigned bit_width(ScalarType t) {
  return row_of(scalar_rows, t).bits;
}

TypeFamily family(ScalarType t) {
  return row_of(scalar_rows, t).family;
}

std::string_view name(StateSpace s) {
  static constexpr auto names = enum_names<StateSpace::shared_cluster>(
      "reg", "param", "global", "shared", "shared::cta", "local", "shared::cluster");
  return name_of(names, s);
}

ScalarType widened(ScalarType t) {
  return row_of(scalar_rows, t).widened;
}

} // namespace ptxgen::ptx
