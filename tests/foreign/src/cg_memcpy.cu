// cooperative_groups::memcpy_async of a whole tile by the thread block, then
// cooperative_groups::wait (which also syncs the block); each thread writes
// the partner's row out. Two CTAs, one tile each.
// Spec: tests/foreign/specs/cg_memcpy.toml.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include "common.cuh"

namespace cg = cooperative_groups;

__global__ void __launch_bounds__(corpus::kThreads)
    cg_memcpy(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B) {
  __shared__ alignas(16) std::uint32_t s[corpus::kTileWords];
  cg::thread_block block = cg::this_thread_block();
  const unsigned tile = blockIdx.x * corpus::kTileWords;
  cg::memcpy_async(block, s, A + tile, cuda::aligned_size_t<16>(sizeof(s)));
  cg::wait(block);
  const unsigned tid = threadIdx.x;
  const unsigned m = corpus::partner(tid);
  for (unsigned w = 0; w < corpus::kChunkWords; ++w)
    B[tile + tid * corpus::kChunkWords + w] = s[m * corpus::kChunkWords + w];
}
