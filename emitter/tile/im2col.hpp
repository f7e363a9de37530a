#pragma once
// An im2col tensor map (cuTensorMapEncodeIm2col) as a typed model: its rules, the ranges the
// ISA gives its corners and a load's offsets, and where each element of an `.im2col` load
// lands. The tensor is NWC, NHWC or NDHWC (rank 3, 4, 5): dimension 0 is N (images), the
// last C (channels), those between D, H, W (space). A load walks `pixels` pixels of the
// bounding box in NDHW order from the filter base its spatial coordinates give (W fastest,
// wrapping to the box's lower corner, then N), each pixel shifted by the load's offsets, and
// moves `channels` channels of each from its C coordinate: `pixels` rows of `channels`
// elements in shared memory. Where each rule comes from: docs/ptx-bulk.md, "im2col".

#include "emitter/tile/tensor_map.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::tile {

/// Ranks an im2col map may have: NWC, NHWC, NDHWC.
inline constexpr std::size_t kIm2colMinRank = 3;
inline constexpr std::size_t kIm2colMaxRank = 5;
/// channelsPerPixel: 1 .. this.
inline constexpr std::int64_t kIm2colMaxChannels = 256;
/// pixelsPerColumn: 1 .. this.
inline constexpr std::int64_t kIm2colMaxPixels = 1024;

/// A closed range of integers.
struct Im2colRange {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  bool holds(std::int64_t v) const { return v >= lo && v <= hi; }
};

/// The bounding-box corners' range for a rank: 16-bit signed, narrowed with the rank
/// ([-2^15, 2^15-1], [-2^7, 2^7-1], [-2^4, 2^4-1] for 3-D, 4-D, 5-D).
Im2colRange im2col_corner_range(std::size_t rank);
/// A load's offsets' range for a rank: [0, 2^16-1], [0, 2^8-1], [0, 2^5-1].
Im2colRange im2col_offset_range(std::size_t rank);
/// Spatial dimensions of an im2col map: rank - 2.
std::size_t im2col_spatial(const TensorMapDesc& map);
/// The bounding box along spatial dimension `s` (0 outermost): lower_corner[s] ..
/// global_dims[s + 1] - 1 + upper_corner[s], both included.
Im2colRange im2col_box(const TensorMapDesc& map, std::size_t s);

/// "tensor map of `A`: ", which starts every message about a map.
std::string tmap_subject(const TensorMapDesc& map);
/// "field[k]".
std::string indexed(std::string_view field, std::size_t k);
/// The rules on the global side that every mode shares (alignment, dims, strides, NaN fill).
void check_tmap_global(const TensorMapDesc& map, Diagnostics& out);
/// The rules of an im2col map's own parameters (contract_im2col_*, and the element stride,
/// inner bytes and swizzle span rules it shares with a tile map).
void check_im2col_map(const TensorMapDesc& map, Diagnostics& out);

/// The elements an `.im2col` load at `coords` (N, the spatial filter base, C; outermost
/// first) with `offsets` (one per spatial dimension, outermost first) moves, pixel by pixel,
/// each pixel's channels in order. A pixel past the last image or outside the tensor after
/// its offsets is outside (filled). Precondition: check_tensor_map(map) is empty and the
/// counts fit the rank.
std::vector<BoxElement> im2col_elements(const TensorMapDesc& map,
                                        std::span<const std::int64_t> coords,
                                        std::span<const std::int64_t> offsets);

} // namespace ptxgen::tile
