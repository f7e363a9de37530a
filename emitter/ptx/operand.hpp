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
/// simulator executes (driver/sim). One enum, so the two agree on what each name means.
enum class SpecialRegister : std::uint8_t {
  tid_x,             ///< %tid.x
  tid_y,             ///< %tid.y
  tid_z,             ///< %tid.z
  ntid_x,            ///< %ntid.x
  ntid_y,            ///< %ntid.y
  ntid_z,            ///< %ntid.z
  ctaid_x,           ///< %ctaid.x
  ctaid_y,           ///< %ctaid.y
  ctaid_z,           ///< %ctaid.z
  nctaid_x,          ///< %nctaid.x
  nctaid_y,          ///< %nctaid.y
  nctaid_z,          ///< %nctaid.z
  laneid,            ///< %laneid
  warpid,            ///< %warpid (the hardware warp slot; not tid/32 in general)
  clock,             ///< %clock (32 bits)
  clock64,           ///< %clock64 (64 bits)
  globaltimer,       ///< %globaltimer (64 bits, nanoseconds)
  smid,              ///< %smid: the SM the thread runs on
  nsmid,             ///< %nsmid: the number of SM identifiers
  lanemask_eq,       ///< %lanemask_eq: the bit of the thread's lane
  lanemask_le,       ///< %lanemask_le: lanes <= the thread's
  lanemask_lt,       ///< %lanemask_lt: lanes < the thread's
  lanemask_ge,       ///< %lanemask_ge: lanes >= the thread's
  lanemask_gt,       ///< %lanemask_gt: lanes > the thread's
  dynamic_smem_size, ///< %dynamic_smem_size: the launch's dynamic shared bytes
  total_smem_size,   ///< %total_smem_size: static + dynamic shared bytes
  nwarpid,           ///< %nwarpid: the number of warp identifiers
  /// %reserved_smem_offset_begin: the first byte of the shared region reserved for the
  /// system (the %reserved_smem_* registers are kept together, last)
  reserved_smem_begin,
  reserved_smem_end, ///< %reserved_smem_offset_end: one past its last byte
  reserved_smem_cap, ///< %reserved_smem_offset_cap: its size
  reserved_smem_0,   ///< %reserved_smem_offset_0: its first 8-byte slot
  reserved_smem_1,   ///< %reserved_smem_offset_1: its second 8-byte slot
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
