// Triton-style pipelined matmul load loop, num_stages = 3: the shape of
// Triton's software pipeliner after lowering to PTX. Every load is issued with
// its mask as a src-size (`cp.async.cg.shared.global [ r + 0 ], [ rd + 0 ], 0x10,
// src_size;`: 0 past the last tile, so the tail's groups are real but copy
// nothing), one commit_group per tile (A and W together), `cp.async.wait_group
// num_stages - 2` and a bar.sync before the tile is read, the refill of the stage
// the previous iteration read right after the reads, FMAs on the loaded tiles,
// and `wait_group 0` after the loop. Spec: tests/foreign/specs/triton_mm3.toml.
#include "codegen.cuh"

namespace {
__device__ __forceinline__ void tt_load16(unsigned dst, const void* src, unsigned src_size) {
  asm volatile("cp.async.cg.shared.global [ %0 + 0 ], [ %1 + 0 ], 0x10, %2;\n" ::"r"(dst),
               "l"(src), "r"(src_size));
}
__device__ __forceinline__ void tt_commit() {
  asm volatile("cp.async.commit_group ;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void tt_wait() {
  asm volatile("cp.async.wait_group %0 ;\n" ::"n"(N) : "memory");
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    triton_mm3(const std::uint32_t* __restrict__ A, const std::uint32_t* __restrict__ W,
               std::uint32_t* __restrict__ OA, std::uint32_t* __restrict__ OB,
               float* __restrict__ C, unsigned k_tiles, unsigned store_acc) {
  constexpr unsigned kStages = 3;
  __shared__ alignas(16) std::uint32_t sA[kStages][corpus::kTileWords];
  __shared__ alignas(16) std::uint32_t sW[kStages][corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned row = tid * corpus::kChunkWords;
  const unsigned ra = corpus::partner(tid) * corpus::kChunkWords;
  const unsigned rw = codegen::w_row(tid) * corpus::kChunkWords;
  for (unsigned s = 0; s < kStages - 1; ++s) {
    const unsigned t = s < k_tiles ? s : k_tiles - 1;
    const unsigned size = s < k_tiles ? 16 : 0;
    tt_load16(codegen::smem_u32(&sA[s][row]), &A[t * corpus::kTileWords + row], size);
    tt_load16(codegen::smem_u32(&sW[s][row]), &W[t * corpus::kTileWords + row], size);
    tt_commit();
  }
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (unsigned k = 0; k < k_tiles; ++k) {
    tt_wait<kStages - 2>();
    __syncthreads();
    const unsigned stage = k % kStages;
    std::uint32_t a[4], w[4];
    for (unsigned i = 0; i < 4; ++i) {
      a[i] = sA[stage][ra + i];
      w[i] = sW[stage][rw + i];
    }
    const unsigned next = k + kStages - 1;
    const unsigned t = next < k_tiles ? next : k_tiles - 1;
    const unsigned size = next < k_tiles ? 16 : 0;
    tt_load16(codegen::smem_u32(&sA[next % kStages][row]), &A[t * corpus::kTileWords + row], size);
    tt_load16(codegen::smem_u32(&sW[next % kStages][row]), &W[t * corpus::kTileWords + row], size);
    tt_commit();
    for (unsigned i = 0; i < 4; ++i) {
      acc[i] = fmaf(__uint_as_float(a[i]), __uint_as_float(w[i]), acc[i]);
      OA[k * corpus::kTileWords + ra + i] = a[i];
      OB[k * corpus::kTileWords + rw + i] = w[i];
    }
  }
  tt_wait<0>();
  if (store_acc)
    for (unsigned i = 0; i < 4; ++i)
      C[row + i] = acc[i];
}
