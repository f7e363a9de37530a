// A cluster of CTAs simulated together (cluster.hpp).

#include "driver/sim/cluster.hpp"

namespace ptxgen::sim::exec {

Cluster::Cluster(const LaunchContext& c, const std::vector<std::uint64_t>& bids) : res_(c.res) {
  ctas_.reserve(bids.size());
  for (const std::uint64_t bid : bids) {
    ctas_.push_back(std::make_unique<Cta>(c, bid));
    ctas_.back()->join(*this);
  }
  bar_.live = static_cast<std::uint32_t>(bids.size() * c.l.block_total());
  bar_.relaxed.assign(bids.size(), false);
}

void Cluster::run() {
  while (true) {
    bool any = false;
    const std::uint64_t before = res_.instructions_executed;
    for (auto& cta : ctas_)
      any = cta->advance() || any; // every CTA its pass in each round
    // A CTA's pass can release threads of a CTA whose pass came earlier in the round (the last
    // arrival at the cluster barrier, a remote arrive or multicast bytes on its mbarrier) and
    // then block itself: a round that ran instructions is followed by another, so that no CTA
    // stops with threads that can run on.
    if (!any && res_.instructions_executed == before)
      break;
  }
  for (const auto& cta : ctas_)
    cta->stuck();
  for (auto& cta : ctas_)
    cta->finish();
}

void Cluster::settle_barrier() {
  if (bar_.arrived == 0 || bar_.arrived - bar_.exited_arrived != bar_.live)
    return;
  ++bar_.phase;
  bar_.arrived = 0;
  bar_.exited_arrived = 0;
  for (std::uint32_t r = 0; r < size(); ++r)
    ctas_[r]->cluster_released(bar_.relaxed[r]);
  bar_.relaxed.assign(size(), false);
}

std::vector<std::uint64_t> cluster_ctas(const Launch& l, const Dim3& cluster, std::uint64_t k) {
  const Dim3 clusters = {l.grid_dim[0] / cluster[0], l.grid_dim[1] / cluster[1],
                         l.grid_dim[2] / cluster[2]};
  const Dim3 at = coordinates(k, clusters);
  const std::uint64_t n = static_cast<std::uint64_t>(cluster[0]) * cluster[1] * cluster[2];
  std::vector<std::uint64_t> bids;
  bids.reserve(n);
  for (std::uint64_t r = 0; r < n; ++r) {
    const Dim3 in = coordinates(r, cluster);
    const std::uint64_t x = static_cast<std::uint64_t>(at[0]) * cluster[0] + in[0];
    const std::uint64_t y = static_cast<std::uint64_t>(at[1]) * cluster[1] + in[1];
    const std::uint64_t z = static_cast<std::uint64_t>(at[2]) * cluster[2] + in[2];
    bids.push_back(x + y * l.grid_dim[0] + z * l.grid_dim[0] * l.grid_dim[1]);
  }
  return bids;
}

} // namespace ptxgen::sim::exec
