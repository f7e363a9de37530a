// TVM `inject_ptx_async_copy` output style, 3 stages, with the software
// pipeline's epilogue peeled as TVM's InjectSoftwarePipeline writes it: the loop
// runs while tile k+2 exists and loads it unconditionally (no predicates), then
// the last two tiles are consumed with decreasing waits (`cp.async.wait_group 2`,
// then `cp.async.wait_group 0`). One group per operand, so a tile is two groups.
// Needs k_tiles >= 2. Spec: tests/foreign/specs/tvm_epilogue3.toml.
#include "codegen.cuh"

namespace {
__device__ __forceinline__ void tvm_epi_cp16(void* smem, const void* gmem) {
  unsigned int addr;
  __asm__ __volatile__("{ .reg .u64 addr; cvta.to.shared.u64 addr, %1; cvt.u32.u64 %0, addr; }\n"
                       : "=r"(addr)
                       : "l"(smem));
  __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], %2;" ::"r"(addr), "l"(gmem),
                       "n"(16));
}
struct Acc {
  float v[4] = {0.f, 0.f, 0.f, 0.f};
};
__device__ __forceinline__ void tvm_epi_compute(const std::uint32_t* sa, const std::uint32_t* sw,
                                                std::uint32_t* oa, std::uint32_t* ob, Acc& acc) {
  for (unsigned i = 0; i < 4; ++i) {
    const std::uint32_t a = sa[i], w = sw[i];
    acc.v[i] = fmaf(__uint_as_float(a), __uint_as_float(w), acc.v[i]);
    oa[i] = a;
    ob[i] = w;
  }
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    tvm_epilogue3(const std::uint32_t* __restrict__ A, const std::uint32_t* __restrict__ W,
                  std::uint32_t* __restrict__ OA, std::uint32_t* __restrict__ OB,
                  float* __restrict__ C, unsigned k_tiles, unsigned store_acc) {
  constexpr unsigned kStages = 3, T = corpus::kTileWords;
  __shared__ alignas(16) std::uint32_t A_shared[kStages][T];
  __shared__ alignas(16) std::uint32_t W_shared[kStages][T];
  const unsigned tid = threadIdx.x;
  const unsigned row = tid * corpus::kChunkWords;
  const unsigned ra = corpus::partner(tid) * corpus::kChunkWords;
  const unsigned rw = codegen::w_row(tid) * corpus::kChunkWords;
  for (unsigned s = 0; s < kStages - 1; ++s) {
    tvm_epi_cp16(&A_shared[s][row], &A[s * T + row]);
    __asm__ __volatile__("cp.async.commit_group;");
    tvm_epi_cp16(&W_shared[s][row], &W[s * T + row]);
    __asm__ __volatile__("cp.async.commit_group;");
  }
  Acc acc;
  unsigned k = 0;
  for (; k + 2 < k_tiles; ++k) {
    __asm__ __volatile__("cp.async.wait_group 2;");
    __syncthreads();
    tvm_epi_compute(&A_shared[k % 3][ra], &W_shared[k % 3][rw], &OA[k * T + ra], &OB[k * T + rw],
                    acc);
    tvm_epi_cp16(&A_shared[(k + 2) % 3][row], &A[(k + 2) * T + row]);
    __asm__ __volatile__("cp.async.commit_group;");
    tvm_epi_cp16(&W_shared[(k + 2) % 3][row], &W[(k + 2) * T + row]);
    __asm__ __volatile__("cp.async.commit_group;");
  }
  __asm__ __volatile__("cp.async.wait_group 2;");
  __syncthreads();
  tvm_epi_compute(&A_shared[k % 3][ra], &W_shared[k % 3][rw], &OA[k * T + ra], &OB[k * T + rw],
                  acc);
  ++k;
  __asm__ __volatile__("cp.async.wait_group 0;");
  __syncthreads();
  tvm_epi_compute(&A_shared[k % 3][ra], &W_shared[k % 3][rw], &OA[k * T + ra], &OB[k * T + rw],
                  acc);
  if (store_acc)
    for (unsigned i = 0; i < 4; ++i)
      C[row + i] = acc.v[i];
}
