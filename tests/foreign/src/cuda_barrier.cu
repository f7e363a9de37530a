// cuda::memcpy_async with a block-scoped cuda::barrier (libcu++): the block
// copies its tile into shared memory, completion tracked by the barrier (an
// mbarrier), arrive_and_wait, then every thread writes the partner's row.
// Spec: tests/foreign/specs/cuda_barrier.toml.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include "common.cuh"

namespace cg = cooperative_groups;
using barrier_t = cuda::barrier<cuda::thread_scope_block>;

__global__ void __launch_bounds__(corpus::kThreads)
    cuda_barrier(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B) {
  __shared__ alignas(16) std::uint32_t s[corpus::kTileWords];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0)
    init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, s, A, cuda::aligned_size_t<16>(sizeof(s)), bar);
  bar.arrive_and_wait();
  const unsigned tid = threadIdx.x;
  const unsigned m = corpus::partner(tid);
  for (unsigned w = 0; w < corpus::kChunkWords; ++w)
    B[tid * corpus::kChunkWords + w] = s[m * corpus::kChunkWords + w];
}
