// `[kernel] cluster` through the doors and layers: the reader's and the C++ builder's rules
// (each with its DiagId), the cluster specials' values (the emitter's evaluator against the
// reference's naive one and against values worked out by hand from the PTX manual's numbering)
// and ranges, the lowering (.reqnctapercluster, %cluster_ctarank, %clusterid.*, assembled by
// ptxas for sm_90), the contract's target rule, the printer and reader round trip, and the
// request the CUDA runner launches with.

#include "driver/cuda/wire.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/reference/grid_races.hpp"
#include "driver/reference/naive_expr.hpp"
#include "driver/run/binding.hpp"
#include "driver/run/to_toml.hpp"
#include "emitter/api/kernel_builder.hpp"
#include "lower_harness.hpp"

#include <set>
#include <string>
#include <vector>

namespace unit_cluster_launch {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

/// A copy kernel of `grid` CTAs (a TOML value) in clusters of `cluster`, whose src index is
/// `index`, plus any further [kernel] keys.
std::string spec(std::string_view grid, std::string_view cluster, std::string_view index = "bid",
                 std::string_view more = {}) {
  std::string s = "[kernel]\nname = \"k\"\ngrid = " + std::string(grid) + "\nblock = 32\n";
  if (!cluster.empty())
    s += "cluster = " + std::string(cluster) + "\n";
  s += std::string(more);
  s += R"TOML(
[tensor.A]
space = "global"
shape = [64, 32]
dtype = "uint8"

[tensor.B]
space = "global"
shape = [64, 32]
dtype = "uint8"
output = true

[[op]]
op = "copy"
dst = "B.sub[bid, tid]"
)TOML";
  s += "src = \"A.sub[" + std::string(index) + ", tid]\"\n";
  return s;
}

/// The ids of the errors of loading `text`.
std::vector<DiagId> load_errors(const std::string& text) {
  auto k = driver::load_spec_text(text, "k.toml");
  std::vector<DiagId> ids;
  for (const auto& d : k.diagnostics.items())
    if (d.severity == Severity::error)
      ids.push_back(d.id);
  INFO(k.diagnostics.format_all());
  return ids;
}

tile::ExprEnv env(tile::Dim3 grid, tile::Dim3 cluster, std::int64_t bid) {
  tile::ExprEnv e;
  e.bid = bid;
  e.grid_dim = grid;
  e.cluster_dim = cluster;
  return e;
}

std::int64_t value(tile::Special s, const tile::ExprEnv& e) {
  const auto v = tile::evaluate(*tile::make_special(s), e);
  REQUIRE(v.has_value());
  const auto naive = driver::naive_evaluate(*tile::make_special(s), e);
  REQUIRE(naive.has_value());
  CHECK(*v == *naive); // two evaluators written apart agree
  return *v;
}

} // namespace

TEST_CASE("cluster: the specials count CTAs and clusters x fastest, as the PTX manual does") {
  // A 4 x 4 grid in 2 x 2 clusters: CTA (3, 2) is bid 11, at (1, 0) of cluster (1, 1).
  const tile::ExprEnv e = env({4, 4, 1}, {2, 2, 1}, 11);
  CHECK(value(tile::Special::cluster_rank, e) == 1);
  CHECK(value(tile::Special::cluster_size, e) == 4);
  CHECK(value(tile::Special::cluster_id, e) == 3);
  CHECK(value(tile::Special::ncluster, e) == 4);
  // CTA (2, 3): rank 0 + 2 * 1, cluster (1, 1) again.
  CHECK(value(tile::Special::cluster_rank, env({4, 4, 1}, {2, 2, 1}, 14)) == 2);
  // Every CTA of a 3-D launch: the two evaluators agree, and each (cluster, rank) pair is one
  // CTA's.
  const tile::Dim3 g{4, 2, 6}, c{2, 1, 3};
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (std::int64_t b = 0; b < g.count(); ++b) {
    const tile::ExprEnv eb = env(g, c, b);
    const std::int64_t r = value(tile::Special::cluster_rank, eb);
    const std::int64_t id = value(tile::Special::cluster_id, eb);
    CHECK(r < 6);
    CHECK(id < 8);
    seen.insert({id, r});
  }
  CHECK(seen.size() == static_cast<std::size_t>(g.count()));
}

TEST_CASE("cluster: the specials' ranges are the cluster's and the grid of clusters'") {
  tile::LaunchBounds l;
  l.grid = 32;
  l.block = 32;
  l.grid_dim = {8, 4, 1};
  l.block_dim = {32, 1, 1};
  l.cluster_dim = {4, 2, 1};
  const auto range = [&](tile::Special s) { return tile::bounds(*tile::make_special(s), l); };
  CHECK(range(tile::Special::cluster_rank) == tile::Interval{0, 7});
  CHECK(range(tile::Special::cluster_size) == tile::Interval{8, 8});
  CHECK(range(tile::Special::cluster_id) == tile::Interval{0, 3});
  CHECK(range(tile::Special::ncluster) == tile::Interval{4, 4});
}

TEST_CASE("cluster: the reader's rules, each with its DiagId") {
  CHECK(load_errors(spec("8", "[2, 1, 1]")).empty());
  CHECK(load_errors(spec("[4, 4]", "[2, 2]")).empty());
  CHECK(load_errors(spec("16", "16", "bid", "cluster_non_portable = true\n")).empty());
  CHECK(load_errors(spec("8", "[2, 0]")) == std::vector{DiagId::spec_cluster_shape});
  CHECK(load_errors(spec("[8, 8]", "[4, 8]", "bid", "cluster_non_portable = true\n")) ==
        std::vector{DiagId::spec_cluster_shape});
  CHECK(load_errors(spec("32", "32", "bid", "cluster_non_portable = true\n")) ==
        std::vector{DiagId::spec_cluster_shape});
  CHECK(load_errors(spec("16", "16")) == std::vector{DiagId::spec_cluster_portable});
  CHECK(load_errors(spec("8", "", "bid", "cluster_non_portable = true\n")) ==
        std::vector{DiagId::spec_cluster_portable});
  CHECK(load_errors(spec("6", "4")) == std::vector{DiagId::spec_cluster_grid});
  CHECK(load_errors(spec("[4, 3]", "[2, 2]")) == std::vector{DiagId::spec_cluster_grid});
  CHECK(load_errors(spec("8", "", "cluster_rank")) == std::vector{DiagId::spec_cluster_undeclared});
  CHECK(load_errors(spec("8", "2", "cluster_id * 2 + cluster_rank")).empty());
  // A word where the shape goes is a type error, not a shape.
  const auto word = load_errors(spec("8", "\"2\""));
  REQUIRE_FALSE(word.empty());
  CHECK(word.front() != DiagId::spec_cluster_shape);
}

TEST_CASE("cluster: the C++ builder's rules, whatever the call order") {
  SUBCASE("the grid checked when the kernel is built") {
    api::KernelBuilder k("k");
    k.cluster({4, 1, 1});
    k.launch({6, 1, 1}, {32, 1, 1});
    auto r = std::move(k).finish();
    REQUIRE_FALSE(r.value.has_value());
    CHECK(r.diagnostics.items().front().id == DiagId::spec_cluster_grid);
  }
  SUBCASE("beyond 8 without the opt-in") {
    api::KernelBuilder k("k");
    k.launch({16, 1, 1}, {32, 1, 1});
    k.cluster({16, 1, 1});
    auto r = std::move(k).finish();
    REQUIRE_FALSE(r.value.has_value());
    CHECK(r.diagnostics.items().front().id == DiagId::spec_cluster_portable);
  }
  SUBCASE("a cluster special in code without a cluster") {
    api::KernelBuilder k("k");
    k.launch({8, 1, 1}, {32, 1, 1});
    auto a = k.global("A", {64, 32}, tile::DType::uint8);
    auto b = k.global("B", {64, 32}, tile::DType::uint8, {.output = true});
    k.copy(b.sub({api::bid(), api::tid()}),
           a.sub({api::special(tile::Special::cluster_rank), api::tid()}));
    auto r = std::move(k).finish();
    REQUIRE_FALSE(r.value.has_value());
    CHECK(r.diagnostics.items().front().id == DiagId::spec_cluster_undeclared);
  }
  SUBCASE("accepted") {
    api::KernelBuilder k("k");
    k.launch({16, 1, 1}, {32, 1, 1});
    k.cluster({16, 1, 1}, true);
    auto r = std::move(k).finish();
    INFO(r.diagnostics.format_all());
    REQUIRE(r.value.has_value());
    REQUIRE((*r.value)->cluster.has_value());
    CHECK((*r.value)->cluster->dims == tile::Dim3{16, 1, 1});
    CHECK((*r.value)->cluster->non_portable);
  }
}

TEST_CASE("cluster: lowered for sm_90 with .reqnctapercluster and the cluster registers" *
          doctest::test_suite("ptxas")) {
  struct Case {
    std::string grid, cluster, index, directive;
    std::vector<std::string> registers;
  };
  const std::vector<Case> cases = {
      {"8",
       "2",
       "cluster_id * cluster_size + cluster_rank",
       ".reqnctapercluster 2, 1, 1",
       {"%cluster_ctarank", "%clusterid.x"}},
      // A grid of 2 x 2 clusters: cluster_id is %clusterid.x + 2 * %clusterid.y.
      {"[4, 4]",
       "[2, 2]",
       "cluster_id * 4 + cluster_rank",
       ".reqnctapercluster 2, 2, 1",
       {"%cluster_ctarank", "%clusterid.x", "%clusterid.y"}},
      {"32",
       "16",
       "ncluster * cluster_rank + cluster_id",
       ".reqnctapercluster 16, 1, 1",
       {"%cluster_ctarank", "%clusterid.x"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.cluster);
    const std::string more = c.cluster == "16" ? "cluster_non_portable = true\n" : "";
    auto m = lower_text(spec(c.grid, c.cluster, c.index, more), own_target());
    INFO(m.diagnostics.format_all());
    REQUIRE(m.value.has_value());
    CHECK(m->target.sm == 90);
    const std::string text = ptx::print(*m);
    INFO(text);
    CHECK(text.find(c.directive + "\n") != std::string::npos);
    for (const auto& r : c.registers)
      CHECK(text.find(r + ";") != std::string::npos);
    // The sizes are launch constants: no register reads them.
    CHECK(text.find("%cluster_nctarank") == std::string::npos);
    CHECK(text.find("%nclusterid") == std::string::npos);
    assembles(*m);
  }
}

TEST_CASE("cluster: a PTX target older than sm_90 is refused at the key") {
  lower::LowerOptions old;
  old.target = {80, false}; // pinned, as `--target sm_80` pins it
  auto m = lower_text(spec("8", "2"), old);
  REQUIRE_FALSE(m.value.has_value());
  INFO(m.diagnostics.format_all());
  bool found = false;
  for (const auto& d : m.diagnostics.items())
    found = found || (d.id == DiagId::contract_cluster_target && d.line == 5 && d.column == 11);
  CHECK(found);
  // The run's target is not the PTX's: an sm_80 run of PTX raised to sm_90 is the run's affair.
  lower::LowerOptions run80 = own_target();
  run80.run_target = ptx::Target{80, false};
  CHECK(lower_text(spec("8", "2"), run80).value.has_value());
}

TEST_CASE("cluster: the printer writes what the reader reads, and the launch carries it") {
  auto k = driver::load_spec_text(spec("[4, 4]", "[2, 2]", "bid", "cluster_non_portable = true\n"),
                                  "k.toml");
  REQUIRE(k.value.has_value());
  const std::string toml = api::to_spec_toml(**k);
  CHECK(toml.find("cluster = [2, 2, 1]\ncluster_non_portable = true\n") != std::string::npos);
  auto again = driver::load_spec_text(toml, "again.toml");
  REQUIRE(again.value.has_value());
  REQUIRE((*again)->cluster.has_value());
  CHECK((*again)->cluster->dims == tile::Dim3{2, 2, 1});
  CHECK((*again)->cluster->non_portable);

  // The request the CUDA runner launches (cuLaunchKernelEx's cluster dimension), through the
  // isolated worker's encoding.
  const auto binding = driver::own_binding(**k, ptx::Target{90, false});
  const auto q = driver::launch_request(**k, binding, {{"A", {}}, {"B", {}}});
  CHECK(q.cluster.x == 2);
  CHECK(q.cluster.y == 2);
  CHECK(q.cluster.z == 1);
  CHECK(q.cluster_non_portable);
  const auto d = driver::cuda::decode_request(driver::cuda::encode_request(q));
  REQUIRE(d.has_value());
  CHECK(d->cluster.count() == 4);
  CHECK(d->cluster_non_portable);
}

TEST_CASE("cluster: a cluster barrier orders the global accesses of its CTAs only") {
  // CTA 0 writes bytes 0..15, then CTA 1 reads them; `barriers` cluster barriers of CTA 1
  // before its read (CTA 0 passes the same ones after its write).
  const auto run = [](std::int64_t cluster0, std::int64_t cluster1, int barriers) {
    driver::ref::GridRaces races;
    races.begin_cta(0, cluster0);
    races.access(0, true, 0, 16, 1, 3);
    for (int i = 0; i < barriers; ++i)
      races.cluster_barrier();
    races.end_cta();
    races.begin_cta(1, cluster1);
    for (int i = 0; i < barriers; ++i)
      races.cluster_barrier();
    races.access(0, false, 8, 4, 2, 5);
    races.end_cta();
    return races.first_race();
  };
  CHECK_FALSE(run(0, 0, 1).has_value()); // one cluster, a barrier between
  const auto none = run(0, 0, 0);        // one cluster, no barrier
  REQUIRE(none.has_value());
  CHECK(none->same_cluster);
  CHECK(none->byte == 8);
  CHECK(none->access.tid == 5);
  CHECK(none->other.tid == 3);
  const auto apart = run(0, 1, 1); // two clusters: their barriers order nothing between them
  REQUIRE(apart.has_value());
  CHECK_FALSE(apart->same_cluster);
}

} // namespace unit_cluster_launch
