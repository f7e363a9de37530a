// A rolled 3-stage cp.async ring over a runtime number of K tiles, CUTLASS
// style (inline asm with a scoped predicate, commit every iteration, wait
// with wait_group 1), stage indices as rotating counters.
// Spec: tests/foreign/specs/ring3.toml.
#include "common.cuh"

namespace {
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, bool pred) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n"
               " @p cp.async.cg.shared.global [%0], [%1], 16;\n}\n" ::"r"(dst),
               "l"(src), "r"(static_cast<int>(pred)));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void wait1() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    ring3(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B, unsigned k_tiles) {
  constexpr unsigned kStages = 3;
  constexpr unsigned kStageBytes = corpus::kTileWords * 4;
  __shared__ alignas(16) std::uint32_t s[kStages * corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned m = corpus::partner(tid);
  const unsigned row = tid * corpus::kChunkWords;
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(&s[row]));
  cp_async16(smem, &A[row], true);
  commit();
  cp_async16(smem + kStageBytes, &A[(k_tiles > 1 ? 1 : 0) * corpus::kTileWords + row], k_tiles > 1);
  commit();
  unsigned load_stage = 2, read_stage = 0;
  for (unsigned k = 0; k < k_tiles; ++k) {
    wait1();
    __syncthreads();
    const unsigned next = k + 2 < k_tiles ? k + 2 : k_tiles - 1;
    cp_async16(smem + load_stage * kStageBytes, &A[next * corpus::kTileWords + row], k + 2 < k_tiles);
    commit();
    for (unsigned w = 0; w < corpus::kChunkWords; ++w)
      B[k * corpus::kTileWords + row + w] =
          s[read_stage * corpus::kTileWords + m * corpus::kChunkWords + w];
    load_stage = load_stage == kStages - 1 ? 0 : load_stage + 1;
    read_stage = read_stage == kStages - 1 ? 0 : read_stage + 1;
  }
}
