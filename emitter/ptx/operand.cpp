#include "emitter/ptx/operand.hpp"

#include "emitter/support/overloaded.hpp"

namespace ptxgen::ptx {

std::string_view name(SpecialRegister r) {
  switch (r) {
  case SpecialRegister::tid_x:
    return "%tid.x";
  case SpecialRegister::tid_y:
    return "%tid.y";
  case SpecialRegister::tid_z:
    return "%tid.z";
  case SpecialRegister::ntid_x:
    return "%ntid.x";
  case SpecialRegister::ntid_y:
    return "%ntid.y";
  case SpecialRegister::ntid_z:
    return "%ntid.z";
  case SpecialRegister::ctaid_x:
    return "%ctaid.x";
  case SpecialRegister::ctaid_y:
    return "%ctaid.y";
  case SpecialRegister::ctaid_z:
    return "%ctaid.z";
  case SpecialRegister::nctaid_x:
    return "%nctaid.x";
  case SpecialRegister::nctaid_y:
    return "%nctaid.y";
  case SpecialRegister::nctaid_z:
    return "%nctaid.z";
  case SpecialRegister::laneid:
    return "%laneid";
  case SpecialRegister::warpid:
    return "%warpid";
  }
  return "%?";
}

namespace {} // namespace

std::string to_string(const Operand& o) {
  return std::visit(overloaded{
                        [](const Register& r) { return to_string(r); },
                        [](const Immediate& i) { return std::to_string(i.value); },
                        [](const SpecialRegister& s) { return std::string(name(s)); },
                        [](const Symbol& s) { return s.name; },
                    },
                    o);
}

std::string to_string(const Address& a) {
  std::string out = "[";
  out += std::visit(overloaded{
                        [](const Register& r) { return to_string(r); },
                        [](const Symbol& s) { return s.name; },
                    },
                    a.base);
  // ptxas accepts only `+imm`; a negative offset is written `+-16`.
  if (a.offset != 0)
    out += "+" + std::to_string(a.offset);
  out += "]";
  return out;
}

} // namespace ptxgen::ptx
