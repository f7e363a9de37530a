// Triton-style pipelined matmul load loop, num_stages = 4, with the stage picked
// by rotating insert/extract counters (Triton's `insertIdx` / `extractIdx`,
// wrapped with a select, not a modulo): the prologue commits one group per
// stage 0..2, the loop waits with `wait_group 2`, syncs, reads the extract stage,
// refills the insert stage (the one the previous iteration read) and FMAs.
// Spec: tests/foreign/specs/triton_mm4.toml.
#include "codegen.cuh"

namespace {
__device__ __forceinline__ void tt4_load16(unsigned dst, const void* src, unsigned src_size) {
  asm volatile("cp.async.cg.shared.global [ %0 + 0 ], [ %1 + 0 ], 0x10, %2;\n" ::"r"(dst),
               "l"(src), "r"(src_size));
}
__device__ __forceinline__ void tt4_commit() {
  asm volatile("cp.async.commit_group ;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void tt4_wait() {
  asm volatile("cp.async.wait_group %0 ;\n" ::"n"(N) : "memory");
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    triton_mm4(const std::uint32_t* __restrict__ A, const std::uint32_t* __restrict__ W,
               std::uint32_t* __restrict__ OA, std::uint32_t* __restrict__ OB,
               float* __restrict__ C, unsigned k_tiles, unsigned store_acc) {
  constexpr unsigned kStages = 4;
  __shared__ alignas(16) std::uint32_t sA[kStages][corpus::kTileWords];
  __shared__ alignas(16) std::uint32_t sW[kStages][corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned row = tid * corpus::kChunkWords;
  const unsigned ra = corpus::partner(tid) * corpus::kChunkWords;
  const unsigned rw = codegen::w_row(tid) * corpus::kChunkWords;
  for (unsigned s = 0; s < kStages - 1; ++s) {
    const unsigned t = s < k_tiles ? s : k_tiles - 1;
    const unsigned size = s < k_tiles ? 16 : 0;
    tt4_load16(codegen::smem_u32(&sA[s][row]), &A[t * corpus::kTileWords + row], size);
    tt4_load16(codegen::smem_u32(&sW[s][row]), &W[t * corpus::kTileWords + row], size);
    tt4_commit();
  }
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  unsigned insert = kStages - 1, extract = 0;
  for (unsigned k = 0; k < k_tiles; ++k) {
    tt4_wait<kStages - 2>();
    __syncthreads();
    std::uint32_t a[4], w[4];
    for (unsigned i = 0; i < 4; ++i) {
      a[i] = sA[extract][ra + i];
      w[i] = sW[extract][rw + i];
    }
    const unsigned next = k + kStages - 1;
    const unsigned t = next < k_tiles ? next : k_tiles - 1;
    const unsigned size = next < k_tiles ? 16 : 0;
    tt4_load16(codegen::smem_u32(&sA[insert][row]), &A[t * corpus::kTileWords + row], size);
    tt4_load16(codegen::smem_u32(&sW[insert][row]), &W[t * corpus::kTileWords + row], size);
    tt4_commit();
    for (unsigned i = 0; i < 4; ++i) {
      acc[i] = fmaf(__uint_as_float(a[i]), __uint_as_float(w[i]), acc[i]);
      OA[k * corpus::kTileWords + ra + i] = a[i];
      OB[k * corpus::kTileWords + rw + i] = w[i];
    }
    insert = insert + 1 == kStages ? 0 : insert + 1;
    extract = extract + 1 == kStages ? 0 : extract + 1;
  }
  tt4_wait<0>();
  if (store_acc)
    for (unsigned i = 0; i < 4; ++i)
      C[row + i] = acc[i];
}
