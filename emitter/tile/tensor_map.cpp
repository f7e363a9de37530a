#include "emitter/tile/tensor_map.hpp"

#include "emitter/tile/im2col.hpp"

#include <cstddef>
#include <string>

namespace ptxgen::tile {

std::string_view name(TensorMapSwizzle s) {
  return row_of(swizzle_rows, s).name;
}
std::string_view name(TensorMapInterleave i) {
  return name_of(interleave_names, i);
}
std::string_view name(TensorMapOobFill f) {
  return name_of(oob_fill_names, f);
}
std::string_view name(TensorMapL2Promotion p) {
  return name_of(l2_promotion_names, p);
}
std::string_view name(TensorMapMode m) {
  return name_of(tensor_map_mode_names, m);
}

TensorMapDesc tensor_map_of(const Tensor& global, std::vector<std::int64_t> box) {
  TensorMapDesc map;
  map.tensor = global.name;
  map.dtype = global.dtype;
  map.global_align = global.align;
  map.global_dims = global.shape;
  // Row-major: each dimension's stride is the bytes of one index of the next one inward.
  std::int64_t stride = size_bytes(global.dtype);
  map.global_strides.assign(global.shape.empty() ? 0 : global.shape.size() - 1, 0);
  for (std::size_t k = map.global_strides.size(); k-- > 0;) {
    stride *= global.shape[k + 1];
    map.global_strides[k] = stride;
  }
  map.element_strides.assign(box.size(), 1);
  map.box_dims = std::move(box);
  return map;
}

bool allows_nan_fill(DType t) {
  return t == DType::float16 || t == DType::bfloat16 || t == DType::float32 || t == DType::float64;
}

std::string tmap_subject(const TensorMapDesc& map) {
  return "tensor map of `" + map.tensor + "`: ";
}

std::string indexed(std::string_view field, std::size_t k) {
  return std::string(field) + "[" + std::to_string(k) + "]";
}

namespace {

// The per-dimension vectors' lengths; false (with a diagnostic) when they do not fit the rank.
bool check_tmap_rank(const TensorMapDesc& map, Diagnostics& out) {
  const std::size_t rank = map.rank();
  if (rank < kTensorMapMinRank || rank > kTensorMapMaxRank) {
    out.error(DiagId::contract_tmap_rank, tmap_subject(map) + "rank " + std::to_string(rank) +
                                              " is outside " + std::to_string(kTensorMapMinRank) +
                                              ".." + std::to_string(kTensorMapMaxRank));
    return false;
  }
  const auto count = [&](std::string_view field, std::size_t have, std::size_t want) {
    if (have == want)
      return true;
    out.error(DiagId::contract_tmap_rank,
              tmap_subject(map) + std::string(field) + " has " + std::to_string(have) +
                  " entries; rank " + std::to_string(rank) + " needs " + std::to_string(want));
    return false;
  };
  const bool box = count("box_dims", map.box_dims.size(), rank);
  const bool steps = count("element_strides", map.element_strides.size(), rank);
  const bool strides = count("global_strides", map.global_strides.size(), rank - 1);
  return box && steps && strides;
}

void check_tmap_box(const TensorMapDesc& map, Diagnostics& out) {
  for (std::size_t k = 0; k < map.rank(); ++k) {
    const std::int64_t b = map.box_dims[k];
    if (b < 1 || b > kTensorMapMaxBoxDim)
      out.error(DiagId::contract_tmap_box_dim, tmap_subject(map) + indexed("box_dims", k) + " = " +
                                                   std::to_string(b) + " is outside 1.." +
                                                   std::to_string(kTensorMapMaxBoxDim));
    const std::int64_t e = map.element_strides[k];
    if (e < 1 || e > kTensorMapMaxElementStride)
      out.error(DiagId::contract_tmap_element_stride,
                tmap_subject(map) + indexed("element_strides", k) + " = " + std::to_string(e) +
                    " is outside 1.." + std::to_string(kTensorMapMaxElementStride));
    else if (k + 1 == map.rank() && e != 1)
      out.error(DiagId::contract_tmap_element_stride,
                tmap_subject(map) + indexed("element_strides", k) + " = " + std::to_string(e) +
                    " is the innermost's, which must be 1 (the driver ignores it without "
                    "interleave)");
  }
  const std::int64_t inner = map.box_dims.back();
  if (inner < 1 || inner > kTensorMapMaxBoxDim)
    return; // already refused; its bytes say nothing more
  const std::int64_t inner_bytes = inner * size_bytes(map.dtype);
  if (inner_bytes % kTensorMapGranule != 0)
    out.error(DiagId::contract_tmap_box_inner_bytes,
              tmap_subject(map) + "the inner box is " + std::to_string(inner_bytes) +
                  " bytes (box_dims[" + std::to_string(map.rank() - 1) +
                  "] = " + std::to_string(inner) + " x " + std::to_string(size_bytes(map.dtype)) +
                  "), not a multiple of " + std::to_string(kTensorMapGranule));
  const SwizzleRow& sw = row_of(swizzle_rows, map.swizzle);
  if (sw.span_bytes != 0 && inner_bytes > sw.span_bytes)
    out.error(DiagId::contract_tmap_swizzle_span,
              tmap_subject(map) + "the inner box is " + std::to_string(inner_bytes) +
                  " bytes, more than the " + std::string(sw.name) + " swizzle span of " +
                  std::to_string(sw.span_bytes) + " bytes");
}

} // namespace

void check_tmap_global(const TensorMapDesc& map, Diagnostics& out) {
  if (map.global_align < 1 || map.global_align % kTensorMapGranule != 0)
    out.error(DiagId::contract_tmap_global_align,
              tmap_subject(map) + "the global base is aligned to " +
                  std::to_string(map.global_align) + " bytes; it must be a multiple of " +
                  std::to_string(kTensorMapGranule));
  for (std::size_t k = 0; k < map.rank(); ++k) {
    const std::int64_t d = map.global_dims[k];
    if (d < 1 || d > kTensorMapMaxGlobalDim)
      out.error(DiagId::contract_tmap_global_dim, tmap_subject(map) + indexed("global_dims", k) +
                                                      " = " + std::to_string(d) +
                                                      " is outside 1..2^32");
  }
  for (std::size_t k = 0; k < map.global_strides.size(); ++k) {
    const std::int64_t s = map.global_strides[k];
    if (s < kTensorMapGranule || s % kTensorMapGranule != 0 || s >= kTensorMapStrideLimit)
      out.error(DiagId::contract_tmap_global_stride,
                tmap_subject(map) + indexed("global_strides", k) + " = " + std::to_string(s) +
                    " bytes; it must be a positive multiple of " +
                    std::to_string(kTensorMapGranule) + " below 2^40");
  }
  if (map.oob_fill == TensorMapOobFill::nan && !allows_nan_fill(map.dtype))
    out.error(DiagId::contract_tmap_nan_fill,
              tmap_subject(map) +
                  "oob_fill = nan needs a float dtype (float16, bfloat16, "
                  "float32, float64), not " +
                  std::string(name(map.dtype)));
}

Diagnostics check_tensor_map(const TensorMapDesc& map) {
  Diagnostics out;
  if (map.is_im2col()) {
    check_im2col_map(map, out);
    if (!out.has_errors())
      check_tmap_global(map, out);
    return out;
  }
  if (!check_tmap_rank(map, out))
    return out;
  check_tmap_box(map, out);
  check_tmap_global(map, out);
  return out;
}

Diagnostics check_tensor_map_shared(const TensorMapDesc& map, std::int64_t shared_align) {
  Diagnostics out;
  const SwizzleRow& sw = row_of(swizzle_rows, map.swizzle);
  if (shared_align < 1 || shared_align % sw.shared_align != 0)
    out.error(DiagId::contract_tmap_shared_align,
              tmap_subject(map) + "the shared side of the copy is aligned to " +
                  std::to_string(shared_align) + " bytes; swizzle " + std::string(sw.name) +
                  " needs " + std::to_string(sw.shared_align));
  return out;
}

std::vector<std::int64_t> box_extent(const TensorMapDesc& map) {
  if (map.is_im2col())
    return {map.im2col.pixels, map.im2col.channels};
  std::vector<std::int64_t> extent(map.rank());
  for (std::size_t k = 0; k < map.rank(); ++k)
    extent[k] = (map.box_dims[k] + map.element_strides[k] - 1) / map.element_strides[k];
  return extent;
}

std::int64_t box_bytes(const TensorMapDesc& map) {
  std::int64_t bytes = size_bytes(map.dtype);
  for (const std::int64_t n : box_extent(map))
    bytes *= n;
  return bytes;
}

std::int64_t box_row_pitch(const TensorMapDesc& map) {
  const std::int64_t inner = box_extent(map).back() * size_bytes(map.dtype);
  const std::int64_t span = row_of(swizzle_rows, map.swizzle).span_bytes;
  return inner < span ? span : inner; // span 0 (no swizzle): never padded
}

std::int64_t shared_box_bytes(const TensorMapDesc& map) {
  const std::vector<std::int64_t> extent = box_extent(map);
  std::int64_t rows = 1;
  for (std::size_t k = 0; k + 1 < extent.size(); ++k)
    rows *= extent[k];
  return rows * box_row_pitch(map);
}

std::int64_t swizzle_offset(TensorMapSwizzle swizzle, std::int64_t offset) {
  // The chunk field is bits 4..6 of the offset, the row field bits 7..9; a mode of span
  // 2^(4+b) bytes XORs the low b bits of the row into the low b bits of the chunk.
  const std::int64_t span = row_of(swizzle_rows, swizzle).span_bytes;
  if (span == 0)
    return offset;
  const std::int64_t chunk_mask = span / kSwizzleChunkBytes - 1; // 1, 3 or 7
  const std::int64_t row = offset / kSwizzleRowBytes;
  return offset ^ ((row & chunk_mask) * kSwizzleChunkBytes);
}

std::vector<BoxElement> box_elements(const TensorMapDesc& map, std::span<const std::int64_t> coords,
                                     TensorAccess access) {
  const std::size_t rank = map.rank();
  const std::vector<std::int64_t> extent = box_extent(map);
  const std::int64_t esize = size_bytes(map.dtype);
  const std::size_t inner = rank - 1;
  // The last byte a store may touch in a row: the inner extent rounded up to 16 bytes.
  const std::int64_t inner_bytes = map.global_dims[inner] * esize;
  const std::int64_t spill_end =
      (inner_bytes + kTensorMapGranule - 1) / kTensorMapGranule * kTensorMapGranule;

  const std::int64_t pitch = box_row_pitch(map);

  std::vector<BoxElement> out;
  out.reserve(static_cast<std::size_t>(box_bytes(map) / esize));
  std::vector<std::int64_t> index(rank, 0); // the box index, outermost first
  for (std::int64_t linear = 0;; ++linear) {
    BoxElement e;
    const std::int64_t row = linear / extent[inner];
    e.shared_offset = swizzle_offset(map.swizzle, row * pitch + (linear % extent[inner]) * esize);
    bool outer_inside = true;
    for (std::size_t k = 0; k < rank; ++k) {
      const std::int64_t c = coords[k] + index[k] * map.element_strides[k];
      const std::int64_t stride = k == inner ? esize : map.global_strides[k];
      e.global_offset += c * stride;
      if (k != inner && (c < 0 || c >= map.global_dims[k]))
        outer_inside = false;
    }
    const std::int64_t x = coords[inner] + index[inner]; // innermost element stride is 1
    if (outer_inside && x >= 0 && x < map.global_dims[inner])
      e.place = BoxPlace::inside;
    else if (access == TensorAccess::store && outer_inside && x >= 0 && x * esize < spill_end)
      e.place = BoxPlace::spill;
    else
      e.place = BoxPlace::outside;
    out.push_back(e);
    // Next box index, innermost fastest.
    std::size_t k = rank;
    while (k-- > 0 && ++index[k] == extent[k])
      index[k] = 0;
    if (k == static_cast<std::size_t>(-1))
      break;
  }
  return out;
}

} // namespace ptxgen::tile
