// Host encoding of im2col maps (driver/cuda/tensor_map_encode): the arguments handed to
// cuTensorMapEncodeIm2col, through a fake entry point with its exact signature (no driver and
// no GPU): dimensions and corners innermost first (W, H, D: as CUTLASS and cubecl pass them),
// channels and pixels as given, a null entry point a clear failure.

#include "driver/cuda/config.hpp"

#include <doctest/doctest.h>

#if PTXGEN_CUDA_HEADERS

#include "driver/cuda/tensor_map_encode.hpp"

#include <cstdint>
#include <vector>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_im2col_encode {

using namespace ptxgen;
using namespace ptxgen::driver::cuda;

namespace {

struct Im2colCall {
  int calls = 0;
  cuuint32_t rank = 0;
  std::vector<cuuint64_t> dims, strides;
  std::vector<int> lower, upper;
  cuuint32_t channels = 0, pixels = 0;
  std::vector<cuuint32_t> steps;
};
Im2colCall last;

CUresult fake_im2col(CUtensorMap*, CUtensorMapDataType, cuuint32_t rank, void*,
                     const cuuint64_t* dims, const cuuint64_t* strides, const int* lower,
                     const int* upper, cuuint32_t channels, cuuint32_t pixels,
                     const cuuint32_t* steps, CUtensorMapInterleave, CUtensorMapSwizzle,
                     CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  last.calls += 1;
  last.rank = rank;
  last.dims.assign(dims, dims + rank);
  last.strides.assign(strides, strides + (rank - 1));
  last.lower.assign(lower, lower + (rank - 2));
  last.upper.assign(upper, upper + (rank - 2));
  last.channels = channels;
  last.pixels = pixels;
  last.steps.assign(steps, steps + rank);
  return CUDA_SUCCESS;
}

// NDHWC: 2 images of 3 x 4 x 5 pixels of 8 float16 channels, dense.
tile::TensorMapDesc ndhwc() {
  tile::TensorMapDesc m;
  m.tensor = "X";
  m.dtype = tile::DType::float16;
  m.mode = tile::TensorMapMode::im2col;
  m.global_dims = {2, 3, 4, 5, 8};
  m.global_strides = {3 * 4 * 5 * 16, 4 * 5 * 16, 5 * 16, 16};
  m.element_strides = {1, 1, 2, 3, 1};
  m.im2col = {{-1, -2, -3}, {1, 2, 3}, 8, 40};
  return m;
}

} // namespace

TEST_CASE("cuTensorMapEncodeIm2col gets dims, strides, corners and steps innermost first") {
  auto args = im2col_encode_args(ndhwc(), 0x10000);
  REQUIRE(args);
  TensorMapBlob blob{};
  last = {};
  REQUIRE(encode_im2col(&fake_im2col, *args, blob));
  CHECK(last.calls == 1);
  CHECK(last.rank == 5);
  CHECK(last.dims == std::vector<cuuint64_t>{8, 5, 4, 3, 2});
  CHECK(last.strides == std::vector<cuuint64_t>{16, 80, 320, 960});
  CHECK(last.lower == std::vector<int>{-3, -2, -1}); // W, H, D
  CHECK(last.upper == std::vector<int>{3, 2, 1});
  CHECK(last.channels == 8);
  CHECK(last.pixels == 40);
  CHECK(last.steps == std::vector<cuuint32_t>{1, 3, 2, 1, 1});
}

TEST_CASE("an im2col encoding refuses a broken map and a missing entry point") {
  tile::TensorMapDesc bad = ndhwc();
  bad.im2col.pixels = 2000;
  CHECK_FALSE(im2col_encode_args(bad, 0x10000));
  auto args = im2col_encode_args(ndhwc(), 0x10000);
  REQUIRE(args);
  TensorMapBlob blob{};
  CHECK_FALSE(encode_im2col(nullptr, *args, blob));
}

} // namespace unit_im2col_encode

#endif // PTXGEN_CUDA_HEADERS
