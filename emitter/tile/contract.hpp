#pragma once
// The contract checker: proves the seed document's cp.async contract for
// every thread and every repeat coordinate before any PTX exists, and
// rejects the kernel otherwise with a message that names the axis, the
// coordinate and the byte offset that break it.

#include "emitter/ptx/target.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <map>
#include <string>

namespace ptxgen::tile {

/// The largest number of cp.async instructions one apply may unroll to per thread.
inline constexpr std::int64_t max_repeats_per_apply = 4096;

/// Checks every op of k for the target (shared memory is limited per target).
/// An empty result (no errors) means lowering may proceed.
Diagnostics check_contract(const Kernel& k, ptx::Target target = ptx::Target{});

/// The names src_size, ignore_src and pred may use for an apply's repeat
/// coordinates: each named repeat axis of the src view (between the group
/// axes and the chunk axis) and its index in the view's axes.
std::map<std::string, std::size_t, std::less<>> repeat_axis_names(const ApplyOp& a);

/// The diagnostic for a message at a spec position.
Diagnostic diagnostic_at(DiagId id, const SourcePos& pos, std::string message,
                         std::uint32_t length = 1);

} // namespace ptxgen::tile
