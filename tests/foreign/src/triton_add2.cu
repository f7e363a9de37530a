// Triton-style pipelined elementwise add of two tiles, num_stages = 2 (the shape
// of a compiler test's pipelined `x + y` kernel): both operands of tile k+1 in
// one group while tile k is added, `cp.async.wait_group 0` and a bar.sync before
// each tile is read. Spec: tests/foreign/specs/triton_add2.toml.
#include "codegen.cuh"

namespace {
__device__ __forceinline__ void ta_load16(unsigned dst, const void* src, unsigned src_size) {
  asm volatile("cp.async.cg.shared.global [ %0 + 0 ], [ %1 + 0 ], 0x10, %2;\n" ::"r"(dst),
               "l"(src), "r"(src_size));
}
__device__ __forceinline__ void ta_commit() {
  asm volatile("cp.async.commit_group ;\n" ::: "memory");
}
__device__ __forceinline__ void ta_wait0() {
  asm volatile("cp.async.wait_group 0 ;\n" ::: "memory");
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    triton_add2(const std::uint32_t* __restrict__ A, const std::uint32_t* __restrict__ W,
                std::uint32_t* __restrict__ OA, std::uint32_t* __restrict__ OB,
                float* __restrict__ C, unsigned k_tiles, unsigned store_acc) {
  __shared__ alignas(16) std::uint32_t sA[2][corpus::kTileWords];
  __shared__ alignas(16) std::uint32_t sW[2][corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned row = tid * corpus::kChunkWords;
  const unsigned ra = corpus::partner(tid) * corpus::kChunkWords;
  const unsigned rw = codegen::w_row(tid) * corpus::kChunkWords;
  ta_load16(codegen::smem_u32(&sA[0][row]), &A[row], 16);
  ta_load16(codegen::smem_u32(&sW[0][row]), &W[row], 16);
  ta_commit();
  float sum[4] = {0.f, 0.f, 0.f, 0.f};
  for (unsigned k = 0; k < k_tiles; ++k) {
    ta_wait0();
    __syncthreads();
    const unsigned next = k + 1 < k_tiles ? k + 1 : k;
    const unsigned size = k + 1 < k_tiles ? 16 : 0;
    ta_load16(codegen::smem_u32(&sA[(k + 1) % 2][row]), &A[next * corpus::kTileWords + row], size);
    ta_load16(codegen::smem_u32(&sW[(k + 1) % 2][row]), &W[next * corpus::kTileWords + row], size);
    ta_commit();
    for (unsigned i = 0; i < 4; ++i) {
      const std::uint32_t a = sA[k % 2][ra + i], w = sW[k % 2][rw + i];
      sum[i] += __uint_as_float(a) + __uint_as_float(w);
      OA[k * corpus::kTileWords + ra + i] = a;
      OB[k * corpus::kTileWords + rw + i] = w;
    }
  }
  if (store_acc)
    for (unsigned i = 0; i < 4; ++i)
      C[row + i] = sum[i];
}
