// Mutation tests of a pipelined PTX LOOP: tests/data/sim/pipeline_loop.ptx is
// a hand-written 3-stage cp.async pipeline over a runtime number of K tiles
// (ptxas checks it: ptxas.sim_input.pipeline_loop). Unmutated it copies each
// tile with its rows rotated by one for every K, including K = 1 and K < S-1;
// each mutation (trip count off by one either way, wait S-1, a dropped
// barrier, a wrong stage rotation) must be caught by the simulator: a race,
// a fault or a wrong result. Expected threads, lines (by `// @name` markers)
// and iterations are worked out by hand from the file's text.

#include "driver/sim/simulator.hpp"
#include "mutation_harness.hpp"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_mutation_pipeline_loop {

namespace {

using namespace ptxgen::test::mutation;
using namespace ptxgen::sim;

constexpr std::uint64_t in_base = 0x100000;
constexpr std::uint64_t out_base = 0x200000;
constexpr std::uint32_t rows = 64, row_bytes = 16, tile_bytes = rows * row_bytes;
constexpr std::uint8_t sentinel = 0xEE;

std::string pipeline_ptx() {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/tests/data/sim/pipeline_loop.ptx");
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::uint32_t line_of(const std::string& text, const std::string& marker) {
  const std::string needle = "// @" + marker;
  REQUIRE(count_of(text, needle) == 1);
  std::uint32_t line = 1;
  for (std::size_t i = 0, at = text.find(needle); i < at; ++i)
    line += text[i] == '\n';
  return line;
}

struct Run {
  std::vector<std::uint8_t> in, out;
  SimResult result;
};

Run run_pipeline(const std::string& ptx, std::uint32_t k_tiles) {
  Run r;
  r.in.resize(std::size_t{k_tiles} * tile_bytes);
  for (std::size_t i = 0; i < r.in.size(); ++i)
    r.in[i] = static_cast<std::uint8_t>(i % 251);
  r.out.assign(r.in.size(), sentinel);
  std::vector<GlobalBuffer> mem = {{in_base, &r.in, "in"}, {out_base, &r.out, "out"}};
  Launch l;
  l.block_dim = {rows, 1, 1};
  l.params = {in_base, out_base, k_tiles};
  r.result = run(ptx, "pipeline", l, mem);
  return r;
}

/// out row t of tile k is in row (t + 1) % 64 of tile k, for the first `tiles` tiles.
bool rotated(const Run& r, std::uint32_t tiles) {
  for (std::uint32_t k = 0; k < tiles; ++k)
    for (std::uint32_t t = 0; t < rows; ++t)
      for (std::uint32_t b = 0; b < row_bytes; ++b)
        if (r.out[k * tile_bytes + t * row_bytes + b] !=
            r.in[k * tile_bytes + (t + 1) % rows * row_bytes + b])
          return false;
  return true;
}

const Race& race_of(const Run& r, RaceKind kind) {
  REQUIRE(r.result.fault);
  INFO(name(r.result.fault->kind) << ": " << r.result.fault->message);
  REQUIRE(r.result.fault->kind == FaultKind::race);
  REQUIRE(r.result.fault->race);
  CHECK(r.result.fault->race->kind == kind);
  return *r.result.fault->race;
}

} // namespace

TEST_CASE("pipeline loop: unmutated, every K from 1 (K < S-1) to 9 gives the rotated tiles") {
  const std::string ptx = pipeline_ptx();
  for (std::uint32_t k_tiles = 1; k_tiles <= 9; ++k_tiles) {
    CAPTURE(k_tiles);
    Run r = run_pipeline(ptx, k_tiles);
    REQUIRE_MESSAGE(!r.result.fault, r.result.fault->message);
    CHECK(r.result.warnings.empty());
    CHECK(rotated(r, k_tiles));
  }
}

TEST_CASE("pipeline loop: one trip too many stores past the output") {
  const std::string ptx = pipeline_ptx();
  auto mutant = mutate(ptx, "setp.lt.u32 %p5, %r7, %r1;", "setp.le.u32 %p5, %r7, %r1;");
  for (std::uint32_t k_tiles : {1u, 2u, 5u}) {
    CAPTURE(k_tiles);
    // Trip K+1 reads a stale (or never written) stage, with no race, and
    // stores out tile K, one past `out`.
    Run r = run_pipeline(mutant, k_tiles);
    REQUIRE(r.result.fault);
    CHECK(r.result.fault->kind == FaultKind::illegal_address);
    CHECK(r.result.fault->ptx_line == line_of(ptx, "store"));
    CHECK(rotated(r, k_tiles)); // the K real trips were right
  }
}

TEST_CASE("pipeline loop: one trip too few leaves the last tile unwritten") {
  const std::string ptx = pipeline_ptx();
  auto mutant = mutate(ptx, "setp.lt.u32 %p5, %r7, %r1;",
                       "add.u32 %r17, %r7, 1;\n\tsetp.lt.u32 %p5, %r17, %r1;");
  for (std::uint32_t k_tiles : {2u, 3u, 6u}) {
    CAPTURE(k_tiles);
    Run r = run_pipeline(mutant, k_tiles);
    REQUIRE_MESSAGE(!r.result.fault, r.result.fault->message);
    CHECK(rotated(r, k_tiles - 1));
    CHECK(!rotated(r, k_tiles));
    for (std::uint32_t b = 0; b < tile_bytes; ++b)
      CHECK(r.out[(k_tiles - 1) * tile_bytes + b] == sentinel);
  }
}

TEST_CASE("pipeline loop: wait_group 2 (S-1) reads a pending tile in the first trip") {
  const std::string ptx = pipeline_ptx();
  Run r = run_pipeline(mutate(ptx, "cp.async.wait_group 1;", "cp.async.wait_group 2;"), 5);
  // Thread 0 reads row 1 of stage 0: thread 1's copy of tile 0 is pending.
  const Race& race = race_of(r, RaceKind::read_in_flight);
  CHECK(race.access.tid == 0);
  CHECK(race.access.ptx_line == line_of(ptx, "read"));
  CHECK(race.access.iteration == 1);
  CHECK(race.symbol == "stages");
  CHECK(race.offset == row_bytes);
  CHECK(race.other.tid == 1);
}

TEST_CASE("pipeline loop: a dropped barrier is a write-after-read race") {
  const std::string ptx = pipeline_ptx();
  const std::string mutant = drop_line(ptx, "// @barrier");
  Run r = run_pipeline(mutant, 5);
  // With no barrier at all, thread 0 runs every trip alone: it reads its
  // neighbour's rows before thread 1 has issued anything (stage 0 row 1 last
  // in trip 4), and then thread 1's first copy writes that row.
  const Race& race = race_of(r, RaceKind::write_after_read);
  CHECK(race.access.tid == 1);
  CHECK(race.access.ptx_line == line_of(mutant, "tile0"));
  CHECK(race.access.iteration == 1);
  CHECK(race.offset == row_bytes);
  CHECK(race.other.tid == 0);
  CHECK(race.other.ptx_line == line_of(mutant, "read")); // one line up: the barrier is gone
  CHECK(race.other.iteration == 4);
}

TEST_CASE("pipeline loop: refilling stage (k+1) % 3 instead of (k+2) % 3 overlaps a pending copy") {
  const std::string ptx = pipeline_ptx();
  Run r = run_pipeline(mutate(ptx, "mov.u32 %r9, 2048;", "mov.u32 %r9, 1024;"), 5);
  // Trip 1 copies tile 2 into stage 1, where the thread's own tile 1 is pending.
  const Race& race = race_of(r, RaceKind::pending_copies);
  CHECK(race.access.tid == 0);
  CHECK(race.access.ptx_line == line_of(ptx, "refill"));
  CHECK(race.access.iteration == 1);
  CHECK(race.offset == tile_bytes);
  CHECK(race.other.tid == 0);
  CHECK(race.other.ptx_line == line_of(ptx, "tile1"));
}

TEST_CASE("pipeline loop: a read stage that wraps to stage 1 races in trip 4, not before") {
  const std::string ptx = pipeline_ptx();
  Run r = run_pipeline(mutate(ptx, "@%p3 mov.u32 %r8, 0;", "@%p3 mov.u32 %r8, 1024;"), 5);
  // Trips 1-3 read stages 0, 1, 2; trip 4 should read stage 0 but reads stage
  // 1, whose refill with tile 4 (trip 3's) is the one group wait_group 1 left
  // pending: thread 0 reads row 1, thread 1's copy.
  const Race& race = race_of(r, RaceKind::read_in_flight);
  CHECK(race.access.tid == 0);
  CHECK(race.access.ptx_line == line_of(ptx, "read"));
  CHECK(race.access.iteration == 4);
  CHECK(race.offset == tile_bytes + row_bytes);
  CHECK(race.other.tid == 1);
  CHECK(race.other.ptx_line == line_of(ptx, "refill"));
  CHECK(race.other.iteration == 3);
  CHECK(rotated(r, 3)); // trips 1-3 were right
}

} // namespace unit_mutation_pipeline_loop
