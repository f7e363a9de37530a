// TVM `inject_ptx_async_copy` output style, double buffered: every copy is its own
// inline-asm block that converts the shared pointer with `cvta.to.shared.u64` +
// `cvt.u32.u64` and issues `cp.async.cg.shared.global.L2::128B [%0], [%1], 16;`,
// and each operand's copies are committed as their own group (TVM's
// async_commit_queue per buffer), so a stage is two groups: the loop prefetches
// A and W of tile k+1 (two commits), waits with `cp.async.wait_group 2` (tile k's
// two groups done), syncs, computes, and syncs again before the next refill.
// Spec: tests/foreign/specs/tvm_ab2.toml.
#include "codegen.cuh"

namespace {
__device__ __forceinline__ void tvm_cp_async16(void* smem, const void* gmem) {
  unsigned int addr;
  __asm__ __volatile__("{ .reg .u64 addr; cvta.to.shared.u64 addr, %1; cvt.u32.u64 %0, addr; }\n"
                       : "=r"(addr)
                       : "l"(smem));
  __asm__ __volatile__("cp.async.cg.shared.global.L2::128B [%0], [%1], %2;" ::"r"(addr),
                       "l"(gmem), "n"(16));
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    tvm_ab2(const std::uint32_t* __restrict__ A, const std::uint32_t* __restrict__ W,
            std::uint32_t* __restrict__ OA, std::uint32_t* __restrict__ OB,
            float* __restrict__ C, unsigned k_tiles, unsigned store_acc) {
  __shared__ alignas(16) std::uint32_t A_shared[2][corpus::kTileWords];
  __shared__ alignas(16) std::uint32_t W_shared[2][corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned row = tid * corpus::kChunkWords;
  const unsigned ra = corpus::partner(tid) * corpus::kChunkWords;
  const unsigned rw = codegen::w_row(tid) * corpus::kChunkWords;
  tvm_cp_async16(&A_shared[0][row], &A[row]);
  __asm__ __volatile__("cp.async.commit_group;");
  tvm_cp_async16(&W_shared[0][row], &W[row]);
  __asm__ __volatile__("cp.async.commit_group;");
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (unsigned k = 0; k < k_tiles; ++k) {
    if (k + 1 < k_tiles)
      tvm_cp_async16(&A_shared[(k + 1) & 1][row], &A[(k + 1) * corpus::kTileWords + row]);
    __asm__ __volatile__("cp.async.commit_group;");
    if (k + 1 < k_tiles)
      tvm_cp_async16(&W_shared[(k + 1) & 1][row], &W[(k + 1) * corpus::kTileWords + row]);
    __asm__ __volatile__("cp.async.commit_group;");
    __asm__ __volatile__("cp.async.wait_group 2;");
    __syncthreads();
    for (unsigned i = 0; i < 4; ++i) {
      const std::uint32_t a = A_shared[k & 1][ra + i], w = W_shared[k & 1][rw + i];
      acc[i] = fmaf(__uint_as_float(a), __uint_as_float(w), acc[i]);
      OA[k * corpus::kTileWords + ra + i] = a;
      OB[k * corpus::kTileWords + rw + i] = w;
    }
    __syncthreads();
  }
  if (store_acc)
    for (unsigned i = 0; i < 4; ++i)
      C[row + i] = acc[i];
}
