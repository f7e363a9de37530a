// `extern __shared__` (dynamic shared memory, `.extern .shared` in PTX) filled
// by __pipeline_memcpy_async, launched with the spec's shared tensor size as
// the dynamic shared bytes. Spec: tests/foreign/specs/extern_shared.toml.
#include <cuda_pipeline.h>
#include "common.cuh"

__global__ void __launch_bounds__(corpus::kThreads)
    extern_shared(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B) {
  extern __shared__ uint4 dyn[];
  const unsigned tid = threadIdx.x;
  __pipeline_memcpy_async(&dyn[tid], &reinterpret_cast<const uint4*>(A)[tid], 16);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  reinterpret_cast<uint4*>(B)[tid] = dyn[corpus::partner(tid)];
}
