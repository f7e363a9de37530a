#pragma once
// Typed virtual registers, numbered deterministically in order of definition.

#include "emitter/ptx/types.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace ptxgen::ptx {

/// The register families ptxgen declares. Each has its own `%name<N>` declaration.
enum class RegClass : std::uint8_t {
  pred, ///< `.pred %p<N>`
  b16,  ///< `.b16 %rs<N>`
  b32,  ///< `.b32 %r<N>`
  b64,  ///< `.b64 %rd<N>`
  f32,  ///< `.f32 %f<N>`
};
inline constexpr std::size_t reg_class_count = 5;

/// "%p", "%rs", "%r", "%rd", "%f".
std::string_view prefix(RegClass c);
/// The declaration type: pred, b16, b32, b64, f32.
ScalarType declared_type(RegClass c);
/// The register family that holds a value of type t (u32 -> b32, s64 -> b64, ...).
RegClass reg_class_for(ScalarType t);

struct Register {
  RegClass cls = RegClass::b32;
  std::uint32_t id = 0; ///< 1-based within its class, as ptxas's `%r<N>` names them
  bool operator==(const Register&) const = default;
};

/// "%r3"
std::string to_string(Register r);

/// Hands out registers of each class in order: %r1, %r2, ...
class RegisterFile {
public:
  Register make(RegClass c) {
    auto& n = counts_[static_cast<std::size_t>(c)];
    return Register{c, ++n};
  }
  /// How many registers of class c were handed out (the N of `%r<N+1>`).
  std::uint32_t count(RegClass c) const { return counts_[static_cast<std::size_t>(c)]; }

private:
  std::array<std::uint32_t, reg_class_count> counts_{};
};

} // namespace ptxgen::ptx
