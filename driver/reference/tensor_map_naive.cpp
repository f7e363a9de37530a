#include "driver/reference/tensor_map_naive.hpp"

#include "emitter/tile/dtype.hpp"

#include <cstddef>

namespace ptxgen::driver {
namespace {

// The swizzle span of each mode in bytes, as the Driver API names them (SWIZZLE_32B: "16B
// chunks within 32B span"); 0 for none.
std::int64_t naive_span(tile::TensorMapSwizzle swizzle) {
  switch (swizzle) {
  case tile::TensorMapSwizzle::none:
    return 0;
  case tile::TensorMapSwizzle::b32:
    return 32;
  case tile::TensorMapSwizzle::b64:
    return 64;
  case tile::TensorMapSwizzle::b128:
    return 128;
  }
  return 0;
}

/// Elements the box delivers along dimension k: every element_strides[k]-th coordinate of
/// box_dims[k] ones, so ceil(box / stride) of them.
std::int64_t naive_count(const tile::TensorMapDesc& map, std::size_t k) {
  std::int64_t n = map.box_dims[k] / map.element_strides[k];
  if (map.box_dims[k] % map.element_strides[k] != 0)
    n += 1;
  return n;
}

/// The shared bytes between consecutive box rows: the row's bytes, padded up to the span.
std::int64_t naive_row_room(const tile::TensorMapDesc& map) {
  // An im2col copy's row is one pixel: its channels.
  const std::int64_t count = map.mode == tile::TensorMapMode::im2col
                                 ? map.im2col.channels
                                 : naive_count(map, map.global_dims.size() - 1);
  const std::int64_t row = count * static_cast<std::int64_t>(tile::size_bytes(map.dtype));
  const std::int64_t span = naive_span(map.swizzle);
  return row < span ? span : row;
}

} // namespace

std::int64_t naive_shared_box_bytes(const tile::TensorMapDesc& map) {
  if (map.mode == tile::TensorMapMode::im2col)
    return map.im2col.pixels * naive_row_room(map);
  std::int64_t rows = 1;
  for (std::size_t k = 0; k + 1 < map.global_dims.size(); ++k)
    rows *= naive_count(map, k);
  return rows * naive_row_room(map);
}

std::int64_t naive_stride(const tile::TensorMapDesc& map, std::size_t k) {
  if (k + 1 == map.global_dims.size())
    return tile::size_bytes(map.dtype);
  return map.global_strides[k];
}

std::int64_t naive_swizzle_period(tile::TensorMapSwizzle swizzle) {
  const std::int64_t span = naive_span(swizzle);
  return span == 0 ? 1 : span / 16 * 128;
}

std::int64_t naive_swizzle(tile::TensorMapSwizzle swizzle, std::int64_t offset) {
  const std::int64_t span = naive_span(swizzle);
  if (span == 0)
    return offset;
  const std::int64_t line = offset / 128;
  const std::int64_t chunk = (offset % 128) / 16;
  const std::int64_t byte = offset % 16;
  const std::int64_t lines_in_pattern = span / 16;
  const std::int64_t moved = chunk ^ (line % lines_in_pattern);
  return line * 128 + moved * 16 + byte;
}

std::vector<std::uint8_t> naive_fill_element(const tile::TensorMapDesc& map) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(tile::size_bytes(map.dtype)));
  if (map.oob_fill != tile::TensorMapOobFill::nan)
    return out;
  // The H200 writes 0x7FF7 into every 16-bit half of a filled element (measured for float32:
  // 0x7FF77FF7), a NaN of each float type.
  for (std::size_t i = 0; i + 1 < out.size(); i += 2) {
    out[i] = 0xF7;
    out[i + 1] = 0x7F;
  }
  return out;
}

std::vector<NaiveBoxElement> naive_box_elements(const tile::TensorMapDesc& map,
                                                std::span<const std::int64_t> coords,
                                                tile::TensorAccess access) {
  const std::size_t rank = map.global_dims.size();
  const std::int64_t esize = tile::size_bytes(map.dtype);
  std::vector<std::int64_t> count(rank);
  std::int64_t total = 1;
  for (std::size_t k = 0; k < rank; ++k) {
    count[k] = naive_count(map, k);
    total *= count[k];
  }
  const std::size_t inner = rank - 1;
  const std::int64_t room = naive_row_room(map);
  const std::int64_t row_bytes = map.global_dims[inner] * esize;

  std::vector<NaiveBoxElement> out;
  for (std::int64_t n = 0; n < total; ++n) {
    NaiveBoxElement e;
    e.coordinate.assign(rank, 0);
    std::int64_t rest = n;
    for (std::size_t k = rank; k-- > 0;) {
      const std::int64_t i = rest % count[k];
      rest /= count[k];
      e.coordinate[k] = coords[k] + i * map.element_strides[k];
    }
    const std::int64_t row = n / count[inner];
    const std::int64_t column = n % count[inner];
    e.shared_offset = naive_swizzle(map.swizzle, row * room + column * esize);
    bool every_dim_inside = true;
    bool outer_dims_inside = true;
    for (std::size_t k = 0; k < rank; ++k) {
      e.global_offset += e.coordinate[k] * naive_stride(map, k);
      const bool inside = e.coordinate[k] >= 0 && e.coordinate[k] < map.global_dims[k];
      every_dim_inside = every_dim_inside && inside;
      if (k != inner)
        outer_dims_inside = outer_dims_inside && inside;
    }
    if (every_dim_inside) {
      e.place = tile::BoxPlace::inside;
    } else {
      e.place = tile::BoxPlace::outside;
      const std::int64_t x = e.coordinate[inner];
      // A store writes whole 16-byte units of a row: the unit holding the row's last byte
      // is written through to its end.
      if (access == tile::TensorAccess::store && outer_dims_inside && x >= 0 &&
          (x * esize) / 16 == (row_bytes - 1) / 16)
        e.place = tile::BoxPlace::spill;
    }
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

/// The filter base's next pixel in the ISA's walk of the bounding box: spatial dimension
/// `d` (1 = the outermost spatial one, rank - 2 = W) steps by its traversal stride; past the
/// box's last pixel (dim - 1 + upper corner) it restarts at the box's first (the lower
/// corner) and carries into dimension d - 1; a carry out of the outermost spatial dimension
/// moves to the next image (dimension 0, N).
void naive_next_pixel(const tile::TensorMapDesc& map, std::vector<std::int64_t>& pixel,
                      std::size_t d) {
  if (d == 0) {
    pixel[0] += 1;
    return;
  }
  const std::int64_t first = map.im2col.lower_corner[d - 1];
  const std::int64_t last = map.global_dims[d] - 1 + map.im2col.upper_corner[d - 1];
  pixel[d] += map.element_strides[d];
  if (pixel[d] > last) {
    pixel[d] = first;
    naive_next_pixel(map, pixel, d - 1);
  }
}

} // namespace

std::vector<NaiveBoxElement> naive_im2col_elements(const tile::TensorMapDesc& map,
                                                   std::span<const std::int64_t> coords,
                                                   std::span<const std::int64_t> offsets) {
  const std::size_t rank = map.global_dims.size();
  const std::size_t c_dim = rank - 1;
  const std::int64_t esize = tile::size_bytes(map.dtype);
  const std::int64_t room = naive_row_room(map);
  // The filter base: N and the spatial coordinates; C is the copy's own start.
  std::vector<std::int64_t> pixel(coords.begin(), coords.end());
  std::vector<NaiveBoxElement> out;
  for (std::int64_t row = 0; row < map.im2col.pixels; ++row) {
    for (std::int64_t ch = 0; ch < map.im2col.channels; ++ch) {
      NaiveBoxElement e;
      e.coordinate = pixel;
      for (std::size_t d = 1; d < c_dim; ++d)
        e.coordinate[d] += offsets[d - 1];
      e.coordinate[c_dim] = coords[c_dim] + ch;
      e.shared_offset = naive_swizzle(map.swizzle, row * room + ch * esize);
      bool inside = true;
      for (std::size_t k = 0; k < rank; ++k) {
        e.global_offset += e.coordinate[k] * naive_stride(map, k);
        inside = inside && e.coordinate[k] >= 0 && e.coordinate[k] < map.global_dims[k];
      }
      e.place = inside ? tile::BoxPlace::inside : tile::BoxPlace::outside;
      out.push_back(std::move(e));
    }
    naive_next_pixel(map, pixel, c_dim - 1);
  }
  return out;
}

} // namespace ptxgen::driver
