#pragma once
// The cluster family's mutation rules (mutate_cluster.cpp): typed edits of a model of the
// cluster family (gen_cluster.cpp), each undoing one choice the generator makes to keep a
// cluster rule; the table in mutate.cpp names the DiagId each must be refused with.

#include "driver/fuzz/gen_rng.hpp"
#include "driver/fuzz/spec_model.hpp"

namespace ptxgen::driver::fuzz::cluster_mutants {

/// Multicast loads: the mask also names rank C (one CTA past the cluster); the barriers'
/// mbarrier_init_fence dropped; expect_tx on rank 0's barrier only (the issuer's, where one rank
/// issues); no cluster_sync at the end.
bool multicast_mask_outside(SpecModel& m, Rng& rng);
bool multicast_without_init_fence(SpecModel& m, Rng& rng);
bool multicast_expect_tx_rank_0(SpecModel& m, Rng& rng);
bool multicast_without_exit_sync(SpecModel& m, Rng& rng);
/// Every peer view's rank one more (`S@((E) + 1)`): the last rank then names rank C.
bool peer_rank_plus_1(SpecModel& m, Rng& rng);
/// The DSMEM shapes: a write and a peer's read of the same bytes with no cluster_sync between
/// (the exchange's first cluster_sync dropped, the push form's moved to the end; the ring
/// writing the buffer its peer reads).
bool dsmem_without_sync(SpecModel& m, Rng& rng);
/// The exchange (read form), the peer copy, the remote arrivals and the multicast ring (its
/// remote arrivals) without their last cluster_sync: a peer may still access the CTA's shared
/// memory when it exits.
bool peer_access_without_exit_sync(SpecModel& m, Rng& rng);
/// The same two with the cluster_sync kept but relaxed (barrier.cluster.arrive.relaxed orders
/// no memory access before it).
bool dsmem_sync_relaxed(SpecModel& m, Rng& rng);
bool peer_exit_sync_relaxed(SpecModel& m, Rng& rng);
/// The peer copy: its barriers' mbarrier_init_fence dropped; expect_tx on rank 0 only; no
/// receiver waits for the copy's phase (the wait and the copy out dropped); the source
/// rewritten after the sender's own wait, while the receiver may not have waited yet.
bool peer_copy_without_init_fence(SpecModel& m, Rng& rng);
bool peer_copy_expect_tx_rank_0(SpecModel& m, Rng& rng);
bool peer_copy_never_waited(SpecModel& m, Rng& rng);
bool peer_copy_source_rewritten(SpecModel& m, Rng& rng);
/// The remote arrivals: the barriers' mbarrier_init_fence dropped.
bool remote_arrive_without_init_fence(SpecModel& m, Rng& rng);
/// The multicast ring whose `empty` barriers collect the consumers of the whole cluster:
/// each `empty` counting one arrival, the local consumers' (the remote arrivals dropped);
/// the consumers arriving on their own CTA's `empty` only; one receiving CTA's arrivals
/// dropped with the count one less, or with the count kept (the phase never completes); the
/// refill issued before the issuer's `empty` wait; the arrival before the consumers' cta_sync
/// (it speaks for one thread's reads only); the count one with the remote arrivals kept.
bool ring_local_empty(SpecModel& m, Rng& rng);
bool ring_own_empty_only(SpecModel& m, Rng& rng);
bool ring_one_cta_dropped(SpecModel& m, Rng& rng);
bool ring_one_cta_dropped_count_kept(SpecModel& m, Rng& rng);
bool ring_refill_before_empty_wait(SpecModel& m, Rng& rng);
bool ring_arrive_before_cta_sync(SpecModel& m, Rng& rng);
bool ring_empty_count_one(SpecModel& m, Rng& rng);
/// A ring whose masks are a group of the cluster: the masks widened to the whole cluster, so
/// each CTA receives every group's parts where its `full` expects its own group's.
bool ring_part_mask_whole_cluster(SpecModel& m, Rng& rng);

} // namespace ptxgen::driver::fuzz::cluster_mutants
