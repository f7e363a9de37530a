#pragma once
// Instruction operands: registers, immediates, special registers, symbols and addresses.

#include "emitter/ptx/register.hpp"

#include <cstdint>
#include <string>
#include <variant>

namespace ptxgen::ptx {

/// Read-only special registers ptxgen uses.
enum class SpecialRegister : std::uint8_t {
  tid_x,    ///< %tid.x
  tid_y,    ///< %tid.y
  tid_z,    ///< %tid.z
  ntid_x,   ///< %ntid.x
  ntid_y,   ///< %ntid.y
  ntid_z,   ///< %ntid.z
  ctaid_x,  ///< %ctaid.x
  ctaid_y,  ///< %ctaid.y
  ctaid_z,  ///< %ctaid.z
  nctaid_x, ///< %nctaid.x
  nctaid_y, ///< %nctaid.y
  nctaid_z, ///< %nctaid.z
  laneid,   ///< %laneid
  warpid,   ///< %warpid (the hardware warp slot; not tid/32 in general)
};

/// "%tid.x", ...
std::string_view name(SpecialRegister r);

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
