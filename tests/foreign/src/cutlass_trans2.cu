// A CUTLASS-style double-buffered mainloop (kStages = 2) whose W fragments come
// from `ldmatrix.sync.aligned.x4.trans` (a column-major operand: each register
// holds two 16-bit elements of one column, from two rows) and A's from a plain
// `ldmatrix.x4`; `cp.async.wait_group 0` and __syncthreads at the end of each
// iteration, the copies of tile k+1 issued before the math on tile k.
// Spec: tests/foreign/specs/cutlass_trans2.toml.
#include "cutlass_ldm.cuh"

__global__ void __launch_bounds__(corpus::kThreads)
    cutlass_trans2(const std::uint32_t* __restrict__ A, const std::uint32_t* __restrict__ W,
                   std::uint32_t* __restrict__ OA, std::uint16_t* __restrict__ OB,
                   unsigned* __restrict__ C, unsigned k_tiles, unsigned store_acc) {
  using namespace cutlass_style;
  __shared__ alignas(128) std::uint32_t sA[2][corpus::kTileWords];
  __shared__ alignas(128) std::uint32_t sW[2][corpus::kTileWords];
  const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const unsigned row = tid * corpus::kChunkWords;
  const unsigned wa = warp ^ 2, ww = (warp + 1) % 4;
  cp_async_cg16(codegen::smem_u32(&sA[0][row]), &A[row], true);
  cp_async_cg16(codegen::smem_u32(&sW[0][row]), &W[row], true);
  cp_async_fence();
  cp_async_wait<0>();
  __syncthreads();
  unsigned acc[4] = {0, 0, 0, 0};
  for (unsigned k = 0; k < k_tiles; ++k) {
    unsigned a[4], w[4];
    ldsm_x4(a, codegen::smem_u32(&sA[k & 1][ldsm_row(wa, lane) * corpus::kChunkWords]));
    ldsm_x4_trans(w, codegen::smem_u32(&sW[k & 1][ldsm_row(ww, lane) * corpus::kChunkWords]));
    const unsigned t = k + 1 < k_tiles ? k + 1 : k;
    cp_async_cg16(codegen::smem_u32(&sA[(k + 1) & 1][row]), &A[t * corpus::kTileWords + row],
                  k + 1 < k_tiles);
    cp_async_cg16(codegen::smem_u32(&sW[(k + 1) & 1][row]), &W[t * corpus::kTileWords + row],
                  k + 1 < k_tiles);
    cp_async_fence();
    for (unsigned j = 0; j < 4; ++j) {
      acc[j] = hfma2(a[j], w[j], acc[j]);
      OA[k * corpus::kTileWords + ldsm_word(wa, lane, j)] = a[j];
      // .trans: register j holds column lane / 4 of rows 8j + 2 (lane % 4) and the next
      for (unsigned h = 0; h < 2; ++h)
        OB[(k * corpus::kThreads + ww * 32 + 8 * j + 2 * (lane % 4) + h) * 8 + lane / 4] =
            static_cast<std::uint16_t>(w[j] >> (16 * h));
    }
    cp_async_wait<0>();
    __syncthreads();
  }
  if (store_acc)
    for (unsigned j = 0; j < 4; ++j)
      C[row + j] = acc[j];
}
