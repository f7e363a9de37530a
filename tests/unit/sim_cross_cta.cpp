// The simulator's races between CTAs on global memory (driver/sim/cross_cta.hpp), on
// tests/data/sim/cross_cta.ptx and, for bulk stores, tests/data/sim_mbarrier/bulk_global.ptx
// (ptxas checks both). Expected lines come from the tags, CTAs and threads from the kernels'
// stated accesses. Checks key on FaultKind / RaceKind, never on message text.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_cross_cta {

using namespace ptxgen::sim;
using ptxgen::test::tagged_line;
using ptxgen::test::word_at;

namespace {

constexpr std::uint64_t a_base = 0x10000;
constexpr std::uint64_t b_base = 0x40000;
constexpr std::uint32_t ctas = 4;

struct Memory {
  std::vector<std::uint8_t> a = std::vector<std::uint8_t>(8192, 0),
                            b = std::vector<std::uint8_t>(128 * (ctas + 1), 0);
  std::vector<GlobalBuffer> buffers{{a_base, &a, "A"}, {b_base, &b, "B"}};
};

SimResult launch(const std::string& ptx, const std::string& entry, Memory& m, unsigned workers,
                 Observer* o = nullptr, std::vector<std::uint64_t> params = {a_base, b_base}) {
  Launch l;
  l.grid_dim = {ctas, 1, 1};
  l.block_dim = {32, 1, 1};
  l.params = std::move(params);
  l.workers = workers;
  l.observer = o;
  return run(ptx, entry, l, m.buffers);
}

std::string data() {
  return ptxgen::test::read_test_data("sim", "cross_cta.ptx");
}

/// A cross-CTA race of `kind`: CTA 1 thread `tid` at the line tagged `at` against CTA 0 thread
/// `tid` at the line tagged `other` (CTAs are compared in linear order).
void require_cross(const Fault& f, RaceKind kind, const std::string& text, const std::string& at,
                   const std::string& other, std::int64_t tid) {
  ptxgen::test::require_race_at(f, kind, text, at, other);
  CHECK(f.bid == 1);
  CHECK(f.tid == tid);
  CHECK(f.race->symbol == "B");
  CHECK(f.race->access.iteration == 1);
  CHECK(f.race->other.bid == 0);
  CHECK(f.race->other.tid == tid);
  CHECK(f.race->other.iteration == 1);
}

} // namespace

TEST_CASE("cross_cta.ptx: CTAs on their own bytes, or ordered by nothing but atomics, are clean") {
  const std::string text = data();
  for (unsigned workers : {1u, 4u}) {
    INFO("workers " << workers);
    Memory m;
    for (std::size_t i = 0; i < m.a.size(); ++i)
      m.a[i] = static_cast<std::uint8_t>(i * 5 + 1);
    const SimResult r = launch(text, "own_slice", m, workers);
    INFO((r.fault ? r.fault->message : std::string()));
    REQUIRE_FALSE(r.fault.has_value());
    for (std::size_t i = 0; i < 32 * ctas; ++i)
      REQUIRE(word_at(m.b, i) == word_at(m.a, i));
    Memory c;
    const SimResult rc = launch(text, "counter", c, workers);
    INFO((rc.fault ? rc.fault->message : std::string()));
    REQUIRE_FALSE(rc.fault.has_value());
    CHECK(word_at(c.a, 1024) == 32 * ctas);
    CHECK(word_at(c.b, 32 * ctas - 1) == 32 * ctas - 1);
  }
}

TEST_CASE("cross_cta.ptx: two CTAs storing the same bytes race, whatever the host threads") {
  const std::string text = data();
  for (unsigned workers : {1u, 4u}) {
    INFO("workers " << workers);
    Memory m;
    const SimResult r = launch(text, "same_bytes", m, workers);
    REQUIRE(r.fault.has_value());
    require_cross(*r.fault, RaceKind::cross_cta, text, "bid_store", "bid_store", 0);
  }
}

TEST_CASE("cross_cta.ptx: a CTA reading what another wrote races") {
  const std::string text = data();
  Memory m;
  const SimResult r = launch(text, "shift", m, 4);
  REQUIRE(r.fault.has_value());
  require_cross(*r.fault, RaceKind::cross_cta, text, "shift_ld", "shift_st", 0);
}

TEST_CASE("cross_cta.ptx: the same values from every CTA are a note for an observer only") {
  const std::string text =
      ptxgen::test::replace_tagged_line(data(), "bid_store", "\tst.global.u32 [%rd5], %r1;");
  Memory m;
  const SimResult r = launch(text, "same_bytes", m, 4);
  INFO((r.fault ? r.fault->message : std::string()));
  REQUIRE_FALSE(r.fault.has_value());
  CHECK(word_at(m.b, 31) == 31);
  Observer o;
  Memory seen;
  REQUIRE_FALSE(launch(text, "same_bytes", seen, 1, &o).fault.has_value());
  REQUIRE(o.races.size() == 1);
  CHECK(o.races[0].race->kind == RaceKind::cross_cta_same_value);
  CHECK(o.races[0].bid == 1);
  CHECK(o.race_hits[0] == ctas - 1); // CTAs 1, 2 and 3 against CTA 0
}

TEST_CASE("bulk_global.ptx readback on two CTAs: a bulk store over bytes another CTA read") {
  const std::string text = ptxgen::test::read_test_data("sim_mbarrier", "bulk_global.ptx");
  Memory m;
  Launch l;
  l.grid_dim = {2, 1, 1};
  l.block_dim = {32, 1, 1};
  l.params = {b_base};
  l.workers = 2;
  std::vector<std::uint8_t> b(640, 0);
  std::vector<GlobalBuffer> buffers{{b_base, &b, "B"}};
  const SimResult r = run(text, "readback", l, buffers);
  REQUIRE(r.fault.has_value());
  INFO(r.fault->message);
  REQUIRE(r.fault->race);
  // CTA 1's bulk store (the same values as CTA 0's: a note, no fault) writes bytes CTA 0's
  // threads read back.
  CHECK(r.fault->race->kind == RaceKind::cross_cta);
  CHECK(r.fault->bid == 1);
  CHECK(r.fault->tid == 0);
  CHECK(r.fault->race->access.ptx_line == tagged_line(text, "store"));
  CHECK(r.fault->race->other.bid == 0);
  CHECK(r.fault->race->other.tid == 0);
  CHECK(r.fault->race->other.ptx_line == tagged_line(text, "gread"));
}

} // namespace unit_sim_cross_cta
