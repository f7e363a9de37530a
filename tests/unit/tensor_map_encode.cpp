// Host encoding of tensor maps (driver/cuda/tensor_map_encode): the arguments handed to
// cuTensorMapEncodeTiled, checked through a fake entry point with its exact signature (no
// driver and no GPU needed): dimensions innermost first, the innermost stride left out, each
// enum as <cuda.h> spells it, and a missing entry point a clear failure.

#include "driver/cuda/config.hpp"

#include <doctest/doctest.h>

#if PTXGEN_CUDA_HEADERS

#include "driver/cuda/tensor_map_encode.hpp"

#include <cstdint>
#include <string>
#include <vector>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_tensor_map_encode {

using namespace ptxgen;
using namespace ptxgen::driver::cuda;
using tile::DType;

namespace {

// What the fake entry point was called with.
struct EncodeCall {
  int calls = 0;
  CUtensorMapDataType data_type{};
  cuuint32_t rank = 0;
  void* address = nullptr;
  std::vector<cuuint64_t> dims, strides;
  std::vector<cuuint32_t> box, steps;
  CUtensorMapInterleave interleave{};
  CUtensorMapSwizzle swizzle{};
  CUtensorMapL2promotion l2{};
  CUtensorMapFloatOOBfill fill{};
  std::uintptr_t blob_address = 0;
};
EncodeCall last_call;
CUresult fake_result = CUDA_SUCCESS;

CUresult fake_encode(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* address,
                     const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                     const cuuint32_t* steps, CUtensorMapInterleave interleave,
                     CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                     CUtensorMapFloatOOBfill fill) {
  EncodeCall c;
  c.calls = last_call.calls + 1;
  c.data_type = type;
  c.rank = rank;
  c.address = address;
  c.dims.assign(dims, dims + rank);
  c.strides.assign(strides, strides + (rank - 1));
  c.box.assign(box, box + rank);
  c.steps.assign(steps, steps + rank);
  c.interleave = interleave;
  c.swizzle = swizzle;
  c.l2 = l2;
  c.fill = fill;
  c.blob_address = reinterpret_cast<std::uintptr_t>(map);
  last_call = c;
  map->opaque[0] = 0x1234; // something the caller must hand back
  return fake_result;
}

// 3-D: 10 planes of 20 rows of 24 float16 (48 bytes), rows padded to 64 bytes.
tile::TensorMapDesc three_d() {
  tile::TensorMapDesc m;
  m.tensor = "X";
  m.dtype = DType::float16;
  m.global_dims = {10, 20, 24};
  m.global_strides = {20 * 64, 64};
  m.box_dims = {2, 4, 8};
  m.element_strides = {3, 2, 1};
  m.swizzle = tile::TensorMapSwizzle::b64;
  m.oob_fill = tile::TensorMapOobFill::nan;
  m.l2_promotion = tile::TensorMapL2Promotion::b128;
  return m;
}

} // namespace

TEST_CASE("the blob is <cuda.h>'s CUtensorMap: 128 bytes, aligned as the header says") {
  CHECK(sizeof(TensorMapBlob) == 128);
  CHECK(alignof(TensorMapBlob) == alignof(CUtensorMap));
#if CUDA_VERSION >= 13000
  CHECK(alignof(TensorMapBlob) == 128);
#else
  CHECK(alignof(TensorMapBlob) == 64);
#endif
}

TEST_CASE("dimensions reach the driver innermost first, without the innermost stride") {
  Fallible<TiledEncodeArgs> args = tiled_encode_args(three_d(), 0x7f0000001000);
  REQUIRE(args);
  last_call = {};
  fake_result = CUDA_SUCCESS;
  TensorMapBlob blob{};
  const Status done = encode_tiled(&fake_encode, *args, blob);
  REQUIRE(done);
  CHECK(blob.opaque[0] == 0x1234);
  CHECK(last_call.blob_address == reinterpret_cast<std::uintptr_t>(&blob));
  CHECK(last_call.calls == 1);
  CHECK(last_call.rank == 3);
  CHECK(reinterpret_cast<std::uintptr_t>(last_call.address) == 0x7f0000001000);
  CHECK(last_call.dims == std::vector<cuuint64_t>{24, 20, 10});
  CHECK(last_call.strides == std::vector<cuuint64_t>{64, 1280});
  CHECK(last_call.box == std::vector<cuuint32_t>{8, 4, 2});
  CHECK(last_call.steps == std::vector<cuuint32_t>{1, 2, 3});
  CHECK(last_call.data_type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  CHECK(last_call.interleave == CU_TENSOR_MAP_INTERLEAVE_NONE);
  CHECK(last_call.swizzle == CU_TENSOR_MAP_SWIZZLE_64B);
  CHECK(last_call.l2 == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  CHECK(last_call.fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  CHECK(last_call.blob_address % 64 == 0); // the driver's requirement on the map's address
}

TEST_CASE("each enum value maps to the driver's") {
  tile::TensorMapDesc m = three_d();
  m.oob_fill = tile::TensorMapOobFill::zero;
  const std::pair<tile::TensorMapSwizzle, CUtensorMapSwizzle> swizzles[] = {
      {tile::TensorMapSwizzle::none, CU_TENSOR_MAP_SWIZZLE_NONE},
      {tile::TensorMapSwizzle::b32, CU_TENSOR_MAP_SWIZZLE_32B},
      {tile::TensorMapSwizzle::b64, CU_TENSOR_MAP_SWIZZLE_64B},
      {tile::TensorMapSwizzle::b128, CU_TENSOR_MAP_SWIZZLE_128B}};
  m.box_dims = {2, 4, 16}; // 32 bytes: within every span
  for (const auto& [ours, theirs] : swizzles) {
    m.swizzle = ours;
    Fallible<TiledEncodeArgs> a = tiled_encode_args(m, 0x1000);
    REQUIRE(a);
    CHECK(a->swizzle == theirs);
    CHECK(a->oob_fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  }
  const std::pair<tile::TensorMapL2Promotion, CUtensorMapL2promotion> l2s[] = {
      {tile::TensorMapL2Promotion::none, CU_TENSOR_MAP_L2_PROMOTION_NONE},
      {tile::TensorMapL2Promotion::b64, CU_TENSOR_MAP_L2_PROMOTION_L2_64B},
      {tile::TensorMapL2Promotion::b128, CU_TENSOR_MAP_L2_PROMOTION_L2_128B},
      {tile::TensorMapL2Promotion::b256, CU_TENSOR_MAP_L2_PROMOTION_L2_256B}};
  for (const auto& [ours, theirs] : l2s) {
    m.l2_promotion = ours;
    Fallible<TiledEncodeArgs> a = tiled_encode_args(m, 0x1000);
    REQUIRE(a);
    CHECK(a->l2_promotion == theirs);
  }
}

TEST_CASE("every dtype maps to a driver type of its size and kind") {
  // Sizes as <cuda.h> documents each CUtensorMapDataType.
  const auto driver_size = [](CUtensorMapDataType t) -> unsigned {
    switch (t) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8:
      return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
      return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
      return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
      return 8;
    default:
      return 0;
    }
  };
  for (int k = 0; k <= static_cast<int>(DType::b64); ++k) {
    const auto t = static_cast<DType>(k);
    INFO(tile::name(t));
    CHECK(driver_size(tensor_map_data_type(t)) == tile::size_bytes(t));
  }
  CHECK(tensor_map_data_type(DType::float16) == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  CHECK(tensor_map_data_type(DType::bfloat16) == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  CHECK(tensor_map_data_type(DType::float32) == CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  CHECK(tensor_map_data_type(DType::float64) == CU_TENSOR_MAP_DATA_TYPE_FLOAT64);
  CHECK(tensor_map_data_type(DType::int32) == CU_TENSOR_MAP_DATA_TYPE_INT32);
  CHECK(tensor_map_data_type(DType::int64) == CU_TENSOR_MAP_DATA_TYPE_INT64);
  CHECK(tensor_map_data_type(DType::int8) == CU_TENSOR_MAP_DATA_TYPE_UINT8);
}

TEST_CASE("rank 1: no strides at all") {
  tile::TensorMapDesc m;
  m.tensor = "V";
  m.dtype = DType::uint32;
  m.global_dims = {1000};
  m.box_dims = {256};
  m.element_strides = {1};
  Fallible<TiledEncodeArgs> a = tiled_encode_args(m, 0x2000);
  REQUIRE(a);
  CHECK(a->rank == 1);
  CHECK(a->global_dim[0] == 1000);
  CHECK(a->box_dim[0] == 256);
  CHECK(a->global_strides[0] == 0);
}

TEST_CASE("failures: a broken rule, a misaligned address, the driver's error, no entry point") {
  tile::TensorMapDesc bad = three_d();
  bad.global_strides = {20 * 64, 56};
  Fallible<TiledEncodeArgs> a = tiled_encode_args(bad, 0x1000);
  REQUIRE(!a);
  CHECK(a.error().find("global_strides[1] = 56") != std::string::npos);

  a = tiled_encode_args(three_d(), 0x1008);
  REQUIRE(!a);
  CHECK(a.error().find("0x1008 is not a multiple of 16") != std::string::npos);

  a = tiled_encode_args(three_d(), 0x1000);
  REQUIRE(a);
  fake_result = CUDA_ERROR_INVALID_VALUE;
  TensorMapBlob blob{};
  Status done = encode_tiled(&fake_encode, *a, blob);
  fake_result = CUDA_SUCCESS;
  REQUIRE(!done);
  CHECK(done.error().find("cuTensorMapEncodeTiled") != std::string::npos);
  CHECK(done.error().find(std::to_string(static_cast<int>(CUDA_ERROR_INVALID_VALUE))) !=
        std::string::npos);

  done = encode_tiled(nullptr, *a, blob);
  REQUIRE(!done);
  CHECK(done.error().find("has no cuTensorMapEncodeTiled") != std::string::npos);

  const DriverApi no_driver{}; // an old driver: the optional entry point stayed null
  done = encode_tensor_map(no_driver, three_d(), 0x1000, blob);
  REQUIRE(!done);
  CHECK(done.error().find("has no cuTensorMapEncodeTiled") != std::string::npos);
}

} // namespace unit_tensor_map_encode

#else

namespace unit_tensor_map_encode {

// Without <cuda.h> there is no encoder to test; this case says so instead of leaving the
// file with no case (which the runner counts as a failure: nothing was tested).
TEST_CASE("tensor map encoding is built only with <cuda.h>, and this build has none") {
  CHECK(PTXGEN_CUDA_HEADERS == 0);
}

} // namespace unit_tensor_map_encode

#endif // PTXGEN_CUDA_HEADERS
