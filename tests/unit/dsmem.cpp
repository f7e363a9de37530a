// Views of a peer CTA's shared tensor (`S@rank`, distributed shared memory) through the doors
// and layers: the view parser (the rank's place in the text, a global tensor refused at its
// name), the reader's and the C++ builder's rules by DiagId, the contract's two proofs (the
// rank inside the cluster, a cluster_sync after the last peer access), the lowering (mapa +
// ld/st.shared::cluster, PTX 7.8, assembled by ptxas for sm_90) and the printer's round trip.
// The reference's race between a peer's and the owner's accesses is pinned by
// specs/races/dsmem_*.toml (the corpus tests).

#include "driver/ptxas/ptxas.hpp"
#include "driver/run/to_toml.hpp"
#include "emitter/api/kernel_builder.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/tile/contract.hpp"
#include "lower_harness.hpp"

#include <string>
#include <vector>

namespace unit_dsmem {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

/// Clusters of `cluster` CTAs (grid 4, block 32) with a global A, B and a shared S of one
/// 16-byte row per thread, and `ops` ([[op]] tables).
std::string spec(std::string_view ops, std::string_view cluster = "2") {
  std::string s = "[kernel]\nname = \"k\"\ngrid = 4\nblock = 32\n";
  if (!cluster.empty())
    s += "cluster = " + std::string(cluster) + "\n";
  s += R"TOML(
[tensor.A]
space = "global"
shape = [4, 32, 16]
dtype = "uint8"

[tensor.B]
space = "global"
shape = [4, 32, 16]
dtype = "uint8"
output = true

[tensor.S]
space = "shared"
shape = [32, 16]
dtype = "uint8"
)TOML";
  return s + std::string(ops);
}

std::string copy(std::string_view dst, std::string_view src) {
  return "\n[[op]]\nop = \"copy\"\ndst = \"" + std::string(dst) + "\"\nsrc = \"" +
         std::string(src) + "\"\n";
}

constexpr std::string_view kSync = "\n[[op]]\nop = \"cluster_sync\"\n";

/// The ids of the errors of loading `text` and, where it loads, of its contract for sm_90.
std::vector<DiagId> errors(const std::string& text) {
  auto k = driver::load_spec_text(text, "k.toml");
  std::vector<DiagId> ids;
  INFO(k.diagnostics.format_all());
  for (const auto& d : k.diagnostics.items())
    if (d.severity == Severity::error)
      ids.push_back(d.id);
  if (!k.value)
    return ids;
  const Diagnostics c = tile::check_contract(**k, ptx::Target{90, false});
  INFO(c.format_all());
  for (const auto& d : c.items())
    if (d.severity == Severity::error)
      ids.push_back(d.id);
  return ids;
}

lower::LowerOptions sm90() {
  lower::LowerOptions o;
  o.target = {90, false};
  return o;
}

} // namespace

TEST_CASE("dsmem: the view parser keeps the rank and where it is written") {
  tile::Tensor s;
  s.name = "S";
  s.space = tile::Space::shared;
  s.shape = {32, 16};
  s.dtype = tile::DType::uint8;
  tile::Tensor a = s;
  a.name = "A";
  a.space = tile::Space::global;
  const auto find = [&](std::string_view n) -> const tile::Tensor* {
    return n == "S" ? &s : n == "A" ? &a : nullptr;
  };
  const auto no_params = [](std::string_view) { return false; };
  SUBCASE("a parenthesized expression, then steps") {
    auto v = tile::parse_view("S@(cluster_rank ^ 1).sub[tid, :]", find, no_params);
    INFO(v.diagnostics.format_all());
    REQUIRE(v.value.has_value());
    REQUIRE(v->peer != nullptr);
    CHECK(tile::print(*v->peer) == "cluster_rank ^ 1");
    CHECK(v->peer_offset == 2);
    CHECK(v->peer_length == 18);
    CHECK(v->shape() == std::vector<std::int64_t>{16});
    CHECK(v->str().rfind("S@(cluster_rank ^ 1)(16)", 0) == 0);
  }
  SUBCASE("an integer") {
    auto v = tile::parse_view("S@3", find, no_params);
    REQUIRE(v.value.has_value());
    CHECK(tile::constant_value(*v->peer) == 3);
  }
  SUBCASE("no rank") {
    auto v = tile::parse_view("S@.sub[tid]", find, no_params);
    REQUIRE_FALSE(v.value.has_value());
    CHECK(v.diagnostics.items().front().id == DiagId::view_syntax);
    CHECK(v.diagnostics.items().front().column == 3);
  }
  SUBCASE("a global tensor, refused at its name") {
    auto v = tile::parse_view("A@1.sub[tid]", find, no_params);
    REQUIRE_FALSE(v.value.has_value());
    CHECK(v.diagnostics.items().front().id == DiagId::view_peer_not_shared);
    CHECK(v.diagnostics.items().front().column == 1);
  }
}

TEST_CASE("dsmem: the reader's and the contract's rules, each with its DiagId") {
  const std::string read = copy("B.sub[bid, tid, :]", "S@(cluster_rank ^ 1).sub[tid, :]");
  const std::string own = copy("S.sub[tid, :]", "A.sub[bid, tid, :]");
  CHECK(errors(spec(own + std::string(kSync) + read + std::string(kSync))).empty());
  CHECK(errors(spec(own + std::string(kSync) + copy("B.sub[bid, tid, :]", "S@1.sub[tid, :]") +
                        std::string(kSync),
                    "")) == std::vector<DiagId>{DiagId::spec_peer_view_undeclared});
  // Rank 2 in a cluster of 2.
  CHECK(errors(spec(own + std::string(kSync) +
                    copy("B.sub[bid, tid, :]", "S@(cluster_rank + 1).sub[tid, :]") +
                    std::string(kSync))) == std::vector<DiagId>{DiagId::contract_peer_rank});
  // Its interval is 0..2 and the cluster of 2 has ranks 0..1; `cluster_rank ^ 1` is inside
  // a cluster of 4 too, and `(cluster_rank + 1) % 4` there.
  CHECK(errors(spec(own + std::string(kSync) + read + std::string(kSync), "4")).empty());
  CHECK(errors(spec(own + std::string(kSync) +
                        copy("B.sub[bid, tid, :]", "S@((cluster_rank + 1) % 4).sub[tid, :]") +
                        std::string(kSync),
                    "4"))
            .empty());
  // No barrier after the peer access; a relaxed one orders nothing.
  CHECK(errors(spec(own + std::string(kSync) + read)) ==
        std::vector<DiagId>{DiagId::contract_peer_exit});
  CHECK(errors(spec(own + std::string(kSync) + read + "\n[[op]]\nop = \"cluster_sync\"\n" +
                    "relaxed = true\n")) == std::vector<DiagId>{DiagId::contract_peer_exit});
  // A barrier in a loop that surely runs covers the access before it; one that may not run
  // (a parameter's stop) does not.
  const std::string loop = "\n[[op]]\nop = \"for\"\nvar = \"i\"\nstart = 0\nstop = STOP\n" +
                           std::string(kSync) + "\n[[op]]\nop = \"end\"\n";
  auto with_stop = [&](std::string_view stop) {
    std::string l = loop;
    l.replace(l.find("STOP"), 4, stop);
    return l;
  };
  CHECK(errors(spec(own + std::string(kSync) + read + with_stop("2"))).empty());
  CHECK(errors("[param.n]\ndtype = \"u32\"\nvalue = 1\nrange = [0, 4]\n" +
               spec(own + std::string(kSync) + read + with_stop("\"n\""))) ==
        std::vector<DiagId>{DiagId::contract_peer_exit});
  // Only copy and fill take a peer view.
  CHECK(errors(spec(own + std::string(kSync) +
                    "\n[[op]]\nop = \"apply\"\nopcode = \"cp.async.cg.shared.global\"\n"
                    "dst = \"S@1.sub[tid, :]\"\nsrc = \"A.sub[bid, tid, :]\"\nchunk_bytes = 16\n" +
                    std::string(kSync))) == std::vector<DiagId>{DiagId::spec_peer_view_op});
}

TEST_CASE("dsmem: lowered to mapa and ld/st.shared::cluster, for sm_90" *
          doctest::test_suite("ptxas")) {
  const std::string text = spec(
      copy("S@(cluster_rank ^ 1).sub[tid, :]", "A.sub[bid, tid, :]") + std::string(kSync) +
      copy("B.sub[bid, tid, :]", "S@0.sub[tid, :]") +
      "\n[[op]]\nop = \"fill\"\ndst = \"S@1.sub[tid, 0:4]\"\npattern = 7\n" + std::string(kSync));
  auto m = lower_text(text, sm90());
  INFO(m.diagnostics.format_all());
  REQUIRE(m.value.has_value());
  const std::string body = instructions(*m);
  INFO(body);
  // The rank of each peer view: the first from %cluster_ctarank, the others immediates.
  CHECK(body.find(", %cluster_ctarank;") != std::string::npos);
  CHECK(body.find("mapa.shared::cluster.u32") != std::string::npos);
  CHECK(body.find(", 0;\n") != std::string::npos);
  CHECK(body.find("st.shared::cluster.v4.b32") != std::string::npos);
  CHECK(body.find("ld.shared::cluster.v4.b32") != std::string::npos);
  CHECK(body.find("st.shared::cluster.u32") != std::string::npos);
  CHECK(ptx::required_version(*m) == ptx::PtxVersion{7, 8});
  assembles(*m);
}

TEST_CASE("dsmem: the printer writes the peer view back, and C++ spells it the same") {
  const std::string text =
      spec(copy("B.sub[bid, tid, :]", "S@(cluster_rank ^ 1).sub[tid, :]") + std::string(kSync));
  auto k = driver::load_spec_text(text, "k.toml");
  REQUIRE(k.value.has_value());
  const std::string toml = api::to_spec_toml(**k);
  INFO(toml);
  CHECK(toml.find("src = 'S@(cluster_rank ^ 1).sub[tid, 0:16]'") != std::string::npos);
  auto again = driver::load_spec_text(toml, "again.toml");
  INFO(again.diagnostics.format_all());
  REQUIRE(again.value.has_value());
  const auto& c = std::get<tile::CopyOp>((*again)->ops.at(0).body);
  REQUIRE(c.src.value.peer != nullptr);
  CHECK(tile::print(*c.src.value.peer) == "cluster_rank ^ 1");

  api::KernelBuilder b("k");
  b.launch({4, 1, 1}, {32, 1, 1});
  b.cluster({2, 1, 1});
  auto a = b.global("A", {4, 32, 16}, tile::DType::uint8);
  auto s = b.shared("S", {32, 16}, tile::DType::uint8);
  const api::View peer = s.peer(api::special(tile::Special::cluster_rank) ^ 1).sub({api::tid()});
  CHECK(peer.ok());
  CHECK(peer.text() == "S@(cluster_rank ^ 1).sub[tid]");
  CHECK_FALSE(a.peer(1).ok());
  CHECK(a.peer(1).error()->id == DiagId::view_peer_not_shared);
  b.copy(peer, a.sub({api::bid(), api::tid()}));
  auto r = std::move(b).finish();
  INFO(r.diagnostics.format_all());
  REQUIRE(r.value.has_value());

  api::KernelBuilder nc("k");
  nc.launch({4, 1, 1}, {32, 1, 1});
  auto a2 = nc.global("A", {4, 32, 16}, tile::DType::uint8);
  auto s2 = nc.shared("S", {32, 16}, tile::DType::uint8);
  nc.copy(s2.peer(1).sub({api::tid()}), a2.sub({api::bid(), api::tid()}));
  auto r2 = std::move(nc).finish();
  REQUIRE_FALSE(r2.value.has_value());
  CHECK(r2.diagnostics.items().front().id == DiagId::spec_peer_view_undeclared);
}

} // namespace unit_dsmem
