#include "emitter/ptx/types.hpp"

#include "emitter/support/unreachable.hpp"

#include <array>

namespace ptxgen::ptx {

namespace {
constexpr std::array<std::string_view, 16> scalar_names = {
    "pred", "b8", "b16", "b32", "b64", "u8",  "u16", "u32",
    "u64",  "s8", "s16", "s32", "s64", "f16", "f32", "f64",
};
/// Indexed by CompareOp.
constexpr std::array<std::string_view, 18> compare_names = {
    "eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
    "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
};
} // namespace

std::string_view name(ScalarType t) {
  return scalar_names.at(static_cast<std::size_t>(t));
}

std::optional<ScalarType> parse_scalar_type(std::string_view s) {
  for (std::size_t i = 0; i < scalar_names.size(); ++i)
    if (scalar_names[i] == s)
      return static_cast<ScalarType>(i);
  return std::nullopt;
}

std::string_view name(CompareOp c) {
  return compare_names.at(static_cast<std::size_t>(c));
}

std::optional<CompareOp> parse_compare_op(std::string_view s) {
  for (std::size_t i = 0; i < compare_names.size(); ++i)
    if (compare_names[i] == s)
      return static_cast<CompareOp>(i);
  return std::nullopt;
}

unsigned bit_width(ScalarType t) {
  switch (t) {
  case ScalarType::pred:
    return 1;
  case ScalarType::b8:
  case ScalarType::u8:
  case ScalarType::s8:
    return 8;
  case ScalarType::b16:
  case ScalarType::u16:
  case ScalarType::s16:
  case ScalarType::f16:
    return 16;
  case ScalarType::b32:
  case ScalarType::u32:
  case ScalarType::s32:
  case ScalarType::f32:
    return 32;
  case ScalarType::b64:
  case ScalarType::u64:
  case ScalarType::s64:
  case ScalarType::f64:
    return 64;
  }
  unreachable("bit_width(): not a ScalarType value");
}

std::string_view name(StateSpace s) {
  switch (s) {
  case StateSpace::reg:
    return "reg";
  case StateSpace::param:
    return "param";
  case StateSpace::global:
    return "global";
  case StateSpace::shared:
    return "shared";
  case StateSpace::shared_cta:
    return "shared::cta";
  case StateSpace::local:
    return "local";
  }
  unreachable("name(): not an enum value");
}

ScalarType widened(ScalarType t) {
  switch (t) {
  case ScalarType::u16:
    return ScalarType::u32;
  case ScalarType::s16:
    return ScalarType::s32;
  case ScalarType::u32:
    return ScalarType::u64;
  case ScalarType::s32:
    return ScalarType::s64;
  case ScalarType::pred:
  case ScalarType::b8:
  case ScalarType::b16:
  case ScalarType::b32:
  case ScalarType::b64:
  case ScalarType::u8:
  case ScalarType::u64:
  case ScalarType::s8:
  case ScalarType::s64:
  case ScalarType::f16:
  case ScalarType::f32:
  case ScalarType::f64:
    break;
  }
  return t;
}

} // namespace ptxgen::ptx
