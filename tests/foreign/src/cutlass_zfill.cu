// CUTLASS-style zero fill in inline asm (cutlass::arch::cp_async_zfill):
// src-size = pred ? 16 : 0 through a register, predicated on a scoped .pred as
// well for the prefetch of the next row (`@p prefetch.global.L2`), with
// `.L2::128B`. Rows at and past `valid` come out zero.
// Spec: tests/foreign/specs/cutlass_zfill.toml.
#include "common.cuh"

namespace {
__device__ __forceinline__ void cp_async_zfill(unsigned smem, const void* gmem, bool pred) {
  const int src_bytes = pred ? 16 : 0;
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(smem), "l"(gmem),
               "r"(src_bytes));
}
__device__ __forceinline__ void prefetch_l2(const void* gmem, bool pred) {
  asm volatile("{\n"
               "  .reg .pred p;\n"
               "  setp.ne.b32 p, %0, 0;\n"
               "  @p prefetch.global.L2 [%1];\n"
               "}\n" ::"r"(static_cast<int>(pred)),
               "l"(gmem));
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    cutlass_zfill(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B,
                  unsigned valid) {
  __shared__ alignas(16) std::uint32_t s[corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  prefetch_l2(&A[tid * corpus::kChunkWords], tid < valid);
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(&s[tid * corpus::kChunkWords]));
  cp_async_zfill(smem, &A[tid * corpus::kChunkWords], tid < valid);
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  const unsigned m = corpus::partner(tid);
  for (unsigned w = 0; w < corpus::kChunkWords; ++w)
    B[tid * corpus::kChunkWords + w] = s[m * corpus::kChunkWords + w];
}
