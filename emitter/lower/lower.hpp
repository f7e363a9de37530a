#pragma once
// Lowering of a checked kernel to the PTX AST: per-thread bases once, then one
// cp.async per repeat coordinate with constant offsets folded into [reg+imm].
// Loops are lowered as an expert writes them: invariant values hoisted before
// the outermost loop they do not depend on, addresses affine in a loop
// variable advanced per iteration, `x % S` and `x / S` rotating registers (no
// division in a loop body), `unroll` copies with a remainder. Selection builds
// a loop form that separate passes finish (emitter/lower/loop_form.hpp).

#include "emitter/ptx/module.hpp"
#include "emitter/support/result.hpp"
#include "emitter/tile/kernel.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::lower {

struct LowerOptions {
  ptx::Target target{80, false};
  std::optional<ptx::PtxVersion> version; ///< explicit `.version`; else the lowest that works
  std::vector<std::string> header_comments;
  /// The target the PTX will be assembled for and run on, when it differs from
  /// `target` (`ptxgen run` emits sm_80 PTX and assembles it for the device):
  /// shared memory is limited by that machine, not by the `.target`.
  std::optional<ptx::Target> run_target;
  /// Skip the contract and let validator errors through as warnings: only for
  /// showing on a device what the contract prevents (`ptxgen run --unchecked`).
  bool unchecked = false;
  /// Where the loop form is written as text once the loop passes ran
  /// (`ptxgen emit --dump-loops`); nowhere when null.
  std::ostream* dump_loop_form = nullptr;
};

/// Checks the contract (tile::check_contract), lowers, and validates the
/// result (ptx::validate). Any failure comes back as diagnostics; nothing is
/// ever replaced by a synchronous copy or a narrower instruction.
Result<ptx::Module> lower(const tile::Kernel& k, const LowerOptions& options);

} // namespace ptxgen::lower
