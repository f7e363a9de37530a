// CUTLASS-style helpers of the cutlass_ms* kernels of the foreign-PTX corpus
// (docs/foreign.md): cp.async with a predicate guard in a scoped `.reg .pred`,
// commit/wait without memory clobbers, and `ldmatrix.sync.aligned.x4.m8n8` as
// cute/CUTLASS write them.
#pragma once
#include "codegen.cuh"

namespace cutlass_style {
__device__ __forceinline__ void cp_async_cg16(unsigned smem, const void* gmem, bool pred_guard) {
  asm volatile("{\n"
               "  .reg .pred p;\n"
               "  setp.ne.b32 p, %0, 0;\n"
               "  @p cp.async.cg.shared.global [%1], [%2], %3;\n"
               "}\n" ::"r"(static_cast<int>(pred_guard)),
               "r"(smem), "l"(gmem), "n"(16));
}
__device__ __forceinline__ void cp_async_fence() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
__device__ __forceinline__ void ldsm_x4(unsigned (&d)[4], unsigned smem) {
  asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(smem));
}
__device__ __forceinline__ void ldsm_x4_trans(unsigned (&d)[4], unsigned smem) {
  asm volatile("ldmatrix.sync.aligned.x4.trans.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(smem));
}
/// The HFMA2 that stands in for the tensor-core mma (the simulator does not run mma.sync).
__device__ __forceinline__ unsigned hfma2(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("fma.rn.f16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
/// The 16-byte row lane `lane` of warp `warp` gives ldmatrix.x4: rows of the warp
/// `warp_of_rows` (another warp's, so the reads cross warps), one per lane.
__device__ __forceinline__ unsigned ldsm_row(unsigned warp_of_rows, unsigned lane) {
  return warp_of_rows * 32 + lane;
}
/// Where fragment j of lane `lane` came from (non-transposed x4): row 8j + lane/4 of
/// the rows' warp, word lane % 4 (as a word index into a tile of 16-byte rows).
__device__ __forceinline__ unsigned ldsm_word(unsigned warp_of_rows, unsigned lane, unsigned j) {
  return (warp_of_rows * 32 + 8 * j + lane / 4) * corpus::kChunkWords + lane % 4;
}
} // namespace cutlass_style
