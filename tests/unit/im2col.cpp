// im2col tensor maps: the rules of emitter/tile/im2col.hpp, and its addressing
// (tile::im2col_elements) against walks worked out by hand from the ISA's "im2col mode" text
// and against the reference's separately written model (driver/reference/tensor_map_naive).

#include "emitter/tile/im2col.hpp"

#include "driver/reference/tensor_map_naive.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_im2col {

using namespace ptxgen;
using namespace ptxgen::tile;
using driver::naive_im2col_elements;
using Coords = std::vector<std::int64_t>;

namespace {

// A dense row-major im2col map of `dims` (N, spatial..., C) of uint16.
TensorMapDesc map_of(const Coords& dims, Coords lower, Coords upper, std::int64_t channels,
                     std::int64_t pixels) {
  TensorMapDesc m;
  m.tensor = "X";
  m.dtype = DType::uint16;
  m.mode = TensorMapMode::im2col;
  m.global_dims = dims;
  m.global_strides.assign(dims.size() - 1, 0);
  std::int64_t stride = 2;
  for (std::size_t k = dims.size() - 1; k-- > 0;) {
    stride *= dims[k + 1];
    m.global_strides[k] = stride;
  }
  m.element_strides.assign(dims.size(), 1);
  m.im2col = {std::move(lower), std::move(upper), channels, pixels};
  return m;
}

Diagnostic only_problem(const TensorMapDesc& m) {
  const Diagnostics d = check_tensor_map(m);
  REQUIRE(d.items().size() == 1);
  return d.items().front();
}

// The first element of each pixel's row: its global offset, or -1 when it is filled.
Coords pixel_starts(const std::vector<BoxElement>& elements, std::int64_t channels) {
  Coords out;
  for (std::size_t i = 0; i < elements.size(); i += static_cast<std::size_t>(channels))
    out.push_back(elements[i].place == BoxPlace::inside ? elements[i].global_offset : -1);
  return out;
}

} // namespace

TEST_CASE("an NWC walk wraps at the box's upper corner into the next image") {
  // N 2, W 4, C 8 (16-byte pixels, image stride 64); a 3-wide filter with padding 1: the box
  // runs over w = -1 .. 4 - 1 - 1 = 2. From (n 0, w 1) six pixels: (0, 1) (0, 2) (1, -1)
  // (1, 0) (1, 1) (1, 2); offset 1 reads w + 1: bytes 0*64 + 2*16 = 32, 48, then image 1's
  // w 0..3: 64, 80, 96, 112.
  const TensorMapDesc m = map_of({2, 4, 8}, {-1}, {-1}, 8, 6);
  REQUIRE(check_tensor_map(m).empty());
  const auto e = im2col_elements(m, Coords{0, 1, 0}, Coords{1});
  CHECK(pixel_starts(e, 8) == Coords{32, 48, 64, 80, 96, 112});
  // With offset 0 the first image's w = -1 is padding, as is nothing else.
  CHECK(pixel_starts(im2col_elements(m, Coords{0, 1, 0}, Coords{0}), 8) ==
        Coords{16, 32, -1, 64, 80, 96});
  // Rows are the pixels' channels, one after the other.
  CHECK(e[8].shared_offset == 16);
  CHECK(e[9].shared_offset == 18);
}

TEST_CASE("traversal strides step H and W from the lower corner; past the batch is filled") {
  // N 1, H 4, W 5, C 8; box H 0..3, W 0..4; strides 2 in H and W. From (0, 0, 0): W 0, 2, 4,
  // then H 2: W 0, 2, 4, then H would be 4 > 3: image 1, which does not exist (filled).
  TensorMapDesc m = map_of({1, 4, 5, 8}, {0, 0}, {0, 0}, 8, 8);
  m.element_strides = {1, 2, 2, 1};
  REQUIRE(check_tensor_map(m).empty());
  // Pixel (h, w) is at h * 80 + w * 16.
  CHECK(pixel_starts(im2col_elements(m, Coords{0, 0, 0, 0}, Coords{0, 0}), 8) ==
        Coords{0, 32, 64, 160, 192, 224, -1, -1});
}

TEST_CASE("a 4-D load with padding corners: the first row and column read the padding") {
  // N 1, H 3, W 3, C 8; lower and upper -1: filter bases -1 .. 1 in H and W, 9 of them.
  const TensorMapDesc m = map_of({1, 3, 3, 8}, {-1, -1}, {-1, -1}, 8, 9);
  REQUIRE(check_tensor_map(m).empty());
  // Tap (0, 0): base (h, w) reads (h, w); (h, w) = (-1, *) and (*, -1) are padding.
  CHECK(pixel_starts(im2col_elements(m, Coords{0, -1, -1, 0}, Coords{0, 0}), 8) ==
        Coords{-1, -1, -1, -1, 0, 16, -1, 48, 64});
  // Tap (2, 2): base (h, w) reads (h + 2, w + 2): 3 is past the edge.
  CHECK(pixel_starts(im2col_elements(m, Coords{0, -1, -1, 0}, Coords{2, 2}), 8) ==
        Coords{64, 80, -1, 112, 128, -1, -1, -1, -1});
}

TEST_CASE("im2col_elements agrees with the naive model over many maps and offsets") {
  std::mt19937 rng(38);
  const auto pick = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int round = 0; round < 400; ++round) {
    const auto rank = static_cast<std::size_t>(pick(3, 5));
    Coords dims(rank), lower(rank - 2), upper(rank - 2);
    dims[0] = pick(1, 3);
    dims[rank - 1] = 8 * pick(1, 3);
    for (std::size_t s = 0; s < rank - 2; ++s) {
      dims[s + 1] = pick(1, 6);
      lower[s] = pick(-2, 1);
      upper[s] = pick(-2, 1);
    }
    TensorMapDesc m = map_of(dims, lower, upper, 8 * pick(1, 2), pick(1, 40));
    for (std::size_t s = 0; s < rank - 2; ++s)
      m.element_strides[s + 1] = pick(1, 3);
    m.swizzle = static_cast<TensorMapSwizzle>(pick(0, 3));
    if (!check_tensor_map(m).empty())
      continue; // an empty box or a row over the span
    Coords coords(rank), offsets(rank - 2);
    coords[0] = pick(0, dims[0] - 1);
    coords[rank - 1] = 8 * pick(-1, 1);
    for (std::size_t s = 0; s < rank - 2; ++s) {
      const Im2colRange box = im2col_box(m, s);
      coords[s + 1] = pick(box.lo, box.hi);
      offsets[s] = pick(0, 3);
    }
    const auto tile = im2col_elements(m, coords, offsets);
    const auto naive = naive_im2col_elements(m, coords, offsets);
    REQUIRE(tile.size() == naive.size());
    for (std::size_t i = 0; i < tile.size(); ++i) {
      CAPTURE(round);
      CAPTURE(i);
      CHECK(tile[i].shared_offset == naive[i].shared_offset);
      CHECK(tile[i].place == naive[i].place);
      if (tile[i].place == BoxPlace::inside)
        CHECK(tile[i].global_offset == naive[i].global_offset);
    }
    CHECK(box_bytes(m) == static_cast<std::int64_t>(tile.size()) * 2);
    CHECK(shared_box_bytes(m) == driver::naive_shared_box_bytes(m));
  }
}

TEST_CASE("an im2col map's rules, one DiagId each") {
  const TensorMapDesc good = map_of({1, 8, 8, 16}, {-1, -1}, {-1, -1}, 16, 64);
  CHECK(check_tensor_map(good).empty());

  TensorMapDesc m = map_of({8, 16}, {}, {}, 16, 64);
  CHECK(only_problem(m).id == DiagId::contract_im2col_rank);
  m = good;
  m.im2col.upper_corner = {-1};
  CHECK(only_problem(m).id == DiagId::contract_im2col_rank);

  m = good;
  m.im2col.lower_corner = {-129, -1}; // 4-D: -128..127
  CHECK(only_problem(m).id == DiagId::contract_im2col_corner_range);
  m = map_of({1, 8, 8, 8, 16}, {-1, -1, -1}, {-1, -1, 16}, 16, 64); // 5-D: -16..15
  CHECK(only_problem(m).id == DiagId::contract_im2col_corner_range);
  m = map_of({1, 8, 16}, {-32768}, {32767}, 16, 64); // 3-D: 16-bit
  CHECK(check_tensor_map(m).empty());

  m = good;
  m.im2col.lower_corner = {-1, 5};
  m.im2col.upper_corner = {-1, -3}; // W: 5 .. 8 - 1 - 3 = 4
  CHECK(only_problem(m).id == DiagId::contract_im2col_box_empty);
  m.im2col.upper_corner = {-1, -2}; // W: 5 .. 5, one pixel
  CHECK(check_tensor_map(m).empty());

  m = good;
  m.im2col.channels = 264;
  CHECK(only_problem(m).id == DiagId::contract_im2col_channels);
  m.im2col.channels = 4; // 8 bytes
  CHECK(only_problem(m).id == DiagId::contract_tmap_box_inner_bytes);
  m.im2col.channels = 128; // 256 bytes over 128B's span
  m.swizzle = TensorMapSwizzle::b128;
  CHECK(only_problem(m).id == DiagId::contract_tmap_swizzle_span);

  m = good;
  m.im2col.pixels = 1025;
  CHECK(only_problem(m).id == DiagId::contract_im2col_pixels);
  m.im2col.pixels = 1024;
  CHECK(check_tensor_map(m).empty());

  m = good;
  m.element_strides = {2, 1, 1, 1}; // N's
  CHECK(only_problem(m).id == DiagId::contract_tmap_element_stride);
  m.element_strides = {1, 8, 8, 1};
  CHECK(check_tensor_map(m).empty());

  CHECK(im2col_offset_range(3).hi == 65535);
  CHECK(im2col_offset_range(4).hi == 255);
  CHECK(im2col_offset_range(5).hi == 31);
  CHECK(box_extent(good) == Coords{64, 16});
  CHECK(box_bytes(good) == 2048);
}

} // namespace unit_im2col
