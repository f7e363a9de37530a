// A rolled 4-stage ring over a runtime number of K tiles with
// __pipeline_memcpy_async and __pipeline_wait_prior(2), stage = k % 4.
// Spec: tests/foreign/specs/ring4.toml.
#include <cuda_pipeline.h>
#include "common.cuh"

__global__ void __launch_bounds__(corpus::kThreads)
    ring4(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B, unsigned k_tiles) {
  constexpr unsigned kStages = 4;
  __shared__ alignas(16) std::uint32_t s[kStages][corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned m = corpus::partner(tid);
  const unsigned row = tid * corpus::kChunkWords;
  for (unsigned p = 0; p < kStages - 1; ++p) {
    if (p < k_tiles)
      __pipeline_memcpy_async(&s[p][row], &A[p * corpus::kTileWords + row], 16);
    __pipeline_commit();
  }
  for (unsigned k = 0; k < k_tiles; ++k) {
    __pipeline_wait_prior(kStages - 2);
    __syncthreads();
    const unsigned next = k + kStages - 1;
    if (next < k_tiles)
      __pipeline_memcpy_async(&s[next % kStages][row], &A[next * corpus::kTileWords + row], 16);
    __pipeline_commit();
    for (unsigned w = 0; w < corpus::kChunkWords; ++w)
      B[k * corpus::kTileWords + row + w] = s[k % kStages][m * corpus::kChunkWords + w];
  }
}
