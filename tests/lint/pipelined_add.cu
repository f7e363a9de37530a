// `ptxgen lint`'s worked example (docs/lint.md): a Triton-style software-pipelined load loop
// (kStages stages of cp.async, `wait_group kStages - 2` before each tile is used) that adds
// two tiles per iteration. The steady state assumes kStages - 1 groups were committed before
// the loop; the prologue below commits its kStages - 1 tiles as ONE group, one group fewer,
// so the first wait lets the group of tiles 0 and 1 stay in flight while tile 0 is read.
// -DPROLOGUE_FIXED commits once per prologue tile, as the wait assumes.
//
//   nvcc -arch=sm_80 -O3 -ptx tests/lint/pipelined_add.cu -o tests/lint/pipelined_add.ptx
//   nvcc -arch=sm_80 -O3 -ptx -DPROLOGUE_FIXED tests/lint/pipelined_add.cu \
//        -o tests/lint/pipelined_add_fixed.ptx
#include <cstdint>

namespace {
constexpr int kStages = 3;
constexpr int kThreads = 128;
constexpr int kTile = kThreads * 4; // floats per tile: 16 bytes per thread

__device__ void load_tile(float* dst, const float* src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}
__device__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ void wait_prior() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
    pipelined_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                  int k_tiles) {
  __shared__ alignas(16) float sa[kStages][kTile];
  __shared__ alignas(16) float sb[kStages][kTile];
  const int t = threadIdx.x;
  const float* ga = a + blockIdx.x * k_tiles * kTile + t * 4;
  const float* gb = b + blockIdx.x * k_tiles * kTile + t * 4;
  for (int s = 0; s < kStages - 1; ++s) { // prologue: tiles 0 .. kStages-2
    if (s < k_tiles) {
      load_tile(&sa[s][t * 4], ga + s * kTile);
      load_tile(&sb[s][t * 4], gb + s * kTile);
    }
#ifdef PROLOGUE_FIXED
    commit();
#endif
  }
#ifndef PROLOGUE_FIXED
  commit(); // one group for the whole prologue: one fewer than the loop's wait assumes
#endif
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  const int partner = t ^ 1; // neighbouring lanes' elements, as a layout change would
  for (int k = 0; k < k_tiles; ++k) {
    wait_prior<kStages - 2>();
    __syncthreads();
    const int stage = k % kStages;
    for (int i = 0; i < 4; ++i)
      acc[i] += sa[stage][partner * 4 + i] + sb[stage][partner * 4 + i];
    const int next = k + kStages - 1;
    if (next < k_tiles) {
      load_tile(&sa[next % kStages][t * 4], ga + next * kTile);
      load_tile(&sb[next % kStages][t * 4], gb + next * kTile);
    }
    commit();
  }
  for (int i = 0; i < 4; ++i)
    c[blockIdx.x * kThreads * 4 + t * 4 + i] = acc[i];
}
