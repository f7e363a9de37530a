// libcu++'s experimental bulk-copy functions (<cuda/barrier>, sm_90 only): a
// round trip global -> shared -> (edit in shared) -> global through a ring of
// two stages, each with its block-scoped cuda::barrier. Per tile k, thread 0
// waits until the bulk store that last read the stage has read it
// (cp_async_bulk_wait_group_read<1>), bulk-loads the tile
// (cp_async_bulk_global_to_shared) and arrives with its bytes
// (barrier_arrive_tx); the others arrive, and all wait on the stage's phase
// parity (k / 2) & 1. Every thread swaps its row with its partner's in place,
// fences the async proxy (fence_proxy_async_shared_cta) and syncs; thread 0
// bulk-stores the stage (cp_async_bulk_shared_to_global) and commits the
// group; cp_async_bulk_wait_group_read<0> before exit.
// Spec: tests/foreign/specs/libcu_bulk.toml.
#include <cuda/barrier>
#include "common.cuh"

namespace cde = cuda::device::experimental;
using barrier_t = cuda::barrier<cuda::thread_scope_block>;

namespace {
constexpr unsigned kTiles = 4;
constexpr unsigned kStages = 2;
constexpr unsigned kBytes = corpus::kTileWords * 4;
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    libcu_bulk(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B) {
  __shared__ alignas(128) std::uint32_t s[kStages][corpus::kTileWords];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar[kStages];
  const unsigned tid = threadIdx.x;
  if (tid == 0) {
    init(&bar[0], blockDim.x);
    init(&bar[1], blockDim.x);
    cde::fence_proxy_async_shared_cta(); // the initialised barriers, visible to the async proxy
  }
  __syncthreads();
#pragma unroll 1
  for (unsigned k = 0; k < kTiles; ++k) {
    const unsigned st = k % kStages;
    std::uint32_t* stage = s[st];
    if (tid == 0) {
      cde::cp_async_bulk_wait_group_read<1>(); // tile k - 2's store has read the stage
      cde::cp_async_bulk_global_to_shared(stage, &A[k * corpus::kTileWords], kBytes, bar[st]);
      (void)cuda::device::barrier_arrive_tx(bar[st], 1, kBytes);
    } else {
      (void)bar[st].arrive();
    }
    bar[st].wait_parity((k / kStages) & 1);
    const unsigned m = corpus::partner(tid);
    std::uint32_t row[corpus::kChunkWords];
    for (unsigned w = 0; w < corpus::kChunkWords; ++w)
      row[w] = stage[m * corpus::kChunkWords + w];
    __syncthreads(); // every partner's row read before any is overwritten
    for (unsigned w = 0; w < corpus::kChunkWords; ++w)
      stage[tid * corpus::kChunkWords + w] = row[w];
    cde::fence_proxy_async_shared_cta();
    __syncthreads();
    if (tid == 0) {
      cde::cp_async_bulk_shared_to_global(&B[k * corpus::kTileWords], stage, kBytes);
      cde::cp_async_bulk_commit_group();
    }
  }
  if (tid == 0)
    cde::cp_async_bulk_wait_group_read<0>();
}
