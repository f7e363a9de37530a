// The loop body of a persistent bulk ring (emitter/lower: select_addresses.cpp,
// select_inductions.cpp, strength.cpp): what the ring lowering keeps in registers across
// iterations and what it computes per iteration. The kernel is tests/data/rings/
// ring4_ahead2.toml, the 4-stage ring loading 2 tiles ahead of specs/bulk/ring_ahead2.toml,
// lowered for sm_90 with its contract checked.

#include "lower_harness.hpp"
#include "sim_test_data.hpp"

#include <string>

namespace unit_lower_rings {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

lower::LowerOptions sm90() {
  lower::LowerOptions o;
  o.target = {90, false};
  return o;
}

/// The lines from the ring loop's label to its back branch, both included.
std::string loop_body(const std::string& spec) {
  auto m = lower_text(spec, sm90());
  INFO(m.diagnostics.format_all());
  REQUIRE(m.value.has_value());
  std::string all;
  for (const auto& i : m.value->entries.front().body)
    all += ptx::print(i) + "\n";
  INFO(all);
  const auto head = all.find("$L_t_0:");
  REQUIRE(head != std::string::npos);
  const auto back = all.find("bra.uni $L_t_0;", head);
  REQUIRE(back != std::string::npos);
  return all.substr(head, all.find('\n', back) + 1 - head);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("a ring's CTA-uniform global addresses: mul.wide.u32 and add.s64, no mad.wide") {
  const std::string body = loop_body(test::read_test_data("rings", "ring4_ahead2.toml"));
  INFO(body);
  // The tile load's source and the tile store's destination, each from the counter.
  CHECK(count(body, "mul.wide.u32 %rd") == 2);
  CHECK(count(body, "add.s64 %rd") == 2);
  CHECK(count(body, "mad.wide") == 0);
}

} // namespace unit_lower_rings
