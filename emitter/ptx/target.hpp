#pragma once
// PTX ISA versions (`.version 7.8`) and compilation targets (`.target sm_90a`).

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace ptxgen::ptx {

struct PtxVersion {
  int major = 7;
  int minor = 0;
  auto operator<=>(const PtxVersion&) const = default;
  /// "7.8"
  std::string str() const;
  /// Parses "X.Y"; nullopt for anything else.
  static std::optional<PtxVersion> parse(std::string_view s);
};

struct Target {
  int sm = 80;                ///< compute capability times ten: 80, 86, 90, 100, 120, ...
  bool arch_specific = false; ///< the `a` suffix: sm_90a, sm_100a
  auto operator<=>(const Target&) const = default;
  /// "sm_90a"
  std::string str() const;
  /// Parses "sm_XX" or "sm_XXa"; nullopt for anything else.
  static std::optional<Target> parse(std::string_view s);
};

/// Targets by name, so a call site says which it means (a positional bool does not):
/// `sm(90)` is sm_90, `sm_a(90)` is sm_90a with its architecture-specific features.
constexpr Target sm(int compute_capability) {
  return Target{compute_capability, false};
}
constexpr Target sm_a(int compute_capability) {
  return Target{compute_capability, true};
}

} // namespace ptxgen::ptx
