#pragma once
// Instruction operands: registers, immediates, special registers, symbols and addresses.

#include "emitter/ptx/register.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace ptxgen::ptx {

/// The read-only special registers ptxgen knows: those the emitter prints and those the
/// simulator executes (driver/sim), one per line of special_registers.def (which documents
/// each). One enum, so the two agree on what each name means.
enum class SpecialRegister : std::uint8_t {
#define PTXGEN_SPECIAL_REGISTER(id, name) id,
#include "emitter/ptx/special_registers.def"
#undef PTXGEN_SPECIAL_REGISTER
};

/// How many SpecialRegister values there are (0 .. special_register_count - 1).
inline constexpr std::size_t special_register_count =
    static_cast<std::size_t>(SpecialRegister::reserved_smem_1) + 1;

/// "%tid.x", ...
std::string_view name(SpecialRegister r);

/// "%tid.x" -> SpecialRegister::tid_x; nullopt for a name that is none of them.
std::optional<SpecialRegister> parse_special_register(std::string_view name);

struct Immediate {
  std::int64_t value = 0;
  bool operator==(const Immediate&) const = default;
};

/// A named variable: a kernel parameter or a `.shared` array.
struct Symbol {
  std::string name;
  bool operator==(const Symbol&) const = default;
};

/// A value operand.
using Operand = std::variant<Register, Immediate, SpecialRegister, Symbol>;

/// A memory operand: `[reg]`, `[reg+imm]`, `[sym]`, `[sym+imm]`. A negative
/// offset prints as `+-16`, the only spelling ptxas accepts.
struct Address {
  std::variant<Register, Symbol> base;
  std::int64_t offset = 0;
};

/// "%r3", "42", "%tid.x", "smem".
std::string to_string(const Operand& o);
/// "[%rd4+16]"
std::string to_string(const Address& a);

} // namespace ptxgen::ptx
