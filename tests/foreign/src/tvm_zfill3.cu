// TVM `inject_ptx_async_copy` output style with a predicate, 3 stages: a copy
// whose predicate is false stores zeros instead (`@p cp.async.cg ...; @!p
// st.shared.v4.u32 [%1], {%4, %4, %4, %4};` in one asm block, as TVM emits for a
// predicated async copy), rows at or past `valid` and tiles past the last are
// zeros; one group per operand (two per stage), `cp.async.wait_group 2` in the
// loop (tile k's groups done, tile k+1's two may pend), the refill after the
// compute. Spec: tests/foreign/specs/tvm_zfill3.toml.
#include "codegen.cuh"

namespace {
__device__ __forceinline__ void tvm_cp_async16_pred(void* smem, const void* gmem, bool pred) {
  unsigned int addr;
  __asm__ __volatile__("{ .reg .u64 addr; cvta.to.shared.u64 addr, %1; cvt.u32.u64 %0, addr; }\n"
                       : "=r"(addr)
                       : "l"(smem));
  __asm__ __volatile__("{\n"
                       "  .reg .pred p;\n"
                       "  setp.ne.b32 p, %0, 0;\n"
                       "  @p cp.async.cg.shared.global [%1], [%2], %3;\n"
                       "  @!p st.shared.v4.u32 [%1], {%4, %4, %4, %4};\n"
                       "}\n" ::"r"(static_cast<int>(pred)),
                       "r"(addr), "l"(gmem), "n"(16), "r"(0));
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    tvm_zfill3(const std::uint32_t* __restrict__ A, const std::uint32_t* __restrict__ W,
               std::uint32_t* __restrict__ OA, std::uint32_t* __restrict__ OB,
               float* __restrict__ C, unsigned k_tiles, unsigned store_acc, unsigned valid) {
  constexpr unsigned kStages = 3;
  __shared__ alignas(16) std::uint32_t A_shared[kStages][corpus::kTileWords];
  __shared__ alignas(16) std::uint32_t W_shared[kStages][corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned row = tid * corpus::kChunkWords;
  const unsigned ra = corpus::partner(tid) * corpus::kChunkWords;
  const unsigned rw = codegen::w_row(tid) * corpus::kChunkWords;
  for (unsigned s = 0; s < kStages - 1; ++s) {
    const unsigned t = s < k_tiles ? s : k_tiles - 1;
    const bool on = s < k_tiles && tid < valid;
    tvm_cp_async16_pred(&A_shared[s][row], &A[t * corpus::kTileWords + row], on);
    __asm__ __volatile__("cp.async.commit_group;");
    tvm_cp_async16_pred(&W_shared[s][row], &W[t * corpus::kTileWords + row], on);
    __asm__ __volatile__("cp.async.commit_group;");
  }
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (unsigned k = 0; k < k_tiles; ++k) {
    __asm__ __volatile__("cp.async.wait_group 2;");
    __syncthreads();
    for (unsigned i = 0; i < 4; ++i) {
      const std::uint32_t a = A_shared[k % kStages][ra + i], w = W_shared[k % kStages][rw + i];
      acc[i] = fmaf(__uint_as_float(a), __uint_as_float(w), acc[i]);
      OA[k * corpus::kTileWords + ra + i] = a;
      OB[k * corpus::kTileWords + rw + i] = w;
    }
    const unsigned next = k + kStages - 1;
    const unsigned t = next < k_tiles ? next : k_tiles - 1;
    const bool on = next < k_tiles && tid < valid;
    tvm_cp_async16_pred(&A_shared[next % kStages][row], &A[t * corpus::kTileWords + row], on);
    __asm__ __volatile__("cp.async.commit_group;");
    tvm_cp_async16_pred(&W_shared[next % kStages][row], &W[t * corpus::kTileWords + row], on);
    __asm__ __volatile__("cp.async.commit_group;");
  }
  if (store_acc)
    for (unsigned i = 0; i < 4; ++i)
      C[row + i] = acc[i];
}
