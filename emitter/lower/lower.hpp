#pragma once
// Lowering of a checked kernel to the PTX AST: per-thread bases once, then one
// cp.async per repeat coordinate with constant offsets folded into [reg+imm].
// Loops are lowered as an expert writes them: invariant values hoisted before
// the outermost loop they do not depend on, addresses affine in a loop
// variable advanced per iteration, `x % S` and `x / S` rotating registers (no
// division in a loop body), `unroll` copies with a remainder. Selection builds
// a loop form that separate passes finish (emitter/lower/loop_form.hpp).

#include "emitter/lower/lower_options.hpp"
#include "emitter/ptx/module.hpp"
#include "emitter/support/result.hpp"
#include "emitter/tile/kernel.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::lower {

/// Checks the contract (tile::check_contract), lowers, and validates the
/// result (ptx::validate). Any failure comes back as diagnostics; nothing is
/// ever replaced by a synchronous copy or a narrower instruction.
Result<ptx::Module> lower(const tile::Kernel& k, const LowerOptions& options);

/// The target lower() lowers `k` for: options.target, or tile::min_target(k) where that is
/// newer and options.raise_target allows it.
ptx::Target lowered_target(const tile::Kernel& k, const LowerOptions& options);

} // namespace ptxgen::lower
