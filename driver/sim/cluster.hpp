#pragma once
// A cluster of CTAs simulated together (internal to driver/sim; the model: simulator.hpp,
// "Clusters"). Its CTAs run on one host thread in rounds, each CTA one pass over its threads
// per round (Cta::advance), until no CTA can run on: a thread that waits for a peer (at the
// cluster barrier, or on an mbarrier a peer arrives on or copies into) runs again in the round
// after the peer acted, and a wait nothing can end is found when every CTA is stuck.

#include "driver/sim/cta.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace ptxgen::sim::exec {

/// The cluster barrier (barrier.cluster.arrive / wait): a phase completes when every thread of
/// the cluster that has not exited has arrived for it.
struct ClusterBarrier {
  std::uint32_t phase = 0;          ///< completed phases
  std::uint32_t arrived = 0;        ///< arrivals for the current phase (exited ones included)
  std::uint32_t exited_arrived = 0; ///< threads that arrived for it and exited since
  std::uint32_t live = 0;           ///< threads of the cluster that have not exited
  std::vector<bool> relaxed;        ///< per CTA: one of its arrivals for the phase was .relaxed
};

class Cluster {
public:
  /// The CTAs `bids` of one cluster, in rank order.
  Cluster(const LaunchContext& c, const std::vector<std::uint64_t>& bids);
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  /// Runs every CTA to its end; a fault is thrown as FaultThrow.
  void run();
  std::uint32_t size() const { return static_cast<std::uint32_t>(ctas_.size()); }
  Cta& cta(std::uint32_t rank) { return *ctas_[rank]; }
  const Cta& cta(std::uint32_t rank) const { return *ctas_[rank]; }
  ClusterBarrier& barrier() { return bar_; }
  /// Completes the barrier's phase once every live thread has arrived for it: its waiters, in
  /// every CTA, run on.
  void settle_barrier();

private:
  std::vector<std::unique_ptr<Cta>> ctas_;
  ClusterBarrier bar_;
  const SimResult& res_; ///< the launch's result: its count of instructions executed
};

/// The linear indexes of the CTAs of cluster `k` (linear over the grid of clusters, x fastest),
/// in rank order (%cluster_ctarank: x fastest within the cluster).
std::vector<std::uint64_t> cluster_ctas(const Launch& l, const Dim3& cluster, std::uint64_t k);

} // namespace ptxgen::sim::exec
