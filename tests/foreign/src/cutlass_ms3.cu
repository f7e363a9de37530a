// A CUTLASS-style multistage mainloop, kStages = 3 (MmaMultistage's shape): the
// prologue issues stages 0..1 with predicate guards and commits each, then
// `cp.async.wait_group 1` and __syncthreads; each iteration loads its warp
// fragments from the read stage with `ldmatrix.x4` (A and W), issues the global ->
// shared copies of tile k+2 into the write stage, commits, runs the math on the
// fragments (fma.rn.f16x2 standing in for mma.sync, which the simulator does not
// run), then waits (`wait_group 1`) and syncs before the stages advance.
// Spec: tests/foreign/specs/cutlass_ms3.toml.
#include "cutlass_ldm.cuh"

__global__ void __launch_bounds__(corpus::kThreads)
    cutlass_ms3(const std::uint32_t* __restrict__ A, const std::uint32_t* __restrict__ W,
                std::uint32_t* __restrict__ OA, std::uint32_t* __restrict__ OB,
                unsigned* __restrict__ C, unsigned k_tiles, unsigned store_acc) {
  using namespace cutlass_style;
  constexpr unsigned kStages = 3;
  __shared__ alignas(128) std::uint32_t sA[kStages][corpus::kTileWords];
  __shared__ alignas(128) std::uint32_t sW[kStages][corpus::kTileWords];
  const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const unsigned row = tid * corpus::kChunkWords;
  const unsigned wa = warp ^ 2, ww = (warp + 1) % 4; // the warps whose rows this warp reads
  for (unsigned s = 0; s < kStages - 1; ++s) {
    const unsigned t = s < k_tiles ? s : k_tiles - 1;
    cp_async_cg16(codegen::smem_u32(&sA[s][row]), &A[t * corpus::kTileWords + row], s < k_tiles);
    cp_async_cg16(codegen::smem_u32(&sW[s][row]), &W[t * corpus::kTileWords + row], s < k_tiles);
    cp_async_fence();
  }
  cp_async_wait<kStages - 2>();
  __syncthreads();
  unsigned acc[4] = {0, 0, 0, 0};
  unsigned read_stage = 0, write_stage = kStages - 1;
  for (unsigned k = 0; k < k_tiles; ++k) {
    unsigned a[4], w[4];
    ldsm_x4(a, codegen::smem_u32(&sA[read_stage][ldsm_row(wa, lane) * corpus::kChunkWords]));
    ldsm_x4(w, codegen::smem_u32(&sW[read_stage][ldsm_row(ww, lane) * corpus::kChunkWords]));
    const unsigned next = k + kStages - 1;
    const unsigned t = next < k_tiles ? next : k_tiles - 1;
    cp_async_cg16(codegen::smem_u32(&sA[write_stage][row]), &A[t * corpus::kTileWords + row],
                  next < k_tiles);
    cp_async_cg16(codegen::smem_u32(&sW[write_stage][row]), &W[t * corpus::kTileWords + row],
                  next < k_tiles);
    cp_async_fence();
    for (unsigned j = 0; j < 4; ++j) {
      acc[j] = hfma2(a[j], w[j], acc[j]);
      OA[k * corpus::kTileWords + ldsm_word(wa, lane, j)] = a[j];
      OB[k * corpus::kTileWords + ldsm_word(ww, lane, j)] = w[j];
    }
    cp_async_wait<kStages - 2>();
    __syncthreads();
    read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
  }
  if (store_acc)
    for (unsigned j = 0; j < 4; ++j)
      C[row + j] = acc[j];
}
