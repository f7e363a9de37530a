// Parameters in another order than ptxgen's ABI (pointers, then scalars):
// (A, nbytes, B), as Triton interleaves them. Zero fill through
// __pipeline_memcpy_async's src-size form. The spec declares the order.
// Spec: tests/foreign/specs/scalar_between.toml.
#include <cuda_pipeline.h>
#include "common.cuh"

__global__ void __launch_bounds__(corpus::kThreads)
    scalar_between(const std::uint32_t* __restrict__ A, unsigned nbytes,
                   std::uint32_t* __restrict__ B) {
  __shared__ alignas(16) std::uint32_t s[corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned copy = nbytes > 16 * tid ? min(nbytes - 16 * tid, 16u) : 0u;
  __pipeline_memcpy_async(&s[tid * corpus::kChunkWords], &A[tid * corpus::kChunkWords], 16,
                          16 - copy);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  const unsigned m = corpus::partner(tid);
  for (unsigned w = 0; w < corpus::kChunkWords; ++w)
    B[tid * corpus::kChunkWords + w] = s[m * corpus::kChunkWords + w];
}
