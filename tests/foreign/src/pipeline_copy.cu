// __pipeline_memcpy_async (cuda_pipeline_primitives.h) without zero fill:
// each thread copies its 16-byte row of A into shared memory, waits, syncs,
// and writes the row of its partner thread (tid ^ 64) to B, so the barrier
// matters. Spec: tests/foreign/specs/pipeline_copy.toml.
#include <cuda_pipeline.h>
#include "common.cuh"

__global__ void __launch_bounds__(corpus::kThreads)
    pipeline_copy(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B) {
  __shared__ alignas(16) std::uint32_t s[corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  __pipeline_memcpy_async(&s[tid * corpus::kChunkWords], &A[tid * corpus::kChunkWords], 16);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  const unsigned m = corpus::partner(tid);
  for (unsigned w = 0; w < corpus::kChunkWords; ++w)
    B[tid * corpus::kChunkWords + w] = s[m * corpus::kChunkWords + w];
}
