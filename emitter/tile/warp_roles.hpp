#pragma once
// The proofs about a warp-specialized kernel's roles (docs/spec-format.md, "Warp
// specialization"): ops guarded by a pred on the thread's warp (a producer warp, consumer
// warps), named barriers between some of the warps and setmaxnreg moving registers between
// warpgroups. The users of a named_barrier or setmaxnreg are the threads whose pred holds; the
// pred may use only the thread's index (tid, warp, lane, tid.x/y/z) and constants, so its
// users are the same on every iteration, in every CTA and for every value of the declared
// ranges, and evaluating it for each thread of the block proves the rules for all of them:
//
//  - a named_barrier's id is 1..15 (0 is cta_sync's) and its count a multiple of 32 in
//    32..block; its users are whole warps and exactly `count` threads (fewer never complete
//    it: a deadlock; more complete it early), or, for the named_barriers of an id with fewer
//    users each (bar.arrive by some warps, bar.sync by others), exactly `count` together, no
//    thread twice; every named_barrier of one id gives one count;
//  - a setmaxnreg's count is a multiple of 8 in 24..256; its users are whole warpgroups of a
//    block of whole warpgroups (`.sync.aligned`); a dec never raises and an inc never lowers a
//    warpgroup's count; and after every setmaxnreg the warpgroups' registers fit what the CTA
//    holds from its launch (ptxas gives each thread 65536 / (ctas_per_sm * block) registers,
//    rounded down to a multiple of 8 and at most 256, where the kernel states its residency:
//    without one ptxas ignores setmaxnreg), or an inc waits forever.
//
// That the empty barrier of a ring counts its consumers is the mbarrier phase walk's
// (mbarrier_contract.hpp): it counts the arrivals of the threads whose pred holds.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <optional>
#include <vector>

namespace ptxgen::tile {

/// Every named_barrier and setmaxnreg rule above, for the ops of `k`.
void check_warp_roles(const Kernel& k, Diagnostics& out);

/// The registers per thread ptxas gives every thread of `k` at entry when the kernel uses
/// setmaxnreg: 65536 / (ctas_per_sm * block) rounded down to a multiple of 8, at most 256;
/// 0 without a residency (ptxas then ignores setmaxnreg).
std::int64_t entry_registers(const Kernel& k);

/// The threads of `k`'s block for which `pred` holds, evaluated for each thread as the rules
/// above evaluate a role's pred; nullopt when the pred uses more than the thread's index and
/// constants (its threads may then differ between iterations, CTAs or parameter values) or
/// has no value for a thread. The reference names a finding's thread by the role this gives.
std::optional<std::vector<bool>> role_threads(const Kernel& k, const Expr& pred);

} // namespace ptxgen::tile
