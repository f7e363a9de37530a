#pragma once
// A tensor map encoded on the host: cuTensorMapEncodeTiled, reached through the Driver API
// table (driver_api.hpp), from a tile::TensorMapDesc and the tensor's device address.
//
// TensorMapDesc lists dimensions outermost first; the driver takes them innermost first, and
// its globalStrides leave out the innermost dimension (whose stride is the element size).
// tiled_encode_args() is the one place the order flips.

#include "driver/cuda/config.hpp"
#include "emitter/support/result.hpp"
#include "emitter/tile/tensor_map.hpp"

#if PTXGEN_CUDA_HEADERS

#include "driver/cuda/driver_api.hpp"
#include "driver/cuda/kernel_params.hpp"

#include <array>
#include <cstdint>
#include <memory>

#include <cuda.h>

namespace ptxgen::driver::cuda {

/// The encoded map: <cuda.h>'s own type, so its size (128 bytes) and alignment (alignas(128)
/// in CUDA 13, 64 before; the driver needs 64) are the header's.
using TensorMapBlob = CUtensorMap;
static_assert(sizeof(TensorMapBlob) == 128, "a tensor map is 128 bytes");
static_assert(alignof(TensorMapBlob) >= 64, "cuTensorMapEncodeTiled needs 64-byte alignment");

/// cuTensorMapEncodeTiled's arguments, innermost dimension first as the driver takes them.
struct TiledEncodeArgs {
  CUtensorMapDataType data_type = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  cuuint32_t rank = 0;
  std::uint64_t global_address = 0;
  std::array<cuuint64_t, tile::kTensorMapMaxRank> global_dim{};
  std::array<cuuint64_t, tile::kTensorMapMaxRank - 1> global_strides{}; ///< rank - 1 used
  std::array<cuuint32_t, tile::kTensorMapMaxRank> box_dim{};
  std::array<cuuint32_t, tile::kTensorMapMaxRank> element_strides{};
  CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
  CUtensorMapFloatOOBfill oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

/// cuTensorMapEncodeIm2col's arguments beyond the tiled ones (whose box_dim it does not
/// take): the corners innermost first (W, H, D) as the driver takes them.
struct Im2colEncodeArgs {
  TiledEncodeArgs common;                                      ///< every argument but box_dim
  std::array<int, tile::kTensorMapMaxRank - 2> lower_corner{}; ///< rank - 2 used
  std::array<int, tile::kTensorMapMaxRank - 2> upper_corner{};
  cuuint32_t channels = 0; ///< channelsPerPixel
  cuuint32_t pixels = 0;   ///< pixelsPerColumn
};

/// The driver's data type for a ptxgen dtype: the one of the same size and kind (signed
/// 8- and 16-bit integers and the untyped views as the unsigned type of their size: a tile
/// copy moves bits, and only float types are filled with NaN).
CUtensorMapDataType tensor_map_data_type(tile::DType t);

/// The arguments for `map` over the tensor at `global_address`. A failure says which rule
/// the map or the address breaks (check_tensor_map()'s first message, or the address's
/// alignment).
Fallible<TiledEncodeArgs> tiled_encode_args(const tile::TensorMapDesc& map,
                                            std::uint64_t global_address);

/// The arguments for an im2col `map` over the tensor at `global_address` (failures as
/// tiled_encode_args()'s).
Fallible<Im2colEncodeArgs> im2col_encode_args(const tile::TensorMapDesc& map,
                                              std::uint64_t global_address);

using EncodeTiledFn = decltype(&::cuTensorMapEncodeTiled);
using EncodeIm2colFn = decltype(&::cuTensorMapEncodeIm2col);

/// Calls `encode` with `args` into `out`; a null `encode` is a failure that says the driver
/// has no cuTensorMapEncodeIm2col.
ptxgen::Status encode_im2col(EncodeIm2colFn encode, const Im2colEncodeArgs& args,
                             TensorMapBlob& out);

/// Calls `encode` with `args`, writing the map into `out` (an out-parameter: the blob's
/// 128-byte alignment is not passed by value). A failure names the driver's error; a null
/// `encode` is a failure that says the driver has no cuTensorMapEncodeTiled (CUDA 12.0
/// added it).
ptxgen::Status encode_tiled(EncodeTiledFn encode, const TiledEncodeArgs& args, TensorMapBlob& out);

/// tiled_encode_args() then encode_tiled() through the driver's table, into `out` (an
/// im2col map: im2col_encode_args() then encode_im2col()).
ptxgen::Status encode_tensor_map(const DriverApi& api, const tile::TensorMapDesc& map,
                                 std::uint64_t global_address, TensorMapBlob& out);

/// A launch's TensorMapEncoder (kernel_params.hpp): encode_tensor_map() through `api`.
TensorMapEncoder tensor_map_encoder(std::shared_ptr<const DriverApi> api);

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
