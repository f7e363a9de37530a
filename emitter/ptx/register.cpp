#include "emitter/ptx/register.hpp"

#include "emitter/support/enum_names.hpp"
#include "emitter/support/unreachable.hpp"

namespace ptxgen::ptx {

namespace {

struct RegClassRow {
  std::string_view prefix;
  ScalarType declared;
};

constexpr auto reg_class_rows = enum_table<RegClass::f32>(std::to_array<RegClassRow>({
    {"%p", ScalarType::pred},
    {"%rs", ScalarType::b16},
    {"%r", ScalarType::b32},
    {"%rd", ScalarType::b64},
    {"%f", ScalarType::f32},
}));

} // namespace

std::string_view prefix(RegClass c) {
  return row_of(reg_class_rows, c).prefix;
}

ScalarType declared_type(RegClass c) {
  return row_of(reg_class_rows, c).declared;
}

RegClass reg_class_for(ScalarType t) {
  if (t == ScalarType::pred)
    return RegClass::pred;
  if (t == ScalarType::f32)
    return RegClass::f32;
  switch (bit_width(t)) {
  case 8: // PTX has no 8-bit registers; bytes live in 16-bit ones
  case 16:
    return RegClass::b16;
  case 32:
    return RegClass::b32;
  case 64:
    return RegClass::b64;
  }
  unreachable("reg_class_for(): a type that is not 8, 16, 32 or 64 bits wide");
}

std::string to_string(Register r) {
  return std::string(prefix(r.cls)) + std::to_string(r.id);
}

} // namespace ptxgen::ptx
