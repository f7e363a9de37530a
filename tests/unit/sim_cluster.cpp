// Clusters in the simulator (driver/sim/cluster.hpp, cta_cluster.cpp) on
// tests/data/sim_cluster/cluster.ptx (ptxas checks it): the launch's cluster shape and the
// special registers, distributed shared memory with barrier.cluster, remote arrives, peer and
// multicast bulk copies, and a mutant per cluster hazard. Expected values come from the kernels'
// stated contents, lines from the tags; checks key on FaultKind / RaceKind, never on message text.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace unit_sim_cluster {

using namespace ptxgen::sim;
using ptxgen::test::replace_tagged_line;
using ptxgen::test::tagged_line;
using ptxgen::test::word_at;

namespace {

constexpr std::uint64_t in_base = 0x10000;
constexpr std::uint64_t out_base = 0x40000;

std::string data() {
  return ptxgen::test::read_test_data("sim_cluster", "cluster.ptx");
}

struct Run {
  SimResult result;
  std::vector<std::uint8_t> out = std::vector<std::uint8_t>(4096, 0);
  std::vector<std::uint8_t> in = std::vector<std::uint8_t>(256, 0);
  Observer observer;
};

/// Runs `entry` over `grid` CTAs of 32 threads, with `cluster` (nullopt: the entry's own) and,
/// when `observe`, an observer.
void launch(Run& r, const std::string& ptx, const std::string& entry, Dim3 grid,
            std::optional<Dim3> cluster, bool observe, std::vector<std::uint64_t> params) {
  for (std::size_t i = 0; i < r.in.size(); ++i)
    r.in[i] = static_cast<std::uint8_t>(i * 7 + 3);
  std::vector<GlobalBuffer> mem{{in_base, &r.in, "in"}, {out_base, &r.out, "out"}};
  Launch l;
  l.grid_dim = grid;
  l.block_dim = {32, 1, 1};
  l.cluster_dim = cluster;
  l.params = std::move(params);
  if (observe)
    l.observer = &r.observer;
  r.result = run(ptx, entry, l, mem);
}

/// The observer's race of `kind`, if any.
const Fault* race_of(const Observer& o, RaceKind kind) {
  for (const Fault& f : o.races) {
    if (f.race && f.race->kind == kind)
      return &f;
  }
  return nullptr;
}

} // namespace

TEST_CASE("cluster registers follow the launch's cluster shape") {
  Run r;
  launch(r, data(), "cluster_regs", {4, 2, 1}, Dim3{2, 1, 1}, false, {out_base});
  INFO((r.result.fault ? r.result.fault->message : std::string()));
  REQUIRE_FALSE(r.result.fault.has_value());
  for (std::uint32_t y = 0; y < 2; ++y) {
    for (std::uint32_t x = 0; x < 4; ++x) {
      const std::size_t w = (y * 4 + x) * 12;
      INFO("CTA " << x << "," << y);
      CHECK(word_at(r.out, w + 0) == x % 2); // %cluster_ctarank
      CHECK(word_at(r.out, w + 1) == 2);     // %cluster_nctarank
      CHECK(word_at(r.out, w + 2) == x / 2); // %clusterid.x
      CHECK(word_at(r.out, w + 3) == y);     // %clusterid.y
      CHECK(word_at(r.out, w + 4) == 2);     // %nclusterid.x
      CHECK(word_at(r.out, w + 5) == 2);     // %nclusterid.y
      CHECK(word_at(r.out, w + 6) == x % 2); // %cluster_ctaid.x
      CHECK(word_at(r.out, w + 7) == 0);     // %cluster_ctaid.y
      CHECK(word_at(r.out, w + 8) == 2);     // %cluster_nctaid.x
      CHECK(word_at(r.out, w + 9) == 1);     // %cluster_nctaid.y
      CHECK(word_at(r.out, w + 10) == 1);    // %is_explicit_cluster
    }
  }
  Run plain; // no cluster named: clusters of one CTA
  launch(plain, data(), "cluster_regs", {3, 1, 1}, std::nullopt, false, {out_base});
  REQUIRE_FALSE(plain.result.fault.has_value());
  CHECK(word_at(plain.out, 2 * 12 + 0) == 0);
  CHECK(word_at(plain.out, 2 * 12 + 1) == 1);
  CHECK(word_at(plain.out, 2 * 12 + 2) == 2);
  CHECK(word_at(plain.out, 2 * 12 + 10) == 0);
}

TEST_CASE("a cluster shape the grid or the entry refuses is an invalid launch") {
  Run odd;
  launch(odd, data(), "cluster_regs", {3, 1, 1}, Dim3{2, 1, 1}, false, {out_base});
  REQUIRE(odd.result.fault.has_value());
  CHECK(odd.result.fault->kind == FaultKind::invalid_launch);
  Run other; // dsmem_exchange requires .reqnctapercluster 2, 1, 1
  launch(other, data(), "dsmem_exchange", {4, 1, 1}, Dim3{4, 1, 1}, false, {out_base});
  REQUIRE(other.result.fault.has_value());
  CHECK(other.result.fault->kind == FaultKind::invalid_launch);
  Run big;
  launch(big, data(), "cluster_regs", {32, 1, 1}, Dim3{32, 1, 1}, false, {out_base});
  REQUIRE(big.result.fault.has_value());
  CHECK(big.result.fault->kind == FaultKind::invalid_launch);
}

TEST_CASE("distributed shared memory: each CTA reads its peer's bytes after the cluster barrier") {
  const std::string text = data();
  for (bool observe : {false, true}) {
    Run r;
    launch(r, text, "dsmem_exchange", {4, 1, 1}, std::nullopt, observe, {out_base});
    INFO((r.result.fault ? r.result.fault->message : std::string()));
    REQUIRE_FALSE(r.result.fault.has_value());
    CHECK(r.observer.races.empty());
    for (std::uint32_t bid = 0; bid < 4; ++bid) {
      for (std::uint32_t tid = 0; tid < 32; ++tid)
        REQUIRE(word_at(r.out, bid * 32 + tid) == ((bid % 2) ^ 1) * 1000 + tid);
    }
  }
}

TEST_CASE("a relaxed cluster arrival orders no DSMEM access: a race between CTAs") {
  const std::string text = data();
  const std::string relaxed =
      replace_tagged_line(text, "first_arrive", "  barrier.cluster.arrive.relaxed;");
  Run r;
  launch(r, relaxed, "dsmem_exchange", {2, 1, 1}, std::nullopt, false, {out_base});
  REQUIRE(r.result.fault.has_value());
  ptxgen::test::require_race_at(*r.result.fault, RaceKind::cross_cta_shared, relaxed, "remote_load",
                                "local_store");
  // the two CTAs of the cluster; which one reads first follows the simulation order
  CHECK(r.result.fault->bid + r.result.fault->race->other.bid == 1);
  CHECK(r.result.fault->race->other.tid == r.result.fault->tid); // buf[tid] of the peer
}

TEST_CASE("a CTA that exits while its peer still reads its shared memory") {
  const std::string text = data();
  const std::string early =
      replace_tagged_line(replace_tagged_line(text, "last_arrive", ""), "last_wait", "");
  Run r;
  launch(r, early, "dsmem_exchange", {2, 1, 1}, std::nullopt, true, {out_base});
  const Fault* f = race_of(r.observer, RaceKind::cluster_peer_exit);
  REQUIRE(f != nullptr);
  INFO(f->message);
  const std::uint32_t load = tagged_line(early, "remote_load");
  const std::uint32_t exit = tagged_line(early, "exit");
  CHECK(((f->race->access.ptx_line == load && f->race->other.ptx_line == exit) ||
         (f->race->access.ptx_line == exit && f->race->other.ptx_line == load)));
  CHECK(f->race->access.bid != f->race->other.bid);
}

TEST_CASE("a remote mbarrier arrive completes the peer's phase") {
  const std::string text = data();
  Run r;
  launch(r, text, "remote_arrive", {4, 1, 1}, Dim3{2, 1, 1}, true, {out_base});
  INFO((r.result.fault ? r.result.fault->message : std::string()));
  REQUIRE_FALSE(r.result.fault.has_value());
  CHECK(r.observer.races.empty());
  for (std::uint32_t bid = 0; bid < 4; ++bid) {
    for (std::uint32_t tid = 0; tid < 32; ++tid)
      REQUIRE(word_at(r.out, bid * 32 + tid) == tid + 1);
  }
}

TEST_CASE("a remote arrive on a barrier whose init no fence.mbarrier_init published") {
  const std::string text = data();
  const std::string unfenced = replace_tagged_line(text, "init_fence", "");
  Run r;
  launch(r, unfenced, "remote_arrive", {2, 1, 1}, Dim3{2, 1, 1}, false, {out_base});
  REQUIRE(r.result.fault.has_value());
  ptxgen::test::require_race_at(*r.result.fault, RaceKind::remote_before_init, unfenced,
                                "remote_arrive", "init");
  CHECK(r.result.fault->race->other.bid != r.result.fault->bid);
}

TEST_CASE("a CTA that exits while its peer may still arrive on its barrier") {
  const std::string text = data();
  const std::string early =
      replace_tagged_line(replace_tagged_line(text, "end_arrive", ""), "end_wait", "");
  Run r;
  launch(r, early, "remote_arrive", {2, 1, 1}, Dim3{2, 1, 1}, true, {out_base});
  const Fault* f = race_of(r.observer, RaceKind::cluster_peer_exit);
  REQUIRE(f != nullptr);
  CHECK(f->race->access.bid != f->race->other.bid);
}

TEST_CASE("a peer's remote arrive is ordered before this CTA's exit by a wait for its phase") {
  // CUTLASS orders a CTA's exit after its peers' remote arrivals without a cluster barrier:
  // the producer's tail waits for the phases they complete. Here each CTA's thread 0 arrives
  // on its peer's `full` and waits for its own, with no DSMEM store and no closing cluster
  // barrier: the peer's only use, the arrival, is seen before the exit.
  const std::string text = data();
  const std::string base =
      replace_tagged_line(replace_tagged_line(text, "end_arrive", ""), "end_wait", "");
  const std::string store = "st.shared::cluster.u32 [%r7], %r8;";
  std::string arrive_only = base;
  REQUIRE(arrive_only.find(store) != std::string::npos);
  arrive_only.replace(arrive_only.find(store), store.size(), "");
  Run r;
  launch(r, arrive_only, "remote_arrive", {2, 1, 1}, Dim3{2, 1, 1}, true, {out_base});
  INFO((r.result.fault ? r.result.fault->message : std::string()));
  REQUIRE_FALSE(r.result.fault.has_value());
  CHECK(race_of(r.observer, RaceKind::cluster_peer_exit) == nullptr);
  SUBCASE("without the wait, nothing here has seen the arrival: a peer exit") {
    const std::string wait =
        "@%p1 mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p2, [%r2], 0;";
    std::string unseen = arrive_only;
    REQUIRE(unseen.find(wait) != std::string::npos);
    unseen.replace(unseen.find(wait), wait.size(), "setp.eq.u32 %p2, %r1, %r1;");
    Run u;
    launch(u, unseen, "remote_arrive", {2, 1, 1}, Dim3{2, 1, 1}, true, {out_base});
    const Fault* f = race_of(u.observer, RaceKind::cluster_peer_exit);
    REQUIRE(f != nullptr);
    CHECK(f->race->access.bid != f->race->other.bid);
  }
}

TEST_CASE("a bulk copy into a peer's shared memory lands on the peer's barrier") {
  Run r;
  launch(r, data(), "peer_bulk", {2, 1, 1}, std::nullopt, true, {out_base});
  INFO((r.result.fault ? r.result.fault->message : std::string()));
  REQUIRE_FALSE(r.result.fault.has_value());
  CHECK(r.observer.races.empty());
  for (std::uint32_t bid = 0; bid < 2; ++bid) {
    for (std::uint32_t tid = 0; tid < 16; ++tid)
      REQUIRE(word_at(r.out, bid * 16 + tid) == (bid ^ 1) * 100 + tid);
  }
}

/// Runs a multicast entry of cluster.ptx over `ctas` CTAs: no fault, no race, and each CTA's
/// out words are the first 16 words of `in` (the multicast tile).
void check_multicast(const std::string& entry, std::uint32_t ctas) {
  Run r;
  launch(r, data(), entry, {ctas, 1, 1}, std::nullopt, true, {in_base, out_base});
  INFO((r.result.fault ? r.result.fault->message : std::string()));
  REQUIRE_FALSE(r.result.fault.has_value());
  CHECK(r.observer.races.empty());
  for (std::uint32_t bid = 0; bid < ctas; ++bid) {
    for (std::uint32_t tid = 0; tid < 16; ++tid)
      REQUIRE(word_at(r.out, bid * 16 + tid) == word_at(r.in, tid));
  }
}

TEST_CASE("a multicast bulk load gives each CTA of the mask the same bytes") {
  check_multicast("multicast", 4);
}

TEST_CASE("a multicast issued inside a .func uses the function's mask register") {
  check_multicast("multicast_call", 2);
}

TEST_CASE("a multicast into a barrier that expects fewer bytes") {
  const std::string text = data();
  const std::string short_tx = replace_tagged_line(
      text, "expect", "  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 32;");
  Run r;
  launch(r, short_tx, "multicast", {2, 1, 1}, std::nullopt, true, {in_base, out_base});
  const Fault* f = race_of(r.observer, RaceKind::multicast_without_expect_tx);
  REQUIRE(f != nullptr);
  INFO(f->message);
  CHECK(f->race->other.ptx_line == tagged_line(short_tx, "multicast"));
}

} // namespace unit_sim_cluster
