// Bulk copies into a peer's shared memory (bulk_copy_peer) and remote arrivals (mbarrier_arrive
// on `B@rank`) through the doors and layers: the builder's rule that the barrier is dst's CTA's,
// the mbarrier walk's per-CTA bytes and arrivals fed by the whole cluster, the lowering (mapa,
// cp.async.bulk.shared::cluster.shared::cta, mbarrier.arrive.release.cluster.shared::cluster,
// PTX 8.0, assembled by ptxas for sm_90), the C++ builder, the printer and show. The corpus
// specs (specs/cluster/peer_*.toml and their refusals) pin the rest at line:col.

#include "driver/run/to_toml.hpp"
#include "driver/show/picture.hpp"
#include "emitter/api/kernel_builder.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/tile/contract.hpp"
#include "lower_harness.hpp"
#include "spec_text.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace unit_peer_bulk {

using namespace ptxgen;
using namespace ptxgen::lower_test;
using spec_text::corpus;
using spec_text::edited;

namespace {

constexpr const char* kExchange = "cluster/peer_bulk_exchange_2.toml";
constexpr const char* kRing = "cluster/peer_bulk_ring_4.toml";
constexpr const char* kCount = "cluster/peer_arrive_count_4.toml";

/// The errors of loading `text` and, where it loads, of its contract for sm_90.
std::vector<DiagId> errors(const std::string& text) {
  auto k = driver::load_spec_text(text, "k.toml");
  INFO(k.diagnostics.format_all());
  std::vector<DiagId> ids;
  for (const auto& d : k.diagnostics.items())
    if (d.severity == Severity::error)
      ids.push_back(d.id);
  if (!k.value)
    return ids;
  const Diagnostics c = tile::check_contract(**k, ptx::sm(90));
  INFO(c.format_all());
  for (const auto& d : c.items())
    if (d.severity == Severity::error)
      ids.push_back(d.id);
  return ids;
}

bool has(const std::vector<DiagId>& ids, DiagId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

} // namespace

TEST_CASE("peer bulk: the corpus's valid specs pass the builder and the contract") {
  for (const char* path : {kExchange, kRing, kCount, "cluster/peer_bulk_allgather_8.toml"}) {
    INFO(path);
    CHECK(errors(corpus(path)).empty());
  }
}

TEST_CASE("peer bulk: the barrier must be dst's CTA's, and the receiver must expect its bytes") {
  const std::string x = corpus(kExchange);
  CHECK(errors(edited(x, "barrier = 'bar@(cluster_rank ^ 1).sub[0]'",
                      "barrier = 'bar@cluster_rank.sub[0]'")) ==
        std::vector<DiagId>{DiagId::spec_peer_copy_rank});
  CHECK(errors(edited(x, "dst = 'S@(cluster_rank ^ 1)'", "dst = 'S'")) ==
        std::vector<DiagId>{DiagId::spec_peer_copy_rank});
  // Only rank 0 expects: rank 1's barrier gets its peer's bytes in a phase with no expect_tx.
  CHECK(has(errors(edited(x, "bytes = 512\npred = \"tid == 0\"",
                          "bytes = 512\npred = \"tid == 0 && cluster_rank == 0\"")),
            DiagId::contract_peer_copy_expect_tx));
  // Half the bytes: the walk counts the 512 the peer sends against the 256 expected.
  CHECK(has(errors(edited(x, "bytes = 512", "bytes = 256")), DiagId::contract_mbarrier_tx));
}

TEST_CASE("peer bulk: a barrier's phase counts the arrivals of every CTA of the cluster") {
  const std::string c = corpus(kCount);
  CHECK(errors(edited(c, "count = 4", "count = 3")) ==
        std::vector<DiagId>{DiagId::contract_mbarrier_count});
  CHECK(has(errors(edited(c, "count = 4", "count = 5")), DiagId::contract_mbarrier_count));
  // Unpublished: the peers' arrivals are refused (and the wait, short of them, hangs).
  const auto unfenced = errors(edited(c, "[[op]]\nop = \"mbarrier_init_fence\"\n\n", ""));
  REQUIRE_FALSE(unfenced.empty());
  CHECK(unfenced.front() == DiagId::contract_remote_arrive_init);
  // The CTA's own wait stays on its own barrier.
  CHECK(errors(edited(c, "barrier = 'done.sub[0]'\nparity", "barrier = 'done@0.sub[0]'\nparity")) ==
        std::vector<DiagId>{DiagId::spec_peer_view_op});
}

TEST_CASE("peer bulk: lowered to mapa, the peer copy and the remote arrival, for sm_90" *
          doctest::test_suite("ptxas")) {
  lower::LowerOptions o;
  o.target = {90, false};
  auto m = lower_text(corpus(kRing), o);
  INFO(m.diagnostics.format_all());
  REQUIRE(m.value.has_value());
  std::string body;
  for (const auto& i : m->entries.front().body)
    body += ptx::print(i) + "\n";
  INFO(body);
  CHECK(body.find("mapa.shared::cluster.u32") != std::string::npos);
  CHECK(body.find("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [") !=
        std::string::npos);
  CHECK(body.find("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [") != std::string::npos);
  CHECK(ptx::required_version(*m) == ptx::PtxVersion{8, 0});
  assembles(*m);
}

TEST_CASE("peer bulk: C++ builds the exchange the spec describes; the printer writes it back") {
  auto k = spec_text::load(corpus(kExchange), "k.toml");
  const std::string toml = api::to_spec_toml(*k);
  INFO(toml);
  CHECK(toml.find("op = \"bulk_copy_peer\"") != std::string::npos);
  CHECK(toml.find("barrier = 'bar@(cluster_rank ^ 1).sub[0]'") != std::string::npos);
  auto again = driver::load_spec_text(toml, "again.toml");
  INFO(again.diagnostics.format_all());
  REQUIRE(again.value.has_value());
  CHECK(std::holds_alternative<tile::BulkCopyPeerOp>((*again)->ops.at(6).body));

  api::KernelBuilder b("k");
  b.launch({4, 1, 1}, {32, 1, 1});
  b.cluster({2, 1, 1});
  auto s = b.shared("S", {128}, tile::DType::uint32);
  auto t = b.shared("Src", {128}, tile::DType::uint32);
  auto bar = b.shared("bar", {1}, tile::DType::uint64);
  const api::Expr peer = api::special(tile::Special::cluster_rank) ^ 1;
  // The CTA's own barrier with a peer's dst: refused when the kernel is built.
  b.bulk_copy_peer(s.peer(peer), t, bar.sub({0}), api::tid() == 0);
  auto r = std::move(b).finish();
  REQUIRE_FALSE(r.value.has_value());
  CHECK(r.diagnostics.items().front().id == DiagId::spec_peer_copy_rank);
}

TEST_CASE("peer bulk: show draws which rank's copy fills which rank's shared memory") {
  auto k = spec_text::load(corpus(kRing), "k.toml");
  const driver::show::Picture p = driver::show::build_picture(*k);
  REQUIRE(p.multicasts.size() == 1);
  CHECK(p.multicasts.front().ranks == 4);
  // Rank r fills rank r + 1 (mod 4).
  CHECK(p.multicasts.front().sends == std::vector<std::uint32_t>{2, 4, 8, 1});
}

} // namespace unit_peer_bulk
