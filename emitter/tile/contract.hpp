#pragma once
// The contract checker: proves the seed document's cp.async contract for
// every thread and every repeat coordinate before any PTX exists, and
// rejects the kernel otherwise with a message that names the axis, the
// coordinate and the byte offset that break it.

#include "emitter/ptx/target.hpp"
#include "emitter/support/diagnostic.hpp"
// The contract's face: the apply's limits and repeat names and the placing of its
// diagnostics, which the builder, the reader and the lowering share with it.
#include "emitter/tile/apply_contract.hpp"
#include "emitter/tile/contract_text.hpp"
#include "emitter/tile/kernel.hpp"

namespace ptxgen::tile {

/// Checks every op of k for the target (shared memory is limited per target).
/// An empty result (no errors) means lowering may proceed.
Diagnostics check_contract(const Kernel& k, ptx::Target target = ptx::Target{});

} // namespace ptxgen::tile
