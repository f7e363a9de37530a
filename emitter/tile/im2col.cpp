#include "emitter/tile/im2col.hpp"

namespace ptxgen::tile {

Im2colRange im2col_corner_range(std::size_t rank) {
  const int bits = rank == 3 ? 15 : rank == 4 ? 7 : 4;
  return {-(std::int64_t{1} << bits), (std::int64_t{1} << bits) - 1};
}

Im2colRange im2col_offset_range(std::size_t rank) {
  const int bits = rank == 3 ? 16 : rank == 4 ? 8 : 5;
  return {0, (std::int64_t{1} << bits) - 1};
}

std::size_t im2col_spatial(const TensorMapDesc& map) {
  return map.rank() < 2 ? 0 : map.rank() - 2;
}

Im2colRange im2col_box(const TensorMapDesc& map, std::size_t s) {
  return {map.im2col.lower_corner[s], map.global_dims[s + 1] - 1 + map.im2col.upper_corner[s]};
}

namespace {

// The counts: rank 3..5, one corner per spatial dimension, one element stride per dimension.
bool check_im2col_counts(const TensorMapDesc& map, Diagnostics& out) {
  const std::size_t rank = map.rank();
  if (rank < kIm2colMinRank || rank > kIm2colMaxRank) {
    out.error(DiagId::contract_im2col_rank,
              tmap_subject(map) + "an im2col map's tensor is NWC, NHWC or NDHWC (rank 3..5); " +
                  "this one has rank " + std::to_string(rank));
    return false;
  }
  bool ok = true;
  const auto count = [&](std::string_view field, std::size_t have, std::size_t want) {
    if (have == want)
      return;
    out.error(DiagId::contract_im2col_rank,
              tmap_subject(map) + std::string(field) + " has " + std::to_string(have) +
                  " entries; rank " + std::to_string(rank) + " needs " + std::to_string(want));
    ok = false;
  };
  count("lower_corner", map.im2col.lower_corner.size(), rank - 2);
  count("upper_corner", map.im2col.upper_corner.size(), rank - 2);
  count("element_strides", map.element_strides.size(), rank);
  return ok;
}

void check_im2col_corners(const TensorMapDesc& map, Diagnostics& out) {
  const Im2colRange range = im2col_corner_range(map.rank());
  bool in_range = true;
  const auto corner = [&](std::string_view field, const std::vector<std::int64_t>& xs) {
    for (std::size_t s = 0; s < xs.size(); ++s)
      if (!range.holds(xs[s])) {
        in_range = false;
        out.error(DiagId::contract_im2col_corner_range,
                  tmap_subject(map) + indexed(field, s) + " = " + std::to_string(xs[s]) +
                      " is outside " + std::to_string(range.lo) + ".." + std::to_string(range.hi) +
                      " (a " + std::to_string(map.rank()) + "-D im2col map's corners)");
      }
  };
  corner("lower_corner", map.im2col.lower_corner);
  corner("upper_corner", map.im2col.upper_corner);
  if (!in_range)
    return;
  for (std::size_t s = 0; s < im2col_spatial(map); ++s) {
    const Im2colRange box = im2col_box(map, s);
    if (box.lo > box.hi)
      out.error(DiagId::contract_im2col_box_empty,
                tmap_subject(map) + "the bounding box along spatial dimension " +
                    std::to_string(s) + " runs from lower_corner " + std::to_string(box.lo) +
                    " to dim - 1 + upper_corner = " + std::to_string(box.hi) +
                    ": it holds no pixel");
  }
}

void check_im2col_sizes(const TensorMapDesc& map, Diagnostics& out) {
  const Im2colParams& p = map.im2col;
  if (p.pixels < 1 || p.pixels > kIm2colMaxPixels)
    out.error(DiagId::contract_im2col_pixels,
              tmap_subject(map) + "pixels = " + std::to_string(p.pixels) + " is outside 1.." +
                  std::to_string(kIm2colMaxPixels));
  if (p.channels < 1 || p.channels > kIm2colMaxChannels) {
    out.error(DiagId::contract_im2col_channels,
              tmap_subject(map) + "channels = " + std::to_string(p.channels) + " is outside 1.." +
                  std::to_string(kIm2colMaxChannels));
    return;
  }
  const std::int64_t row_bytes = p.channels * size_bytes(map.dtype);
  if (row_bytes % kTensorMapGranule != 0)
    out.error(DiagId::contract_tmap_box_inner_bytes,
              tmap_subject(map) + "a pixel's channels are " + std::to_string(row_bytes) +
                  " bytes (channels = " + std::to_string(p.channels) + " x " +
                  std::to_string(size_bytes(map.dtype)) + "), not a multiple of " +
                  std::to_string(kTensorMapGranule));
  const SwizzleRow& sw = row_of(swizzle_rows, map.swizzle);
  if (sw.span_bytes != 0 && row_bytes > sw.span_bytes)
    out.error(DiagId::contract_tmap_swizzle_span,
              tmap_subject(map) + "a pixel's channels are " + std::to_string(row_bytes) +
                  " bytes, more than the " + std::string(sw.name) + " swizzle span of " +
                  std::to_string(sw.span_bytes) + " bytes");
}

// Traversal strides: 1..8 on the spatial dimensions; N and C are walked one by one (the
// driver ignores C's; ptxgen does not model a stride on N).
void check_im2col_steps(const TensorMapDesc& map, Diagnostics& out) {
  const std::size_t rank = map.rank();
  for (std::size_t k = 0; k < rank; ++k) {
    const std::int64_t e = map.element_strides[k];
    const bool spatial = k > 0 && k + 1 < rank;
    if (e < 1 || e > kTensorMapMaxElementStride)
      out.error(DiagId::contract_tmap_element_stride,
                tmap_subject(map) + indexed("element_strides", k) + " = " + std::to_string(e) +
                    " is outside 1.." + std::to_string(kTensorMapMaxElementStride));
    else if (!spatial && e != 1)
      out.error(DiagId::contract_tmap_element_stride,
                tmap_subject(map) + indexed("element_strides", k) + " = " + std::to_string(e) +
                    (k == 0 ? " is N's" : " is C's") +
                    ", which must be 1 in im2col mode (the traversal stride is spatial)");
  }
}

} // namespace

void check_im2col_map(const TensorMapDesc& map, Diagnostics& out) {
  if (!check_im2col_counts(map, out))
    return;
  check_im2col_corners(map, out);
  check_im2col_sizes(map, out);
  check_im2col_steps(map, out);
}

std::vector<BoxElement> im2col_elements(const TensorMapDesc& map,
                                        std::span<const std::int64_t> coords,
                                        std::span<const std::int64_t> offsets) {
  const std::size_t rank = map.rank();
  const std::size_t spatial = im2col_spatial(map);
  const std::int64_t esize = size_bytes(map.dtype);
  const std::int64_t pitch = box_row_pitch(map);
  const std::int64_t channels = map.im2col.channels;
  // The pixel walked: N then the spatial filter base, outermost first.
  std::vector<std::int64_t> pixel(coords.begin(), coords.begin() + static_cast<long>(rank - 1));

  std::vector<BoxElement> out;
  out.reserve(static_cast<std::size_t>(map.im2col.pixels * channels));
  for (std::int64_t p = 0; p < map.im2col.pixels; ++p) {
    bool pixel_inside = pixel[0] >= 0 && pixel[0] < map.global_dims[0];
    std::int64_t pixel_offset = pixel[0] * map.global_strides[0];
    for (std::size_t s = 0; s < spatial; ++s) {
      const std::int64_t at = pixel[s + 1] + offsets[s];
      pixel_inside = pixel_inside && at >= 0 && at < map.global_dims[s + 1];
      pixel_offset += at * map.global_strides[s + 1];
    }
    for (std::int64_t j = 0; j < channels; ++j) {
      const std::int64_t c = coords[rank - 1] + j;
      BoxElement e;
      e.shared_offset = swizzle_offset(map.swizzle, p * pitch + j * esize);
      e.global_offset = pixel_offset + c * esize;
      e.place = pixel_inside && c >= 0 && c < map.global_dims[rank - 1] ? BoxPlace::inside
                                                                        : BoxPlace::outside;
      out.push_back(e);
    }
    // The next pixel: W steps by its traversal stride; past the box's upper corner it wraps
    // to the lower corner and the next dimension outward steps; past D (or H, W), N steps.
    std::size_t s = spatial;
    for (; s-- > 0;) {
      pixel[s + 1] += map.element_strides[s + 1];
      if (pixel[s + 1] <= im2col_box(map, s).hi)
        break;
      pixel[s + 1] = im2col_box(map, s).lo;
    }
    if (s == static_cast<std::size_t>(-1))
      ++pixel[0];
  }
  return out;
}

} // namespace ptxgen::tile
