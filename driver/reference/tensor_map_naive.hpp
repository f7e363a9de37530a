#pragma once
// The CPU reference's own, deliberately naive model of a tensor-map tile copy.
//
// Written from the ISA's and the Driver API's text, element by element, without the tile
// layer's helpers (box_extent, swizzle_offset, box_elements): the box element number n is
// decoded into its box index by division (innermost fastest); its tensor coordinate along a
// dimension is the copy's coordinate plus index times that dimension's element stride; it
// lies in shared memory at its row (n / inner count) times the row's room plus its column
// times the element size, the row's room being its bytes, or the swizzle span S when the row
// is narrower (a narrow swizzled row is padded to the span, as the H200 does for 128B with
// a 64-byte row), then moved by the swizzle: the shared
// bytes are 128-byte lines of eight 16-byte chunks, and in a mode of span S (32, 64, 128
// bytes) chunk j of line L moves to chunk j XOR (L mod S/16), a pattern that repeats every
// S/16 lines (256, 512, 1024 bytes). An element with a coordinate outside its global dim is
// filled on a load and skipped on a store, except that a store on the H100 writes whole
// 16-byte units: an element beyond the inner dim whose first byte is in the same 16-byte unit
// of its row as the row's last byte is written too.
// Tests compare naive_box_elements() with tile::box_elements().

#include "emitter/tile/tensor_map.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace ptxgen::driver {

/// One box element as the naive model sees it, in the order of its shared bytes before
/// the swizzle.
struct NaiveBoxElement {
  std::vector<std::int64_t> coordinate; ///< its tensor coordinate, outermost first
  std::int64_t shared_offset = 0;       ///< bytes from the shared base, after the swizzle
  std::int64_t global_offset = 0;       ///< bytes from the global base (sum of coordinate x stride)
  tile::BoxPlace place = tile::BoxPlace::inside;
};

/// Every element a load or store at `coords` moves through a valid `map`.
std::vector<NaiveBoxElement> naive_box_elements(const tile::TensorMapDesc& map,
                                                std::span<const std::int64_t> coords,
                                                tile::TensorAccess access);

/// Every element an `.im2col` load at `coords` (N, the spatial filter base, C; outermost
/// first) with `offsets` (one per spatial dimension, outermost first) moves through a valid
/// im2col `map`, from the ISA's "im2col mode": `pixels` pixels of the bounding box walked
/// from the filter base (W fastest by its traversal stride, restarting at the lower corner
/// past dim - 1 + the upper corner, then H, D, then the next image), each accessed at the
/// base plus the offsets, with `channels` channels from coordinate C; a pixel outside the
/// tensor (or past the last image) is filled. Shared memory holds pixel after pixel, each
/// pixel's channels in a row (padded to the swizzle span as a tile box's rows are).
/// Tests compare it with tile::im2col_elements().
std::vector<NaiveBoxElement> naive_im2col_elements(const tile::TensorMapDesc& map,
                                                   std::span<const std::int64_t> coords,
                                                   std::span<const std::int64_t> offsets);

/// The bytes a box takes in shared memory through `map`: rows times the row's room (its
/// bytes, or the swizzle span when narrower). A copy's transactions are the box's own bytes.
std::int64_t naive_shared_box_bytes(const tile::TensorMapDesc& map);

/// The stride in bytes of dimension `k` (outermost first) that naive_box_elements' global
/// offsets use: the map's for the outer dimensions, the element size for the innermost.
std::int64_t naive_stride(const tile::TensorMapDesc& map, std::size_t k);

/// The bytes (little-endian) a load writes for an element outside the tensor: zeros, or for
/// a NaN fill 0x7FF7 in every 16-bit half of the element (what the H200 writes: 0x7FF77FF7
/// for float32, specs/tma/oob_nan*.toml), a NaN of float16, bfloat16, float32 and float64.
std::vector<std::uint8_t> naive_fill_element(const tile::TensorMapDesc& map);

/// The bytes after which `swizzle`'s pattern repeats (1 for none): a box moves as
/// naive_box_elements says from a shared base that is a multiple of it.
std::int64_t naive_swizzle_period(tile::TensorMapSwizzle swizzle);

/// Where byte `offset` (from a base aligned to the pattern's repeat) of a dense box lands
/// under `swizzle`, by the line-and-chunk description above.
std::int64_t naive_swizzle(tile::TensorMapSwizzle swizzle, std::int64_t offset);

} // namespace ptxgen::driver
