// A rolled double buffer over a runtime number of K tiles with
// __pipeline_memcpy_async: tile k+1 is fetched into the other stage while
// tile k is consumed (partner's rows, so the barrier matters).
// Spec: tests/foreign/specs/ring2.toml.
#include <cuda_pipeline.h>
#include "common.cuh"

__global__ void __launch_bounds__(corpus::kThreads)
    ring2(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B, unsigned k_tiles) {
  __shared__ alignas(16) std::uint32_t s[2][corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned m = corpus::partner(tid);
  const unsigned row = tid * corpus::kChunkWords;
  __pipeline_memcpy_async(&s[0][row], &A[row], 16);
  __pipeline_commit();
#pragma unroll 1
  for (unsigned k = 0; k < k_tiles; ++k) {
    __pipeline_wait_prior(0);
    __syncthreads();
    if (k + 1 < k_tiles)
      __pipeline_memcpy_async(&s[(k + 1) % 2][row], &A[(k + 1) * corpus::kTileWords + row], 16);
    __pipeline_commit();
    for (unsigned w = 0; w < corpus::kChunkWords; ++w)
      B[k * corpus::kTileWords + row + w] = s[k % 2][m * corpus::kChunkWords + w];
  }
}
