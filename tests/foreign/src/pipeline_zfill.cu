// __pipeline_memcpy_async with zero fill (the src-size form): thread t copies
// clamp(nbytes - 16 t, 0, 16) bytes of its row and zero-fills the rest of the
// 16-byte chunk, so rows past nbytes come out zero and the row that straddles
// it partly zero. Spec: tests/foreign/specs/pipeline_zfill.toml.
#include <cuda_pipeline.h>
#include "common.cuh"

__global__ void __launch_bounds__(corpus::kThreads)
    pipeline_zfill(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B,
                   unsigned nbytes) {
  __shared__ alignas(16) std::uint32_t s[corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const int left = static_cast<int>(nbytes) - static_cast<int>(16 * tid);
  const unsigned copy = left <= 0 ? 0u : (left >= 16 ? 16u : static_cast<unsigned>(left));
  __pipeline_memcpy_async(&s[tid * corpus::kChunkWords], &A[tid * corpus::kChunkWords], 16,
                          16 - copy);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  const unsigned m = corpus::partner(tid);
  for (unsigned w = 0; w < corpus::kChunkWords; ++w)
    B[tid * corpus::kChunkWords + w] = s[m * corpus::kChunkWords + w];
}
