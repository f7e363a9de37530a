#pragma once
// The validator: a side-effect-free query over the AST. Every rule of
// PTX_RULES.md has its own message that says what was expected.

#include <optional>

#include "emitter/ptx/module.hpp"
#include "emitter/support/diagnostic.hpp"

namespace ptxgen::ptx {

/// Checks one instruction for `target` at `version`; an empty result means valid.
Diagnostics validate(const Instruction& i, Target target, PtxVersion version);

/// Checks a whole module: each instruction, declarations, and the version against every feature.
Diagnostics validate(const Module& m);

/// The lowest `.version` the module's target and every feature it uses allow.
PtxVersion required_version(const Module& m);

} // namespace ptxgen::ptx
