// The cluster's scheduler (driver/sim/cluster.cpp): CTAs run in rounds, each CTA a pass over its
// threads, and a CTA's pass can release the threads of a CTA whose pass in the round is already
// over (tests/data/sim_cluster/late_release.ptx, which ptxas checks). Expected values come from
// the kernel's stated contents; checks key on FaultKind, never on message text.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace unit_sim_cluster_rounds {

using namespace ptxgen::sim;
using ptxgen::test::word_at;

TEST_CASE("a cluster barrier phase completed by a later CTA's pass releases the earlier CTAs") {
  constexpr std::uint64_t in_base = 0x10000;
  constexpr std::uint64_t out_base = 0x40000;
  std::vector<std::uint8_t> in(256), out(4 * 32 * 4, 0xEE);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<std::uint8_t>(i * 7 + 3);
  std::vector<GlobalBuffer> mem{{in_base, &in, "in"}, {out_base, &out, "out"}};
  Launch l;
  l.grid_dim = {4, 1, 1}; // two clusters of 2
  l.block_dim = {32, 1, 1};
  l.params = {in_base, out_base};
  const SimResult r =
      run(ptxgen::test::read_test_data("sim_cluster", "late_release.ptx"), "late_release", l, mem);
  INFO((r.fault ? std::string(name(r.fault->kind)) + ": " + r.fault->message : std::string()));
  REQUIRE_FALSE(r.fault.has_value());
  for (std::uint32_t bid = 0; bid < 4; ++bid) {
    for (std::uint32_t tid = 0; tid < 32; ++tid)
      CHECK(word_at(out, bid * 32 + tid) == word_at(in, tid) + 1000 * (bid % 2) + 1);
  }
}

} // namespace unit_sim_cluster_rounds
