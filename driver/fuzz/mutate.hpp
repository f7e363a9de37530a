#pragma once
// Invalid mutants of generated specs (mutants() in generator.hpp) and the one check both
// the generator's tests and the fuzz loop apply to spec text: what `ptxgen check` does to
// a file (load, contract, lowering, validation, then the reference and the expectations),
// on TOML text in memory.

#include "driver/run/range_proof.hpp"
#include "emitter/support/diagnostic.hpp"

#include <array>
#include <string>
#include <string_view>

namespace ptxgen::driver::fuzz {

/// `ptxgen check` on spec text (the default target, sm_80): every diagnostic it reports
/// (`range`: how the whole-launch checks cover the declared ranges).
Diagnostics check_spec_text(std::string_view toml, std::string display_name,
                            const RangeProofOptions& range = {});

/// The mutation rules whose DiagId this branch does not raise yet (the rule is being built
/// elsewhere): their mutants are still made and checked by `ptxgen fuzz` (a false accept
/// there is true of this build), but the generator's unit tests skip them by this table
/// alone, count them apart, and fail when one is refused as declared (then the rule has
/// landed and its entry must go). Emptied as the rules are merged (docs/fuzzing.md).
inline constexpr std::array<DiagId, 0> pending_rules{};

/// Whether `id` is in pending_rules.
constexpr bool is_pending_rule(DiagId id) {
  for (DiagId p : pending_rules)
    if (p == id)
      return true;
  return false;
}

} // namespace ptxgen::driver::fuzz
