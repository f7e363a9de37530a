// A rolled 3-stage ring (stage = k % 3, two 16-byte chunks per thread per
// tile) for which nvcc -O3 keeps a shared base register that has wrapped below
// zero and reads `[%r+N]` with N near 12288: 32-bit shared address arithmetic
// that wraps past 2^32, as PTX allows. ring3_wrap.ptx is this file compiled by
//   nvcc -arch=sm_80 -O3 -ptx ring3_wrap.cu -o ring3_wrap.ptx
// Launch: grid 1, block 64, A = k_tiles * 128 uint4, B likewise.
#include <cuda_pipeline.h>
#include <cstdint>

extern "C" __global__ void __launch_bounds__(64)
    ring3_wrap(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B,
               unsigned k_tiles) {
  constexpr unsigned kThreads = 64;
  constexpr unsigned kStages = 3;
  constexpr unsigned kChunks = 2 * kThreads;
  __shared__ alignas(16) uint4 s[kStages][kChunks];
  const unsigned tid = threadIdx.x;
  const uint4* a = reinterpret_cast<const uint4*>(A);
  uint4* b = reinterpret_cast<uint4*>(B);
  for (unsigned p = 0; p < kStages - 1; ++p) {
    if (p < k_tiles) {
      __pipeline_memcpy_async(&s[p][tid], &a[p * kChunks + tid], 16);
      __pipeline_memcpy_async(&s[p][tid + kThreads], &a[p * kChunks + tid + kThreads], 16);
    }
    __pipeline_commit();
  }
  for (unsigned k = 0; k < k_tiles; ++k) {
    __pipeline_wait_prior(kStages - 2);
    __syncthreads();
    const unsigned next = k + kStages - 1;
    if (next < k_tiles) {
      __pipeline_memcpy_async(&s[next % kStages][tid], &a[next * kChunks + tid], 16);
      __pipeline_memcpy_async(&s[next % kStages][tid + kThreads],
                              &a[next * kChunks + tid + kThreads], 16);
    }
    __pipeline_commit();
    b[k * kChunks + tid] = s[k % kStages][kChunks - 1 - tid];
    b[k * kChunks + tid + kThreads] = s[k % kStages][kThreads - 1 - tid];
  }
}
