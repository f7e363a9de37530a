// cluster_sync, the op added through emitter/tile/ops.def alone in the doors: read from a spec,
// written back by to_toml, lowered to barrier.cluster.arrive{.relaxed} + barrier.cluster.wait
// (PTX ISA 7.8 / 8.0 for `.relaxed`, sm_90), assembled by ptxas for sm_90, and refused for
// sm_80 by the feature table. Expected lines are written from the PTX ISA's forms.

#include "driver/ptxas/ptxas.hpp"
#include "driver/run/to_toml.hpp"
#include "emitter/ptx/validator.hpp"
#include "lower_harness.hpp"

#include <string>

namespace unit_lower_cluster_sync {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

std::string spec(std::string_view keys = {}) {
  return std::string(kWarp) + "\n[[op]]\nop = \"cluster_sync\"\n" + std::string(keys);
}

lower::LowerOptions for_target(int sm) {
  lower::LowerOptions o;
  o.target = {sm, false};
  return o;
}

} // namespace

TEST_CASE("cluster_sync: barrier.cluster.arrive then barrier.cluster.wait, for sm_90" *
          doctest::test_suite("ptxas")) {
  for (const bool relaxed : {false, true}) {
    CAPTURE(relaxed);
    auto m = lower_text(spec(relaxed ? "relaxed = true\n" : ""), for_target(90));
    INFO(m.diagnostics.format_all());
    REQUIRE(m.value.has_value());
    CHECK(m.diagnostics.items().empty());
    CHECK(instructions(*m) ==
          std::string(relaxed ? "barrier.cluster.arrive.relaxed;\n" : "barrier.cluster.arrive;\n") +
              "barrier.cluster.wait;\nret;\n");
    // `.relaxed` is PTX 8.0; the plain forms 7.8.
    CHECK(ptx::required_version(*m) == (relaxed ? ptx::PtxVersion{8, 0} : ptx::PtxVersion{7, 8}));
    assembles(*m);
  }
}

TEST_CASE("cluster_sync: below sm_90 the feature table refuses it; raised, it is sm_90") {
  auto low = lower_text(spec(), for_target(80));
  CHECK_FALSE(low.value.has_value());
  bool target = false;
  for (const auto& d : low.diagnostics.items())
    target = target || d.id == DiagId::ptx_feature_target;
  INFO(low.diagnostics.format_all());
  CHECK(target);

  lower::LowerOptions raised = for_target(80);
  raised.raise_target = true;
  auto m = lower_text(spec(), raised);
  INFO(m.diagnostics.format_all());
  REQUIRE(m.value.has_value());
  CHECK(m->target.sm == 90);
}

TEST_CASE("cluster_sync: the printer writes what the reader reads") {
  for (const bool relaxed : {false, true}) {
    auto k = driver::load_spec_text(spec(relaxed ? "relaxed = true\n" : ""), "k.toml");
    REQUIRE(k.value.has_value());
    const std::string toml = api::to_spec_toml(**k);
    CHECK(toml.find(relaxed ? "op = \"cluster_sync\"\nrelaxed = true\n"
                            : "op = \"cluster_sync\"\nrelaxed = false\n") != std::string::npos);
    auto again = driver::load_spec_text(toml, "again.toml");
    REQUIRE(again.value.has_value());
    const auto& op = std::get<tile::ClusterSyncOp>((*again)->ops.back().body);
    CHECK(op.relaxed == relaxed);
  }
  // A word where a flag goes is refused at the value, as every flag of the table is.
  auto bad = driver::load_spec_text(spec("relaxed = \"yes\"\n"), "bad.toml");
  CHECK_FALSE(bad.value.has_value());
}

} // namespace unit_lower_cluster_sync
