#include "driver/cuda/tensor_map_encode.hpp"

#if PTXGEN_CUDA_HEADERS

#include "emitter/support/enum_names.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace ptxgen::driver::cuda {
namespace {

constexpr auto tmap_data_types = enum_table<tile::DType::b64>(std::array<CUtensorMapDataType, 16>{
    CU_TENSOR_MAP_DATA_TYPE_UINT8,    // uint8
    CU_TENSOR_MAP_DATA_TYPE_UINT8,    // int8
    CU_TENSOR_MAP_DATA_TYPE_UINT16,   // uint16
    CU_TENSOR_MAP_DATA_TYPE_UINT16,   // int16
    CU_TENSOR_MAP_DATA_TYPE_FLOAT16,  // float16
    CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, // bfloat16
    CU_TENSOR_MAP_DATA_TYPE_UINT32,   // uint32
    CU_TENSOR_MAP_DATA_TYPE_INT32,    // int32
    CU_TENSOR_MAP_DATA_TYPE_FLOAT32,  // float32
    CU_TENSOR_MAP_DATA_TYPE_UINT64,   // uint64
    CU_TENSOR_MAP_DATA_TYPE_INT64,    // int64
    CU_TENSOR_MAP_DATA_TYPE_FLOAT64,  // float64
    CU_TENSOR_MAP_DATA_TYPE_UINT8,    // b8
    CU_TENSOR_MAP_DATA_TYPE_UINT16,   // b16
    CU_TENSOR_MAP_DATA_TYPE_UINT32,   // b32
    CU_TENSOR_MAP_DATA_TYPE_UINT64,   // b64
});

constexpr auto tmap_swizzles = enum_table<tile::TensorMapSwizzle::b128>(
    std::array<CUtensorMapSwizzle, 4>{CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
                                      CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B});
constexpr auto tmap_interleaves = enum_table<tile::TensorMapInterleave::none>(
    std::array<CUtensorMapInterleave, 1>{CU_TENSOR_MAP_INTERLEAVE_NONE});
constexpr auto tmap_oob_fills =
    enum_table<tile::TensorMapOobFill::nan>(std::array<CUtensorMapFloatOOBfill, 2>{
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA});
constexpr auto tmap_l2_promotions =
    enum_table<tile::TensorMapL2Promotion::b256>(std::array<CUtensorMapL2promotion, 4>{
        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B});

constexpr const char* missing_encode =
    "the CUDA driver has no cuTensorMapEncodeTiled (tensor maps need a CUDA 12.0 or later "
    "driver)";

CUresult call_encode(EncodeTiledFn encode, const TiledEncodeArgs& a, TensorMapBlob& blob) {
  // The driver reads the tensor's address only to encode it; it is never dereferenced here.
  void* address = reinterpret_cast<void*>(static_cast<std::uintptr_t>(a.global_address));
  return encode(&blob, a.data_type, a.rank, address, a.global_dim.data(), a.global_strides.data(),
                a.box_dim.data(), a.element_strides.data(), a.interleave, a.swizzle, a.l2_promotion,
                a.oob_fill);
}

constexpr const char* missing_im2col =
    "the CUDA driver has no cuTensorMapEncodeIm2col (im2col maps need a CUDA 12.0 or later "
    "driver)";

CUresult call_im2col(EncodeIm2colFn encode, const Im2colEncodeArgs& i, TensorMapBlob& blob) {
  const TiledEncodeArgs& a = i.common;
  void* address = reinterpret_cast<void*>(static_cast<std::uintptr_t>(a.global_address));
  return encode(&blob, a.data_type, a.rank, address, a.global_dim.data(), a.global_strides.data(),
                i.lower_corner.data(), i.upper_corner.data(), i.channels, i.pixels,
                a.element_strides.data(), a.interleave, a.swizzle, a.l2_promotion, a.oob_fill);
}

std::string hex_address(std::uint64_t address) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

} // namespace

CUtensorMapDataType tensor_map_data_type(tile::DType t) {
  return row_of(tmap_data_types, t);
}

Fallible<TiledEncodeArgs> tiled_encode_args(const tile::TensorMapDesc& map,
                                            std::uint64_t global_address) {
  if (const Diagnostics problems = tile::check_tensor_map(map); !problems.empty())
    return Failure{problems.items().front().message};
  if (global_address % tile::kTensorMapGranule != 0)
    return Failure{"tensor map of `" + map.tensor + "`: the global address " +
                   hex_address(global_address) + " is not a multiple of " +
                   std::to_string(tile::kTensorMapGranule)};
  TiledEncodeArgs a;
  a.data_type = tensor_map_data_type(map.dtype);
  a.rank = static_cast<cuuint32_t>(map.rank());
  a.global_address = global_address;
  // The flip: driver index d is the map's dimension rank - 1 - d.
  const std::size_t rank = map.rank();
  for (std::size_t d = 0; d < rank; ++d) {
    const std::size_t k = rank - 1 - d;
    a.global_dim[d] = static_cast<cuuint64_t>(map.global_dims[k]);
    if (!map.is_im2col())
      a.box_dim[d] = static_cast<cuuint32_t>(map.box_dims[k]);
    a.element_strides[d] = static_cast<cuuint32_t>(map.element_strides[k]);
    // globalStrides[d - 1] is the stride of driver dimension d (d >= 1).
    if (d >= 1)
      a.global_strides[d - 1] = static_cast<cuuint64_t>(map.global_strides[k]);
  }
  a.interleave = row_of(tmap_interleaves, map.interleave);
  a.swizzle = row_of(tmap_swizzles, map.swizzle);
  a.l2_promotion = row_of(tmap_l2_promotions, map.l2_promotion);
  a.oob_fill = row_of(tmap_oob_fills, map.oob_fill);
  return a;
}

Fallible<Im2colEncodeArgs> im2col_encode_args(const tile::TensorMapDesc& map,
                                              std::uint64_t global_address) {
  Fallible<TiledEncodeArgs> common = tiled_encode_args(map, global_address);
  if (!common)
    return Failure{common.error()};
  Im2colEncodeArgs a;
  a.common = *common;
  // The corners flip as the dimensions do: driver corner s is spatial dimension
  // (rank - 3 - s) of the map's outermost-first list.
  const std::size_t spatial = map.im2col.lower_corner.size();
  for (std::size_t s = 0; s < spatial; ++s) {
    a.lower_corner[s] = static_cast<int>(map.im2col.lower_corner[spatial - 1 - s]);
    a.upper_corner[s] = static_cast<int>(map.im2col.upper_corner[spatial - 1 - s]);
  }
  a.channels = static_cast<cuuint32_t>(map.im2col.channels);
  a.pixels = static_cast<cuuint32_t>(map.im2col.pixels);
  return a;
}

ptxgen::Status encode_im2col(EncodeIm2colFn encode, const Im2colEncodeArgs& args,
                             TensorMapBlob& out) {
  if (encode == nullptr)
    return Failure{missing_im2col};
  if (const CUresult r = call_im2col(encode, args, out); r != CUDA_SUCCESS)
    return Failure{"cuTensorMapEncodeIm2col: CUresult " + std::to_string(static_cast<int>(r))};
  return {};
}

ptxgen::Status encode_tiled(EncodeTiledFn encode, const TiledEncodeArgs& args, TensorMapBlob& out) {
  if (encode == nullptr)
    return Failure{missing_encode};
  if (const CUresult r = call_encode(encode, args, out); r != CUDA_SUCCESS)
    return Failure{"cuTensorMapEncodeTiled: CUresult " + std::to_string(static_cast<int>(r))};
  return {};
}

ptxgen::Status encode_tensor_map(const DriverApi& api, const tile::TensorMapDesc& map,
                                 std::uint64_t global_address, TensorMapBlob& out) {
  if (map.is_im2col()) {
    if (api.cuTensorMapEncodeIm2col == nullptr)
      return Failure{missing_im2col};
    Fallible<Im2colEncodeArgs> args = im2col_encode_args(map, global_address);
    if (!args)
      return Failure{args.error()};
    if (const CUresult r = call_im2col(api.cuTensorMapEncodeIm2col, *args, out); r != CUDA_SUCCESS)
      return Failure{
          describe_error(api, r, "cuTensorMapEncodeIm2col for tensor `" + map.tensor + "`")};
    return {};
  }
  if (api.cuTensorMapEncodeTiled == nullptr)
    return Failure{missing_encode};
  Fallible<TiledEncodeArgs> args = tiled_encode_args(map, global_address);
  if (!args)
    return Failure{args.error()};
  if (const CUresult r = call_encode(api.cuTensorMapEncodeTiled, *args, out); r != CUDA_SUCCESS)
    return Failure{
        describe_error(api, r, "cuTensorMapEncodeTiled for tensor `" + map.tensor + "`")};
  return {};
}

TensorMapEncoder tensor_map_encoder(std::shared_ptr<const DriverApi> api) {
  static_assert(sizeof(TensorMapBlob) == tensor_map_bytes);
  return [api = std::move(api)](const tile::TensorMapDesc& map, std::uint64_t address,
                                TensorMapBytes& out) -> ptxgen::Status {
    TensorMapBlob blob{};
    if (auto s = encode_tensor_map(*api, map, address, blob); !s)
      return s;
    std::memcpy(out.data(), &blob, sizeof blob);
    return {};
  };
}

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
