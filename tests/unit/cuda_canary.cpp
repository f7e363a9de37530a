// Guard canaries around device buffers: the pure host-side fill and check
// (driver/cuda/canary.hpp). Expected damage is worked out by hand from where
// each test writes.

#include "driver/cuda/canary.hpp"

#include <cstdint>
#include <stdexcept>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_cuda_canary {

using namespace ptxgen::driver::cuda;

namespace {

std::vector<std::uint8_t> iota_bytes(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = static_cast<std::uint8_t>(i);
  }
  return v;
}

} // namespace

TEST_CASE("guard sizes round up to 256 so the data stays 256-byte aligned") {
  CHECK(round_guard_bytes(0) == 0);
  CHECK(round_guard_bytes(1) == 256);
  CHECK(round_guard_bytes(255) == 256);
  CHECK(round_guard_bytes(256) == 256);
  CHECK(round_guard_bytes(257) == 512);
  CHECK(round_guard_bytes(1000) == 1024);
}

TEST_CASE("canary bytes are never zero or 0xFF and change with position and side") {
  for (std::size_t i = 0; i < 4096; ++i) {
    for (GuardSide side : {GuardSide::before, GuardSide::after}) {
      const std::uint8_t b = canary_byte(side, i);
      CHECK(b != 0x00);
      CHECK(b != 0xFF);
      CHECK(b != canary_byte(side, i + 1)); // a one-byte shift changes every byte
    }
    CHECK(canary_byte(GuardSide::before, i) != canary_byte(GuardSide::after, i));
  }
}

TEST_CASE("a guarded image is guard, data, guard") {
  const auto data = iota_bytes(40);
  const auto image = make_guarded_image(data, 256);
  REQUIRE(image.size() == 40 + 512);
  for (std::size_t i = 0; i < 40; ++i) {
    CHECK(image[256 + i] == static_cast<std::uint8_t>(i));
  }
  for (std::size_t i = 0; i < 256; ++i) {
    CHECK(image[i] == canary_byte(GuardSide::before, i));
    CHECK(image[256 + 40 + i] == canary_byte(GuardSide::after, i));
  }
}

TEST_CASE("an untouched image has no damage and returns its data") {
  const auto data = iota_bytes(100);
  const auto checked = check_guarded_image(make_guarded_image(data, 256), 100, 256);
  CHECK(checked.damage.empty());
  CHECK(checked.data == data);
}

TEST_CASE("changes inside the data are not damage") {
  auto image = make_guarded_image(iota_bytes(64), 256);
  for (std::size_t i = 256; i < 256 + 64; ++i) {
    image[i] = 0;
  }
  const auto checked = check_guarded_image(image, 64, 256);
  CHECK(checked.damage.empty());
  CHECK(checked.data == std::vector<std::uint8_t>(64, 0));
}

TEST_CASE("16 bytes written past the end: +0 to +15") {
  auto image = make_guarded_image(iota_bytes(2048), 256);
  for (std::size_t i = 0; i < 16; ++i) {
    image[256 + 2048 + i] = 0x00; // a zero-filled chunk just past the end
  }
  const auto checked = check_guarded_image(image, 2048, 256);
  REQUIRE(checked.damage.size() == 1);
  CHECK(checked.damage[0] == GuardDamage{GuardSide::after, 16, 0, 15});
  CHECK(describe_damage("B", checked.damage[0]) ==
        "B: 16 bytes after the end overwritten (first at +0, last at +15)");
  CHECK(checked.data == iota_bytes(2048)); // the output itself looks right
}

TEST_CASE("one byte just below the data: -1") {
  auto image = make_guarded_image(iota_bytes(8), 256);
  image[255] = 0x42;
  const auto checked = check_guarded_image(image, 8, 256);
  REQUIRE(checked.damage.size() == 1);
  CHECK(checked.damage[0] == GuardDamage{GuardSide::before, 1, -1, -1});
  CHECK(describe_damage("A", checked.damage[0]) ==
        "A: 1 byte before the start overwritten (first at -1, last at -1)");
}

TEST_CASE("damage on both sides, scattered, is counted per side") {
  auto image = make_guarded_image(iota_bytes(32), 512);
  image[0] = 0x00;              // -512
  image[500] = 0x00;            // -12
  image[512 + 32 + 3] = 0x00;   // +3
  image[512 + 32 + 100] = 0x00; // +100
  image[512 + 32 + 511] = 0x00; // +511, the very last byte
  const auto checked = check_guarded_image(image, 32, 512);
  REQUIRE(checked.damage.size() == 2);
  CHECK(checked.damage[0] == GuardDamage{GuardSide::before, 2, -512, -12});
  CHECK(checked.damage[1] == GuardDamage{GuardSide::after, 3, 3, 511});
  CHECK(describe_damage("T", checked.damage[1]) ==
        "T: 3 bytes after the end overwritten (first at +3, last at +511)");
}

TEST_CASE("a guard shifted by one byte is caught everywhere it moved") {
  auto image = make_guarded_image(iota_bytes(16), 256);
  const std::size_t after = 256 + 16;
  for (std::size_t i = 0; i + 1 < 256; ++i) {
    image[after + i] = image[after + i + 1];
  }
  const auto checked = check_guarded_image(image, 16, 256);
  REQUIRE(checked.damage.size() == 1);
  // Bytes +0..+254 moved; +255 kept its own value.
  CHECK(checked.damage[0] == GuardDamage{GuardSide::after, 255, 0, 254});
}

TEST_CASE("no guards: nothing to damage") {
  const auto data = iota_bytes(5);
  const auto image = make_guarded_image(data, 0);
  CHECK(image == data);
  const auto checked = check_guarded_image(image, 5, 0);
  CHECK(checked.damage.empty());
  CHECK(checked.data == data);
}

TEST_CASE("an image of the wrong size is rejected") {
  const auto image = make_guarded_image(iota_bytes(10), 256);
  CHECK_THROWS_AS(check_guarded_image(image, 11, 256), std::invalid_argument);
  CHECK_THROWS_AS(check_guarded_image(image, 10, 0), std::invalid_argument);
}

} // namespace unit_cuda_canary
