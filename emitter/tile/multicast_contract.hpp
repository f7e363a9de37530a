#pragma once
// The multicast part of the contract (docs/spec-format.md, "Multicast"): a bulk_load or
// tensor_load with `multicast = MASK` lands its bytes at the same CTA-relative offsets of
// `dst` and completes them on the same CTA-relative barrier in each CTA of the mask.
//
// Proved here, for every issuing thread and every value of the declared ranges: the mask
// stays inside the cluster (1..2^cluster_size-1, contract_multicast_mask). The mbarrier walk
// (mbarrier_contract.cpp) proves the rest with cluster_place(): each receiving CTA's phase
// gets the bytes that land there and expects them (contract_mbarrier_tx,
// contract_multicast_expect_tx), its barrier was published to the cluster before the first
// multicast (contract_multicast_init), and it waits for them before it exits
// (contract_multicast_exit).

#include "emitter/tile/bulk_contract.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace ptxgen::tile {

/// Where CTA `bid` sits in its cluster: its rank (x fastest, as %cluster_ctarank) and the
/// bids of its cluster's CTAs by rank (itself included).
struct ClusterPlace {
  std::int64_t rank = 0;
  std::vector<std::int64_t> peers;
};
ClusterPlace cluster_place(const Kernel& k, std::int64_t bid);

/// The mask of a bulk or tensor load (none: not a multicast) names only CTAs of the cluster,
/// at least one, for every thread whose pred may hold.
void check_multicast_mask(const BulkProofContext& c, const std::optional<Located<ExprPtr>>& mask,
                          const std::optional<Located<ExprPtr>>& pred);

} // namespace ptxgen::tile
