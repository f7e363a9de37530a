// Multicast loads (`multicast = MASK` on bulk_load and tensor_load) through the layers: the
// cluster places the contract and the reference share (against the evaluator's
// cluster_rank), the mask rule by intervals and by enumeration, the mbarrier walk's per-CTA
// transaction bytes, init and exit rules, the lowering's `.multicast::cluster` with an
// immediate or a `.b16` register mask, the C++ builder's refusal on a store and the printer's
// round trip.

#include "driver/run/to_toml.hpp"
#include "driver/show/picture.hpp"
#include "emitter/api/kernel_builder.hpp"
#include "emitter/tile/multicast_contract.hpp"
#include "lower_harness.hpp"
#include "spec_text.hpp"

#include <set>
#include <string>
#include <vector>

namespace unit_multicast {

using namespace ptxgen;
using namespace ptxgen::lower_test;
using spec_text::corpus;
using spec_text::edited;

namespace {

constexpr const char* kBulk2 = "cluster/multicast_bulk_2.toml";

/// The contract's errors for `text`, loaded, on sm_90 (a cluster launch needs it).
std::vector<DiagId> contract_errors(const std::string& text) {
  return spec_text::contract_errors(text, ptx::sm(90));
}

/// The first contract error's message with `id` (empty when none).
std::string message(const std::string& text, DiagId id) {
  return spec_text::contract_message(text, id, ptx::sm(90));
}

bool has(const std::vector<DiagId>& ids, DiagId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

} // namespace

TEST_CASE("multicast: a CTA's cluster place is the rank %cluster_ctarank gives it") {
  tile::Kernel k;
  k.grid_dim = {4, 2, 6};
  k.grid = k.grid_dim.count();
  k.cluster = tile::Kernel::Cluster{{2, 1, 3}, false, {}};
  for (std::int64_t b = 0; b < k.grid; ++b) {
    tile::ExprEnv e;
    e.bid = b;
    e.grid_dim = k.grid_dim;
    e.cluster_dim = k.cluster_dim();
    const tile::ClusterPlace p = tile::cluster_place(k, b);
    CHECK(p.rank == tile::evaluate(*tile::make_special(tile::Special::cluster_rank), e));
    REQUIRE(p.peers.size() == 6);
    CHECK(p.peers[static_cast<std::size_t>(p.rank)] == b);
    const auto id = tile::evaluate(*tile::make_special(tile::Special::cluster_id), e);
    std::set<std::int64_t> distinct;
    for (std::size_t r = 0; r < p.peers.size(); ++r) {
      tile::ExprEnv pe = e;
      pe.bid = p.peers[r];
      // Each peer is of the same cluster, at its own rank.
      CHECK(tile::evaluate(*tile::make_special(tile::Special::cluster_id), pe) == id);
      CHECK(tile::evaluate(*tile::make_special(tile::Special::cluster_rank), pe) ==
            static_cast<std::int64_t>(r));
      distinct.insert(p.peers[r]);
    }
    CHECK(distinct.size() == 6);
  }
}

TEST_CASE("multicast: the mask stays inside the cluster, by intervals or by thread") {
  const std::string text = corpus(kBulk2);
  CHECK(contract_errors(text).empty());
  CHECK(contract_errors(edited(text, "multicast = 3", "multicast = 0")) ==
        std::vector{DiagId::contract_multicast_mask});
  CHECK(message(edited(text, "multicast = 3", "multicast = 0"), DiagId::contract_multicast_mask)
            .find("names no CTA") != std::string::npos);
  CHECK(message(edited(text, "multicast = 3", "multicast = 4"), DiagId::contract_multicast_mask)
            .find("is 4 (0b100) for thread 0 of CTA 0, which sets bit 2") != std::string::npos);
  // Intervals lose xor; the threads are enumerated: rank 0 sends to 1, rank 1 to 0.
  const std::string swap = edited(text, "multicast = 3", "multicast = \"3 ^ (1 << cluster_rank)\"");
  CHECK_FALSE(has(contract_errors(swap), DiagId::contract_multicast_mask));
  // ... and where the mask fails only for CTA 1, that CTA is named.
  CHECK(message(edited(text, "multicast = 3", "multicast = \"2 << cluster_rank\""),
                DiagId::contract_multicast_mask)
            .find("is 4 (0b100) for thread 0 of CTA 1") != std::string::npos);
}

TEST_CASE("multicast: each receiving CTA's barrier counts its peers' bytes") {
  const std::string text = corpus(kBulk2);
  // Expecting only its own half: the peer's half is 1024 bytes more than the phase expects.
  const std::string half = edited(text, "bytes = 2048", "bytes = 1024");
  CHECK(message(half, DiagId::contract_mbarrier_tx)
            .find("1024 bytes expected by expect_tx, 2048 "
                  "delivered") != std::string::npos);
  // Without the init fence the cluster_sync publishes nothing.
  const std::string unfenced = edited(text, "op = \"mbarrier_init_fence\"", "op = \"cta_sync\"");
  CHECK(has(contract_errors(unfenced), DiagId::contract_multicast_init));
  // The fence without a cluster_sync after it is not visible either.
  const std::string unsynced =
      edited(text, "op = \"mbarrier_init_fence\"\n\n[[op]]\nop = \"cluster_sync\"",
             "op = \"mbarrier_init_fence\"\n\n[[op]]\nop = \"cta_sync\"");
  CHECK(has(contract_errors(unsynced), DiagId::contract_multicast_init));
  // Only rank 0 waits: rank 1 may exit while rank 0's half lands in it.
  const std::string no_wait =
      edited(text, "parity = 0", "parity = 0\npred = \"cluster_rank == 0\"");
  CHECK(contract_errors(no_wait) == std::vector{DiagId::contract_multicast_exit});
  // Without the cluster_sync at the end, a CTA may exit while its peer's copy uses it.
  const std::string no_final_sync =
      edited(text, "\n[[op]]\nop = \"cluster_sync\"\n\n[[expect]]", "\n[[expect]]");
  CHECK(message(no_final_sync, DiagId::contract_multicast_exit).find("no cluster_sync follows") !=
        std::string::npos);
}

TEST_CASE("multicast: lowered to .multicast::cluster with a .b16 mask" *
          doctest::test_suite("ptxas")) {
  const std::string text = corpus(kBulk2);
  const std::string imm = body(text, own_target());
  CHECK(imm.find("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::"
                 "cluster [") != std::string::npos);
  CHECK(imm.find("], 3;") != std::string::npos);
  CHECK(imm.find("fence.mbarrier_init.release.cluster;") != std::string::npos);
  const std::string reg =
      body(edited(text, "multicast = 3", "multicast = \"3 | (1 << cluster_rank)\""), own_target());
  CHECK(reg.find("cvt.u16.u32 %rs") != std::string::npos);
  CHECK(reg.find("], %rs") != std::string::npos);
}

TEST_CASE("multicast: the C++ builder takes it on loads, refuses it on stores, prints it") {
  api::KernelBuilder k("k");
  k.launch({2, 1, 1}, {32, 1, 1});
  k.cluster({2, 1, 1});
  auto a = k.global("A", {512}, tile::DType::uint32);
  auto s = k.shared("S", {512}, tile::DType::uint32);
  auto bar = k.shared("bar", {1}, tile::DType::uint64);
  k.bulk_load(s, a, bar.sub({0}), {.pred = api::tid() == 0, .multicast = api::Expr(3)});
  SUBCASE("printed and read back") {
    auto r = std::move(k).finish();
    INFO(r.diagnostics.format_all());
    REQUIRE(r.value.has_value());
    const std::string toml = api::to_spec_toml(**r.value);
    INFO(toml);
    CHECK(toml.find("multicast = '3'") != std::string::npos);
    const auto back = spec_text::load(toml, "back.toml");
    const auto* op = std::get_if<tile::BulkLoadOp>(&back->ops.back().body);
    REQUIRE(op != nullptr);
    REQUIRE(op->multicast.has_value());
    CHECK(op->multicast->text == "3");
  }
  SUBCASE("a store refuses it") {
    k.bulk_store(a, s, {.multicast = api::Expr(3)});
    auto r = std::move(k).finish();
    REQUIRE_FALSE(r.value.has_value());
    CHECK(r.diagnostics.items().front().id == DiagId::spec_unknown_key);
  }
}

TEST_CASE("multicast: show draws which rank's copy fills which rank's shared memory") {
  auto k = spec_text::load(corpus("cluster/multicast_bulk_pairs.toml"), "k.toml");
  const driver::show::Picture p = driver::show::build_picture(*k);
  REQUIRE(p.multicasts.size() == 1);
  CHECK(p.multicasts.front().ranks == 4);
  // Ranks 0 and 1 fill each other (mask 3), ranks 2 and 3 each other (mask 12).
  CHECK(p.multicasts.front().sends == std::vector<std::uint32_t>{3, 3, 12, 12});
}

} // namespace unit_multicast
