// Triton-style pipelined load loop with 4-byte copies, num_stages = 3: when a
// tensor's alignment or contiguity is not known to be 16, Triton vectorises less
// and emits `cp.async.ca.shared.global [ r + 0 ], [ rd + 0 ], 0x4, src_size;` per
// element (four per thread per tile and operand here), the masks as src-sizes,
// one group per tile, `wait_group 1`. Spec: tests/foreign/specs/triton_ca4.toml.
#include "codegen.cuh"

namespace {
__device__ __forceinline__ void tc_load4(unsigned dst, const void* src, unsigned src_size) {
  asm volatile("cp.async.ca.shared.global [ %0 + 0 ], [ %1 + 0 ], 0x4, %2;\n" ::"r"(dst),
               "l"(src), "r"(src_size));
}
__device__ __forceinline__ void tc_commit() {
  asm volatile("cp.async.commit_group ;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void tc_wait() {
  asm volatile("cp.async.wait_group %0 ;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void tc_load_tile(std::uint32_t* s, const std::uint32_t* g,
                                             unsigned size) {
  for (unsigned i = 0; i < 4; ++i)
    tc_load4(codegen::smem_u32(s + i), g + i, size);
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    triton_ca4(const std::uint32_t* __restrict__ A, const std::uint32_t* __restrict__ W,
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
    const unsigned size = s < k_tiles ? 4 : 0;
    tc_load_tile(&sA[s][row], &A[t * corpus::kTileWords + row], size);
    tc_load_tile(&sW[s][row], &W[t * corpus::kTileWords + row], size);
    tc_commit();
  }
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (unsigned k = 0; k < k_tiles; ++k) {
    tc_wait<kStages - 2>();
    __syncthreads();
    const unsigned stage = k % kStages;
    std::uint32_t a[4], w[4];
    for (unsigned i = 0; i < 4; ++i) {
      a[i] = sA[stage][ra + i];
      w[i] = sW[stage][rw + i];
    }
    const unsigned next = k + kStages - 1;
    const unsigned t = next < k_tiles ? next : k_tiles - 1;
    const unsigned size = next < k_tiles ? 4 : 0;
    tc_load_tile(&sA[next % kStages][row], &A[t * corpus::kTileWords + row], size);
    tc_load_tile(&sW[next % kStages][row], &W[t * corpus::kTileWords + row], size);
    tc_commit();
    for (unsigned i = 0; i < 4; ++i) {
      acc[i] = fmaf(__uint_as_float(a[i]), __uint_as_float(w[i]), acc[i]);
      OA[k * corpus::kTileWords + ra + i] = a[i];
      OB[k * corpus::kTileWords + rw + i] = w[i];
    }
  }
  tc_wait<0>();
  if (store_acc)
    for (unsigned i = 0; i < 4; ++i)
      C[row + i] = acc[i];
}
