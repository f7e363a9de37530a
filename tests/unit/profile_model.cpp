// The memory-efficiency models (driver/sim/profile.hpp) on warp requests whose
// costs are worked out by hand here: bank = (byte address / 4) % 32; a phase
// is 32 lanes for accesses up to 4 bytes, 16 for 8 bytes, 8 for 16 bytes; a
// sector is 32 bytes.

#include "driver/sim/profile.hpp"

#include <cstdint>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_profile_model {

using namespace ptxgen::sim;

namespace {

/// Lanes first..last-1, lane l at base + stride * l, `bytes` each.
std::vector<LaneAccess> lanes(std::uint64_t base, std::uint64_t stride, std::uint32_t bytes,
                              std::uint32_t first = 0, std::uint32_t last = 32) {
  std::vector<LaneAccess> v;
  for (std::uint32_t l = first; l < last; ++l)
    v.push_back({l, base + stride * l, bytes});
  return v;
}

} // namespace

TEST_CASE("a row of 32 consecutive words is one wavefront, conflict-free") {
  const auto c = shared_request_cost(lanes(0, 4, 4));
  CHECK(c.phases == 1);
  CHECK(c.wavefronts == 1);
  CHECK(c.ways == 1);
  CHECK(c.conflicts() == 0);
}

TEST_CASE("a column with a stride of 32 words puts every lane in bank 0: 32-way") {
  const auto c = shared_request_cost(lanes(0, 128, 4));
  CHECK(c.phases == 1);
  CHECK(c.wavefronts == 32);
  CHECK(c.ways == 32);
  CHECK(c.conflicts() == 31);
}

TEST_CASE("a stride of 2 words uses the 16 even banks twice: 2-way") {
  const auto c = shared_request_cost(lanes(0, 8, 4));
  CHECK(c.wavefronts == 2);
  CHECK(c.ways == 2);
}

TEST_CASE("a stride of 33 words (a padded column) is conflict-free") {
  CHECK(shared_request_cost(lanes(0, 132, 4)).wavefronts == 1);
}

TEST_CASE("lanes reading one word share it (broadcast); 2-byte halves of a word too") {
  CHECK(shared_request_cost(lanes(64, 0, 4)).wavefronts == 1);
  CHECK(shared_request_cost(lanes(0, 2, 2)).wavefronts == 1); // 64 bytes: words 0..15
}

TEST_CASE("16-byte accesses go by quarter-warps: consecutive chunks take 4 wavefronts, no "
          "conflict") {
  const auto c = shared_request_cost(lanes(0, 16, 16));
  CHECK(c.phases == 4);
  CHECK(c.wavefronts == 4);
  CHECK(c.conflicts() == 0);
}

TEST_CASE("16-byte accesses 32 bytes apart: each quarter-warp spans 256 bytes, 2-way") {
  const auto c = shared_request_cost(lanes(0, 32, 16));
  CHECK(c.phases == 4);
  CHECK(c.wavefronts == 8);
  CHECK(c.ways == 2);
  CHECK(c.conflicts() == 4);
}

TEST_CASE("16-byte accesses 128 bytes apart: 8 lanes of a phase in banks 0..3: 8-way") {
  const auto c = shared_request_cost(lanes(0, 128, 16));
  CHECK(c.wavefronts == 32); // 4 phases of 8
  CHECK(c.ways == 8);
}

TEST_CASE("8-byte accesses go by half-warps") {
  CHECK(shared_request_cost(lanes(0, 8, 8)).wavefronts == 2);
  const auto c = shared_request_cost(lanes(0, 16, 8)); // each half-warp spans 256 bytes
  CHECK(c.phases == 2);
  CHECK(c.wavefronts == 4);
}

TEST_CASE("inactive lanes: only phases with an active lane count") {
  const auto c = shared_request_cost(lanes(0, 16, 16, 0, 8));
  CHECK(c.phases == 1);
  CHECK(c.wavefronts == 1);
  CHECK(shared_request_cost({}).wavefronts == 0);
}

TEST_CASE("a coalesced 128-byte warp read is 4 sectors; a strided one 32") {
  const std::uint64_t base = 0x10000;
  CHECK(global_request_sectors(lanes(base, 4, 4)) == 4);
  CHECK(global_ideal_sectors(lanes(base, 4, 4)) == 4);
  CHECK(global_request_sectors(lanes(base, 128, 4)) == 32);
  CHECK(global_ideal_sectors(lanes(base, 128, 4)) == 4);
  CHECK(global_request_sectors(lanes(base + 4, 4, 4)) == 5); // not sector-aligned
  CHECK(global_request_sectors(lanes(base, 16, 16)) == 16);  // 512 bytes
  CHECK(global_request_sectors(lanes(base, 0, 4)) == 1);     // one word for all
  CHECK(global_ideal_sectors(lanes(base, 0, 4)) == 1);
}

} // namespace unit_profile_model
