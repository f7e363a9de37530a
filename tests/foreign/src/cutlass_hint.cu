// CUTLASS-style cache hints in inline asm: an L2 policy made by
// `createpolicy.fractional.L2::evict_last.b64` and passed to
// `cp.async.cg.shared.global.L2::cache_hint`, inside a `{ }` scope with a
// scoped `.reg .pred` (always true here). Two CTAs, one tile each.
// Spec: tests/foreign/specs/cutlass_hint.toml.
#include "common.cuh"

namespace {
__device__ __forceinline__ std::uint64_t evict_last_policy() {
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ void cp_async_hint(unsigned smem, const void* gmem, bool pred,
                                              std::uint64_t policy) {
  asm volatile("{\n"
               "  .reg .pred p;\n"
               "  setp.ne.b32 p, %0, 0;\n"
               "  @p cp.async.cg.shared.global.L2::cache_hint [%1], [%2], 16, %3;\n"
               "}\n" ::"r"(static_cast<int>(pred)),
               "r"(smem), "l"(gmem), "l"(policy));
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    cutlass_hint(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B) {
  __shared__ alignas(16) std::uint32_t s[corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned row = (blockIdx.x * corpus::kThreads + tid) * corpus::kChunkWords;
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(&s[tid * corpus::kChunkWords]));
  cp_async_hint(smem, &A[row], true, evict_last_policy());
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
  const unsigned m = corpus::partner(tid);
  for (unsigned w = 0; w < corpus::kChunkWords; ++w)
    B[row + w] = s[m * corpus::kChunkWords + w];
}
