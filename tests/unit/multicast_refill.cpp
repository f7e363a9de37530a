// The multicast refill rule (contract_multicast_refill) where the spec corpus does not reach:
// what orders a read before a refill (a relaxed cluster_sync does not), and the loops the
// walk cannot run in step. The corpus has the rings: specs/cluster/multicast_ring_*.toml
// and specs/races/multicast_refill_*.toml.

#include "emitter/tile/contract.hpp"
#include "spec_text.hpp"

#include <string>

#include <doctest/doctest.h>

namespace unit_multicast_refill {

using namespace ptxgen;
using spec_text::corpus;
using spec_text::edited;

namespace {

/// The contract's errors of `text` with `id`, their messages and positions.
std::vector<Diagnostic> refusals(const std::string& text, DiagId id) {
  auto k = spec_text::load(text, "k.toml");
  const Diagnostics ds = tile::check_contract(*k, ptx::sm(90));
  INFO(ds.format_all());
  return spec_text::with_id(ds, id);
}

constexpr const char* kLoop = "cluster/multicast_bulk_loop.toml";

} // namespace

TEST_CASE("multicast refill: the loop's cluster_sync orders the reads, a relaxed one does not") {
  const std::string text = corpus(kLoop);
  CHECK(refusals(text, DiagId::contract_multicast_refill).empty());
  // The cluster_sync that ends each iteration, relaxed: its arrival releases no read, so the
  // next tile's multicast may land while the last one is still read.
  const std::string relaxed = edited(text, "[[op]]\nop = \"cluster_sync\"\n\n[[op]]\nop = \"end\"",
                                     "[[op]]\nop = \"cluster_sync\"\nrelaxed = true\n\n[[op]]\n"
                                     "op = \"end\"");
  const auto found = refusals(relaxed, DiagId::contract_multicast_refill);
  REQUIRE(found.size() == 1);
  CHECK(found.front().message.find("k=1: the bulk_load (multicast) refills bytes") !=
        std::string::npos);
  CHECK(found.front().message.find("read at the copy at line") != std::string::npos);
}

TEST_CASE("multicast refill: a cluster's CTAs may run a loop over their own values, not trip "
          "counts") {
  // Each CTA's own four values of k (rank 1: 4..7): in step iteration by iteration, accepted.
  std::string shifted = edited(corpus(kLoop), "start = 0\nstop = 4",
                               "start = \"cluster_rank * 4\"\nstop = \"cluster_rank * 4 + 4\"");
  shifted = edited(shifted, "sub[k, cluster_rank, :]'", "sub[k % 4, cluster_rank, :]'");
  shifted = edited(shifted, "sub[k, bid, tid, :]'", "sub[k % 4, bid, tid, :]'");
  CHECK(refusals(shifted, DiagId::contract_multicast_refill).empty());
}

TEST_CASE("multicast refill: a loop whose trip count differs between a cluster's CTAs is refused") {
  const std::string text = edited(corpus(kLoop), "stop = 4", "stop = \"2 + 2 * cluster_rank\"");
  const auto found = refusals(text, DiagId::contract_multicast_refill);
  REQUIRE(found.size() == 1);
  CHECK(found.front().message.find("CTA 1 runs this loop 4 times and CTA 0 of its cluster 2") !=
        std::string::npos);
}

} // namespace unit_multicast_refill
