#include "emitter/ptx/operand.hpp"

#include "emitter/support/enum_names.hpp"
#include "emitter/support/overloaded.hpp"

namespace ptxgen::ptx {

namespace {
constexpr auto special_register_names =
    enum_table<SpecialRegister::reserved_smem_1>(std::to_array<std::string_view>({
#define PTXGEN_SPECIAL_REGISTER(id, name) name,
#include "emitter/ptx/special_registers.def"
#undef PTXGEN_SPECIAL_REGISTER
    }));
} // namespace

std::string_view name(SpecialRegister r) {
  return name_of(special_register_names, r);
}

std::optional<SpecialRegister> parse_special_register(std::string_view text) {
  return parse_name(special_register_names, text);
}

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
