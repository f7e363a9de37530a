#pragma once
// The vocabulary of instruction declarations (instruction.hpp): what an operand is for
// (its Role), what it may be (Slot, AddressSlot) and the guard in front of an instruction.

#include "emitter/ptx/operand.hpp"
#include "emitter/ptx/register.hpp"
#include "emitter/ptx/types.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace ptxgen::ptx {

/// What an operand is for; messages name it ("mov's source").
enum class Role : std::uint8_t {
  destination,  ///< the written register(s)
  source,       ///< the one read value
  first,        ///< first source of a binary/ternary instruction
  second,       ///< second source
  third,        ///< third source (mad's addend)
  selector,     ///< selp's predicate
  src_size,     ///< cp.async's src-size
  ignore_src,   ///< cp.async's ignore-src predicate
  cache_policy, ///< cp.async's 64-bit cache policy
  address,      ///< the memory operand of ld, st, mbarrier.arrive
  dst_address,  ///< cp.async's shared destination
  src_address,  ///< cp.async's global source
  size,         ///< a bulk copy's byte count
  mbarrier,     ///< the mbarrier a bulk load completes its bytes on
  tensor_map,   ///< the generic address of a tensor map (CUtensorMap)
  coordinate,   ///< a tensor coordinate
  tx_count,     ///< an mbarrier's expected transaction bytes
  cta_mask,     ///< a multicast's 16-bit mask of the receiving CTAs
  offset,       ///< an im2col load's 16-bit offset of one spatial dimension
};
std::string_view name(Role r); ///< "destination", "src-size", ...

/// What a value operand may be besides a register of its type, an immediate of a
/// non-predicate type, or a symbol's address (flags; combine with `|`).
enum class OperandRule : std::uint8_t {
  none = 0,
  special_register = 1 << 0,   ///< %tid.x and friends (ptxas allows them only in mov and cvt)
  predicate_constant = 1 << 1, ///< a .pred operand may be the constant 0 or 1 (mov.pred)
};
constexpr OperandRule operator|(OperandRule a, OperandRule b) {
  return static_cast<OperandRule>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
/// True when `rule` is in `set`.
constexpr bool allows(OperandRule set, OperandRule rule) {
  return (static_cast<std::uint8_t>(set) & static_cast<std::uint8_t>(rule)) != 0;
}

/// A register or value operand: its role, the type it carries, what else it may be.
struct Slot {
  Role role = Role::source;
  ScalarType type = ScalarType::u32;
  OperandRule rules = OperandRule::none;
};

/// The registers that may hold an address.
enum class AddressWidth : std::uint8_t {
  b64,        ///< a .b64 register only (a global address: 32 bits would truncate it)
  b32_or_b64, ///< a .b32 or .b64 register (shared and param addresses)
};

/// The symbols an address may name (an entry's parameters and shared arrays).
enum class SymbolScope : std::uint8_t {
  none,   ///< no symbol (a .global address: ptxgen declares no .global variables)
  shared, ///< a shared array of the entry
  param,  ///< a parameter of the entry
};

/// A memory operand's role and what may form its base.
struct AddressSlot {
  Role role = Role::address;
  AddressWidth width = AddressWidth::b64;
  SymbolScope symbols = SymbolScope::none;
};

/// The exact bits of a float as PTX's hexadecimal literal: 0.5f -> `0f3F000000`.
std::string float_literal(float f);

/// `@%p` or `@!%p` in front of an instruction: false suppresses it entirely.
struct Guard {
  Register predicate;
  bool negated = false;
};

/// The optional 64-bit cache-policy operand of the hinted forms: present exactly when the
/// opcode has `.L2::cache_hint` (the validator checks both ways).
using CachePolicy = std::optional<std::variant<Register, Immediate>>;

/// Prints the cache policy, or, when the hint is there without it, a token ptxas refuses.
template <class V>
void describe_cache_policy(bool cache_hint, const CachePolicy& policy, V& v) {
  if (policy) {
    if (const auto* r = std::get_if<Register>(&*policy))
      v.reg(*r, {Role::cache_policy, ScalarType::b64});
    else
      v.immediate(std::get<Immediate>(*policy).value);
  } else if (cache_hint) {
    v.missing("?missing_cache_policy");
  }
}

} // namespace ptxgen::ptx
