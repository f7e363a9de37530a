#pragma once
// The multicast refill rule (docs/spec-format.md, "Multicast"): a multicast that lands in a
// stage of a receiving CTA must be issued after every read of those bytes by that CTA's
// threads since the stage's previous multicast. The CUTLASS form: the consumers of every
// receiving CTA arrive on the issuer's `empty` barrier (a remote arrival, `empty@(rank)`) and
// the issuing thread waits for that phase before the refill.
//
// The walk runs each cluster's CTAs in step (the same op, the same loop iteration, as the
// mbarrier walk does) and keeps, per thread of the cluster, a vector clock: which of the
// cluster's threads' reads it knows are done. A thread knows its own reads; a cta_sync joins
// the clocks of a CTA's threads, a named barrier's sync those of its threads, a cluster_sync
// (not relaxed) those of the whole cluster; an arrival adds the arriving thread's clock to
// its barrier's phase, which a wait for the completed phase learns. The reads: a copy's
// source (its own CTA's or a peer's, `S@rank`), and a bulk or tensor store's (or
// reduction's), which reads until a bulk_wait of its thread retires its group. A read of a
// multicast destination whose reader's clock entry the issuing thread has not reached when
// the multicast is issued is refused (contract_multicast_refill), for every value of the
// declared ranges the walk runs at.
//
// It assumes what the mbarrier walk proves first: each phase gets exactly its count of
// arrivals and each wait names the last completed phase; it runs only when that walk found
// nothing.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <span>

namespace ptxgen::tile {

/// The most threads one cluster may have for the walk (each keeps a clock of them all).
inline constexpr std::int64_t max_refill_cluster_threads = 4096;

/// The walk above, for kernels with a multicast load; `max_steps` and `values` as
/// check_mbarrier_phases takes them (a walk past its budget is refused,
/// contract_mbarrier_too_long).
void check_multicast_refill(const Kernel& k, Diagnostics& out, std::int64_t max_steps,
                            std::span<const std::uint64_t> values);

} // namespace ptxgen::tile
