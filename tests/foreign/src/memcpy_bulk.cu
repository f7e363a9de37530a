// cuda::memcpy_async with block-scoped cuda::barriers on sm_90, per thread:
// each thread copies its own 16-byte chunk of a tile with
// cuda::memcpy_async(dst, src, cuda::aligned_size_t<16>(16), bar), which
// nvcc lowers on sm_90 to cp.async.bulk with mbarrier::complete_tx plus an
// mbarrier.expect_tx of the chunk's bytes. A ring of two stages, one barrier
// each: at tile k every thread arrives and waits on the stage's barrier
// (the arrival token), then copies tile k + 1 into the other stage (read at
// tile k - 1 by threads that have all arrived since) and writes its partner's
// row of tile k to global.
// Spec: tests/foreign/specs/memcpy_bulk.toml.
#include <cuda/barrier>
#include "common.cuh"

using barrier_t = cuda::barrier<cuda::thread_scope_block>;

namespace {
constexpr unsigned kStages = 2;
constexpr unsigned kChunkBytes = corpus::kChunkWords * 4;

__device__ __forceinline__ void load_chunk(std::uint32_t* stage, const std::uint32_t* A,
                                           unsigned tile, unsigned tid, barrier_t& bar) {
  cuda::memcpy_async(&stage[tid * corpus::kChunkWords],
                     &A[tile * corpus::kTileWords + tid * corpus::kChunkWords],
                     cuda::aligned_size_t<16>(kChunkBytes), bar);
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    memcpy_bulk(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B,
                unsigned tiles) {
  __shared__ alignas(16) std::uint32_t s[kStages][corpus::kTileWords];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar[kStages];
  const unsigned tid = threadIdx.x;
  if (tid == 0) {
    init(&bar[0], blockDim.x);
    init(&bar[1], blockDim.x);
  }
  __syncthreads();
  load_chunk(s[0], A, 0, tid, bar[0]);
#pragma unroll 1
  for (unsigned k = 0; k < tiles; ++k) {
    const unsigned st = k % kStages;
    bar[st].arrive_and_wait();
    if (k + 1 < tiles)
      load_chunk(s[st ^ 1], A, k + 1, tid, bar[st ^ 1]);
    const unsigned m = corpus::partner(tid);
    for (unsigned w = 0; w < corpus::kChunkWords; ++w)
      B[k * corpus::kTileWords + tid * corpus::kChunkWords + w] =
          s[st][m * corpus::kChunkWords + w];
  }
}
