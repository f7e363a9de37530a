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
  case SpecialRegister::clock:
    return "%clock";
  case SpecialRegister::clock64:
    return "%clock64";
  case SpecialRegister::globaltimer:
    return "%globaltimer";
  case SpecialRegister::smid:
    return "%smid";
  case SpecialRegister::nsmid:
    return "%nsmid";
  case SpecialRegister::lanemask_eq:
    return "%lanemask_eq";
  case SpecialRegister::lanemask_le:
    return "%lanemask_le";
  case SpecialRegister::lanemask_lt:
    return "%lanemask_lt";
  case SpecialRegister::lanemask_ge:
    return "%lanemask_ge";
  case SpecialRegister::lanemask_gt:
    return "%lanemask_gt";
  case SpecialRegister::dynamic_smem_size:
    return "%dynamic_smem_size";
  case SpecialRegister::total_smem_size:
    return "%total_smem_size";
  case SpecialRegister::nwarpid:
    return "%nwarpid";
  case SpecialRegister::reserved_smem_begin:
    return "%reserved_smem_offset_begin";
  case SpecialRegister::reserved_smem_end:
    return "%reserved_smem_offset_end";
  case SpecialRegister::reserved_smem_cap:
    return "%reserved_smem_offset_cap";
  case SpecialRegister::reserved_smem_0:
    return "%reserved_smem_offset_0";
  case SpecialRegister::reserved_smem_1:
    return "%reserved_smem_offset_1";
  }
  return "%?";
}

std::optional<SpecialRegister> parse_special_register(std::string_view text) {
  for (std::size_t k = 0; k < special_register_count; ++k) {
    const auto r = static_cast<SpecialRegister>(k);
    if (name(r) == text)
      return r;
  }
  return std::nullopt;
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
