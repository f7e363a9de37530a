#include "emitter/ptx/register.hpp"

#include "emitter/support/unreachable.hpp"

namespace ptxgen::ptx {

std::string_view prefix(RegClass c) {
  switch (c) {
  case RegClass::pred:
    return "%p";
  case RegClass::b16:
    return "%rs";
  case RegClass::b32:
    return "%r";
  case RegClass::b64:
    return "%rd";
  case RegClass::f32:
    return "%f";
  }
  return "%?";
}

ScalarType declared_type(RegClass c) {
  switch (c) {
  case RegClass::pred:
    return ScalarType::pred;
  case RegClass::b16:
    return ScalarType::b16;
  case RegClass::b32:
    return ScalarType::b32;
  case RegClass::b64:
    return ScalarType::b64;
  case RegClass::f32:
    return ScalarType::f32;
  }
  return ScalarType::b32;
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
