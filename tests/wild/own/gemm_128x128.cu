// This project's own 128 x 128-tile GEMM, the speed benchmark of `ptxgen lint`
// (tools/lint/bench_gemm.sh, docs/benchmarks.md): C = A B^T with A (M x K) and B (N x K) f16,
// row-major, C f32; one CTA of 256 threads per 128 x 128 tile of C; a 3-stage cp.async ring
// over 32-wide k tiles; ldmatrix fragments; mma.sync m16n8k16 (8 warps of 64 x 32 each).
// Its PTX is made by, and never edited after:
//   nvcc -arch=sm_80 -O3 -ptx tests/wild/own/gemm_128x128.cu -o
//   tests/wild/own/gemm_128x128.sm80.ptx
#include <cstdint>

#include <cuda_fp16.h>

namespace {

constexpr int kTileM = 128, kTileN = 128, kTileK = 32, kStages = 3, kThreads = 256;
// Unpadded 64-byte shared rows: the three stages fill the 48 KiB of static shared memory.
constexpr int kRow = kTileK;

__device__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ void cp_async16(std::uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}

__device__ void commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}

__device__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ void mma16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                         std::uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
    gemm_128x128(const half* __restrict__ A, const half* __restrict__ B, float* __restrict__ C,
                 int M, int N, int K) {
  __shared__ alignas(128) half sA[kStages][kTileM][kRow];
  __shared__ alignas(128) half sB[kStages][kTileN][kRow];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / 4, wn = warp % 4; // 2 x 4 warps, each 64 rows x 32 columns of C
  const half* a = A + static_cast<size_t>(blockIdx.y) * kTileM * K;
  const half* b = B + static_cast<size_t>(blockIdx.x) * kTileN * K;
  const int k_tiles = K / kTileK;
  // 128 rows x 4 chunks of 16 bytes per operand and tile: 2 chunks per thread each
  auto load = [&](int stage, int kt) {
    for (int i = 0; i < 2; ++i) {
      const int c = tid + i * kThreads, r = c / 4, col = (c % 4) * 8;
      cp_async16(smem_u32(&sA[stage][r][col]), a + static_cast<size_t>(r) * K + kt * kTileK + col);
      cp_async16(smem_u32(&sB[stage][r][col]), b + static_cast<size_t>(r) * K + kt * kTileK + col);
    }
  };
  float acc[4][4][4] = {};
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles)
      load(s, s);
    commit();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    // one group per tile: all but the newest kStages - 2 done is tile kt
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kStages - 2));
    __syncthreads(); // tile kt visible to all; every read of the stage refilled below is done
    const int next = kt + kStages - 1;
    if (next < k_tiles)
      load(next % kStages, next);
    commit();
    const int st = kt % kStages;
    for (int kk = 0; kk < kTileK; kk += 16) {
      std::uint32_t af[4][4], bf[2][4];
      for (int i = 0; i < 4; ++i)
        ldmatrix_x4(af[i], smem_u32(&sA[st][wm * 64 + i * 16 + lane % 16][kk + (lane / 16) * 8]));
      for (int j = 0; j < 2; ++j)
        ldmatrix_x4(
            bf[j],
            smem_u32(
                &sB[st][wn * 32 + j * 16 + lane % 8 + (lane / 16) * 8][kk + (lane / 8) % 2 * 8]));
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          mma16816(acc[i][j], af[i], bf[j / 2][(j % 2) * 2], bf[j / 2][(j % 2) * 2 + 1]);
    }
  }
  float* c =
      C + static_cast<size_t>(blockIdx.y * kTileM + wm * 64) * N + blockIdx.x * kTileN + wn * 32;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int row = i * 16 + lane / 4, col = j * 8 + (lane % 4) * 2;
      c[row * N + col] = acc[i][j][0];
      c[row * N + col + 1] = acc[i][j][1];
      c[(row + 8) * N + col] = acc[i][j][2];
      c[(row + 8) * N + col + 1] = acc[i][j][3];
    }
}
