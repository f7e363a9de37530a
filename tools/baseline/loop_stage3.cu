// A 3-stage cp.async ring over a runtime K as an expert writes it by hand in
// CUDA C++ (inline-asm cp.async, wait_group 1 semantics expressed as in the
// spec: wait_group 2 after an always-committed group): the register baseline
// for ptxgen's tests/data/lower_loops/stage3_k7.toml (same shapes: grid 2,
// block 64, A [2][66][64][4] u32, B [2][64][64][4] u32, s [3][64][4] u32).
// Built by tools/baseline/compare_loop_registers.sh with nvcc -O3.
#include <cstdint>

namespace {
constexpr unsigned kThreads = 64;
constexpr unsigned kRowWords = 4;                    // one 16-byte row per thread
constexpr unsigned kTileWords = kThreads * kRowWords; // one stage
constexpr unsigned kStages = 3;

__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, bool pred) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n"
               " @p cp.async.cg.shared.global [%0], [%1], 16;\n}\n" ::"r"(dst),
               "l"(src), "r"(static_cast<int>(pred)));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void wait2() {
  asm volatile("cp.async.wait_group 2;\n" ::: "memory");
}
} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
    stage3_k7(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B,
              unsigned k_tiles) {
  __shared__ alignas(16) std::uint32_t s[kStages * kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned bid = blockIdx.x;
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(&s[tid * kRowWords]));
  constexpr unsigned kStageBytes = kTileWords * 4;
  const std::uint32_t* a = A + (bid * 66u * kThreads + tid) * kRowWords;
  std::uint32_t* b = B + (bid * 64u * kThreads + tid) * kRowWords;
  cp_async16(smem, a, true);
  commit();
  cp_async16(smem + kStageBytes, a + kTileWords, k_tiles > 1);
  commit();
  unsigned load_stage = 2, read_stage = 0;
  for (unsigned k = 0; k < k_tiles; ++k) {
    cp_async16(smem + load_stage * kStageBytes, a + (k + 2) * kTileWords, k + 2 < k_tiles);
    commit();
    wait2();
    *reinterpret_cast<uint4*>(b + k * kTileWords) =
        *reinterpret_cast<const uint4*>(&s[read_stage * kTileWords + tid * kRowWords]);
    load_stage = load_stage == kStages - 1 ? 0 : load_stage + 1;
    read_stage = read_stage == kStages - 1 ? 0 : read_stage + 1;
  }
}
