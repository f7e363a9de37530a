// A 2-D TMA tile load through libcu++'s experimental functions (sm_90 only): the
// tensor map of A (30 x 64 u32, 128-byte swizzle, 16 x 32 boxes, zero fill) is
// a `const __grid_constant__ CUtensorMap` parameter, as CUTLASS passes it.
// Thread 0 loads each of the four boxes that cover A (rows 0..31, columns
// 0..63) with cp_async_bulk_tensor_2d_global_to_shared and arrives with the
// box's bytes (barrier_arrive_tx), every thread waits on the phase parity,
// reads its elements through the 128-byte swizzle (16-byte chunk j of 128-byte
// line L is chunk j ^ (L % 8)) and writes them to B; a __syncthreads before the
// next box overwrites the tile. Rows 30 and 31 lie outside A: the load fills
// them with zeros, which B receives.
// Spec (it needs the [tensor.A.map] table): tests/foreign/specs/tma_tile.toml.
#include <cuda.h>
#include <cuda/barrier>
#include "common.cuh"

namespace cde = cuda::device::experimental;
using barrier_t = cuda::barrier<cuda::thread_scope_block>;

namespace {
constexpr unsigned kRows = 32, kCols = 64;        // B; A has 30 rows
constexpr unsigned kBoxRows = 16, kBoxCols = 32;  // a box: 16 lines of 128 bytes
constexpr unsigned kBoxBytes = kBoxRows * kBoxCols * 4;
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    tma_tile(const __grid_constant__ CUtensorMap tmap, std::uint32_t* __restrict__ B) {
  __shared__ alignas(1024) std::uint32_t tile[kBoxRows * kBoxCols];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar;
  const unsigned tid = threadIdx.x;
  if (tid == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
#pragma unroll 1
  for (unsigned k = 0; k < (kRows / kBoxRows) * (kCols / kBoxCols); ++k) {
    const unsigned row0 = k / 2 * kBoxRows, col0 = k % 2 * kBoxCols;
    if (tid == 0) {
      cde::cp_async_bulk_tensor_2d_global_to_shared(tile, &tmap, col0, row0, bar);
      (void)cuda::device::barrier_arrive_tx(bar, 1, kBoxBytes);
    } else {
      (void)bar.arrive();
    }
    bar.wait_parity(k & 1);
    for (unsigned e = tid; e < kBoxRows * kBoxCols; e += blockDim.x) {
      const unsigned line = e / kBoxCols, word = e % kBoxCols;
      const unsigned chunk = (word / 4) ^ (line % 8);
      B[(row0 + line) * kCols + col0 + word] = tile[line * kBoxCols + chunk * 4 + word % 4];
    }
    __syncthreads(); // every thread has read the tile before the next box overwrites it
  }
}
