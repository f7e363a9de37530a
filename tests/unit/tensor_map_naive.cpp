// The tile layer's tensor-map addressing (emitter/tile/tensor_map) against the reference's
// naive model (driver/reference/tensor_map_naive), element by element, over many maps of
// every rank, dtype size and swizzle mode, with boxes inside, across and outside the tensor.

#include "driver/reference/tensor_map_naive.hpp"

#include "emitter/tile/tensor_map.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_tensor_map_naive {

using namespace ptxgen;
using namespace ptxgen::tile;
using driver::naive_box_elements;
using driver::naive_swizzle;

namespace {

constexpr DType tmap_dtypes[] = {DType::uint8, DType::float16, DType::float32, DType::float64};
constexpr TensorMapSwizzle tmap_swizzles[] = {TensorMapSwizzle::none, TensorMapSwizzle::b32,
                                              TensorMapSwizzle::b64, TensorMapSwizzle::b128};

std::int64_t pick(std::mt19937& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

// A random valid map: inner box bytes 16..span (or 16..64 unswizzled), small outer boxes,
// global dims around the box sizes, rows padded by 0..2 granules.
TensorMapDesc random_map(std::mt19937& rng, TensorMapSwizzle swizzle) {
  TensorMapDesc m;
  m.tensor = "R";
  m.dtype = tmap_dtypes[pick(rng, 0, 3)];
  m.swizzle = swizzle;
  const std::int64_t esize = size_bytes(m.dtype);
  const auto rank = static_cast<std::size_t>(pick(rng, 1, 5));
  const std::int64_t span = row_of(swizzle_rows, swizzle).span_bytes;
  const std::int64_t max_granules = (span == 0 ? 64 : span) / 16;
  const std::int64_t inner_bytes = 16 * pick(rng, 1, max_granules);
  m.box_dims.assign(rank, 1);
  m.element_strides.assign(rank, 1);
  m.global_dims.assign(rank, 1);
  m.box_dims[rank - 1] = inner_bytes / esize;
  m.global_dims[rank - 1] = pick(rng, 1, 2 * m.box_dims[rank - 1] + 3);
  for (std::size_t k = 0; k + 1 < rank; ++k) {
    m.box_dims[k] = pick(rng, 1, rank > 3 ? 3 : 6);
    m.element_strides[k] = pick(rng, 1, 3);
    m.global_dims[k] = pick(rng, 1, 2 * m.box_dims[k] + 2);
  }
  m.global_strides.assign(rank - 1, 0);
  std::int64_t stride = m.global_dims[rank - 1] * esize;
  for (std::size_t k = rank - 1; k-- > 0;) {
    stride = (stride + 15) / 16 * 16 + 16 * pick(rng, 0, 2);
    m.global_strides[k] = stride;
    stride *= m.global_dims[k];
  }
  return m;
}

std::vector<std::int64_t> random_coords(std::mt19937& rng, const TensorMapDesc& m) {
  std::vector<std::int64_t> c(m.rank());
  for (std::size_t k = 0; k < m.rank(); ++k)
    c[k] = pick(rng, -m.box_dims[k], m.global_dims[k]);
  return c;
}

} // namespace

TEST_CASE("swizzle: the tile layer's bit form equals the naive line-and-chunk form") {
  for (const TensorMapSwizzle s : tmap_swizzles)
    for (std::int64_t offset = 0; offset < 4096; ++offset)
      REQUIRE(swizzle_offset(s, offset) == naive_swizzle(s, offset));
}

TEST_CASE("box_elements agrees with the naive model over many maps, loads and stores") {
  std::mt19937 rng(20261201); // fixed: the same maps every run
  std::int64_t elements = 0;
  std::int64_t spills = 0;
  std::int64_t outside = 0;
  for (const TensorMapSwizzle s : tmap_swizzles) {
    for (int trial = 0; trial < 150; ++trial) {
      const TensorMapDesc m = random_map(rng, s);
      REQUIRE(check_tensor_map(m).empty());
      const std::vector<std::int64_t> at = random_coords(rng, m);
      for (const TensorAccess access : {TensorAccess::load, TensorAccess::store}) {
        const std::vector<BoxElement> fast = box_elements(m, at, access);
        const std::vector<driver::NaiveBoxElement> slow = naive_box_elements(m, at, access);
        REQUIRE(fast.size() == slow.size());
        REQUIRE(static_cast<std::int64_t>(fast.size()) * size_bytes(m.dtype) == box_bytes(m));
        std::vector<std::int64_t> shared;
        for (std::size_t i = 0; i < fast.size(); ++i) {
          INFO("swizzle ", name(s), ", trial ", trial, ", element ", i);
          REQUIRE(fast[i].shared_offset == slow[i].shared_offset);
          REQUIRE(fast[i].place == slow[i].place);
          REQUIRE(fast[i].global_offset == slow[i].global_offset);
          shared.push_back(fast[i].shared_offset);
          spills += fast[i].place == BoxPlace::spill ? 1 : 0;
          outside += fast[i].place == BoxPlace::outside ? 1 : 0;
        }
        // The swizzle permutes: every element has a slot of its own inside the box's room.
        std::sort(shared.begin(), shared.end());
        CHECK(std::adjacent_find(shared.begin(), shared.end()) == shared.end());
        REQUIRE(shared_box_bytes(m) == driver::naive_shared_box_bytes(m));
        CHECK(shared.back() + size_bytes(m.dtype) <= shared_box_bytes(m));
        elements += static_cast<std::int64_t>(fast.size());
      }
    }
  }
  // The sample reaches every kind of element (a generator that drifted would show here).
  CHECK(elements > 10000);
  CHECK(spills > 0);
  CHECK(outside > 0);
}

TEST_CASE("a swizzled box narrower than its span is padded: 128B, 64-byte rows") {
  // Measured on the H200: 16 rows of 64 bytes under 128B swizzle; each row takes the whole
  // 128-byte span and 16-byte chunk j of row r lands at chunk j ^ (r % 8) of the row's span.
  TensorMapDesc m;
  m.tensor = "N";
  m.dtype = DType::uint8;
  m.swizzle = TensorMapSwizzle::b128;
  m.global_dims = {64, 64};
  m.global_strides = {64};
  m.box_dims = {16, 64};
  m.element_strides = {1, 1};
  REQUIRE(check_tensor_map(m).empty());
  CHECK(box_bytes(m) == 1024); // the transaction count
  CHECK(shared_box_bytes(m) == 2048);
  CHECK(driver::naive_shared_box_bytes(m) == 2048);
  const std::vector<std::int64_t> at = {0, 0};
  const std::vector<BoxElement> fast = box_elements(m, at, TensorAccess::load);
  const std::vector<driver::NaiveBoxElement> slow = naive_box_elements(m, at, TensorAccess::load);
  REQUIRE(fast.size() == 1024);
  REQUIRE(slow.size() == 1024);
  for (std::int64_t r = 0; r < 16; ++r)
    for (std::int64_t j = 0; j < 4; ++j)
      for (std::int64_t b = 0; b < 16; ++b) {
        const auto n = static_cast<std::size_t>(r * 64 + j * 16 + b);
        const std::int64_t want = r * 128 + (j ^ (r % 8)) * 16 + b;
        INFO("row ", r, ", chunk ", j, ", byte ", b);
        REQUIRE(fast[n].shared_offset == want);
        REQUIRE(slow[n].shared_offset == want);
      }
}

TEST_CASE("narrow swizzled rows by the rule: the row's room is the span, else its bytes") {
  // Only 128B with 64-byte rows was measured; the rest follows by the rule (a probe suite pins
  // them): a row narrower than the span takes the span.
  struct Case {
    TensorMapSwizzle swizzle;
    DType dtype;
    std::int64_t inner, pitch;
  };
  for (const Case& c : {Case{TensorMapSwizzle::b32, DType::uint8, 16, 32},
                        Case{TensorMapSwizzle::b64, DType::float16, 16, 64},
                        Case{TensorMapSwizzle::b64, DType::float32, 8, 64},
                        Case{TensorMapSwizzle::b128, DType::float64, 4, 128},
                        Case{TensorMapSwizzle::b128, DType::float16, 64, 128},
                        Case{TensorMapSwizzle::none, DType::uint8, 16, 16}}) {
    TensorMapDesc m;
    m.tensor = "R";
    m.dtype = c.dtype;
    m.swizzle = c.swizzle;
    m.global_dims = {8, 256};
    m.global_strides = {256 * size_bytes(c.dtype)};
    m.box_dims = {4, c.inner};
    m.element_strides = {1, 1};
    INFO("swizzle ", name(c.swizzle));
    REQUIRE(check_tensor_map(m).empty());
    CHECK(box_row_pitch(m) == c.pitch);
    CHECK(shared_box_bytes(m) == 4 * c.pitch);
    CHECK(driver::naive_shared_box_bytes(m) == 4 * c.pitch);
    CHECK(box_bytes(m) == 4 * c.inner * size_bytes(c.dtype));
  }
}

} // namespace unit_tensor_map_naive
