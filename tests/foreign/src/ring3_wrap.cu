// A rolled 3-stage ring over a runtime number of K tiles (two 16-byte chunks
// per thread per tile, stage = k % 3) for which nvcc -O3 keeps a shared base
// register that has wrapped below zero (`mul.lo.s32 %r, %r, -12288`) and
// reads `[%r+12272]`: the 32-bit shared address arithmetic wraps past 2^32,
// as PTX allows. Spec: tests/foreign/specs/ring3_wrap.toml.
#include <cuda_pipeline.h>
#include "common.cuh"

__global__ void __launch_bounds__(corpus::kThreads)
    ring3_wrap(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B,
               unsigned k_tiles) {
  constexpr unsigned kStages = 3;
  constexpr unsigned kChunks = 2 * corpus::kThreads; // 16-byte chunks per tile
  __shared__ alignas(16) uint4 s[kStages][kChunks];
  const unsigned tid = threadIdx.x;
  const uint4* a = reinterpret_cast<const uint4*>(A);
  uint4* b = reinterpret_cast<uint4*>(B);
  for (unsigned p = 0; p < kStages - 1; ++p) {
    if (p < k_tiles) {
      __pipeline_memcpy_async(&s[p][tid], &a[p * kChunks + tid], 16);
      __pipeline_memcpy_async(&s[p][tid + corpus::kThreads], &a[p * kChunks + tid + corpus::kThreads], 16);
    }
    __pipeline_commit();
  }
  for (unsigned k = 0; k < k_tiles; ++k) {
    __pipeline_wait_prior(kStages - 2);
    __syncthreads();
    const unsigned next = k + kStages - 1;
    if (next < k_tiles) {
      __pipeline_memcpy_async(&s[next % kStages][tid], &a[next * kChunks + tid], 16);
      __pipeline_memcpy_async(&s[next % kStages][tid + corpus::kThreads],
                              &a[next * kChunks + tid + corpus::kThreads], 16);
    }
    __pipeline_commit();
    // chunk c goes out from chunk c ^ 64, which the partner thread copied
    b[k * kChunks + tid] = s[k % kStages][corpus::partner(tid)];
    b[k * kChunks + tid + corpus::kThreads] = s[k % kStages][corpus::partner(tid) + corpus::kThreads];
  }
}
