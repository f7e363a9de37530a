// The seed's complete kernel as an expert writes it by hand in CUDA C++ with
// inline-asm cp.async: the register baseline for ptxgen's specs/seed/copy_async.toml.
// Built by tools/compare_registers.sh with nvcc -O3.
#include <cuda_fp16.h>
#include <cstdint>

extern "C" __global__ void __launch_bounds__(128)
    copy_async(const __half* __restrict__ A, __half* __restrict__ B) {
  __shared__ alignas(128) __half shared[128 * 32];
  const unsigned tid = threadIdx.x;
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(&shared[tid * 32]));
  const __half* src = A + tid * 32;
#pragma unroll
  for (int r = 0; r < 4; ++r)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem + r * 16),
                 "l"(src + r * 8));
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
  const uint4* s4 = reinterpret_cast<const uint4*>(&shared[tid * 32]);
  uint4* b4 = reinterpret_cast<uint4*>(B + tid * 32);
#pragma unroll
  for (int j = 0; j < 4; ++j)
    b4[j] = s4[j];
}
