#pragma once
// The validator: a side-effect-free query over the AST. Every rule of
// PTX_RULES.md has its own message that says what was expected.

#include "emitter/ptx/module.hpp"
#include "emitter/support/diagnostic.hpp"

#include <cstdint>
#include <optional>

namespace ptxgen::ptx {

/// Checks one instruction for `target` at `version`; an empty result means valid.
Diagnostics validate(const Instruction& i, Target target, PtxVersion version);

/// Checks that `target` and `version` are ones ptxas knows and that the version is at
/// least the target's own minimum (sm_90 needs 7.8). validate(Module) calls it.
Diagnostics validate_target_version(Target target, PtxVersion version);

/// The largest N ptxgen accepts in `cp.async.wait_group N` (ptxas accepts any integer).
inline constexpr std::int64_t max_wait_group = 255;

/// Checks a whole module: each instruction, declarations, and the version against every feature.
Diagnostics validate(const Module& m);

/// The lowest `.version` the module's target and every feature it uses allow.
PtxVersion required_version(const Module& m);

} // namespace ptxgen::ptx
