// CUTLASS-style predicated cp.async in inline asm (cute's SM80_CP_ASYNC
// predicated form): shared memory is first filled with a sentinel, then each
// thread copies its row only when tid < valid (`@p cp.async ... .L2::128B`),
// so rows at and past `valid` keep the sentinel.
// Spec: tests/foreign/specs/cutlass_pred.toml.
#include "common.cuh"

namespace {
__device__ __forceinline__ void cp_async_pred(unsigned smem, const void* gmem, bool pred) {
  asm volatile("{\n"
               "  .reg .pred p;\n"
               "  setp.ne.b32 p, %0, 0;\n"
               "  @p cp.async.cg.shared.global.L2::128B [%1], [%2], 16;\n"
               "}\n" ::"r"(static_cast<int>(pred)),
               "r"(smem), "l"(gmem));
}
} // namespace

extern "C" __global__ void __launch_bounds__(corpus::kThreads)
    cutlass_pred(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B,
                 unsigned valid) {
  __shared__ alignas(16) std::uint32_t s[corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  for (unsigned w = 0; w < corpus::kChunkWords; ++w)
    s[tid * corpus::kChunkWords + w] = 0x5A5A5A5Au;
  __syncthreads();
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(&s[tid * corpus::kChunkWords]));
  cp_async_pred(smem, &A[tid * corpus::kChunkWords], tid < valid);
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
  const unsigned m = corpus::partner(tid);
  for (unsigned w = 0; w < corpus::kChunkWords; ++w)
    B[tid * corpus::kChunkWords + w] = s[m * corpus::kChunkWords + w];
}
