// cuda::memcpy_async with a block-scoped cuda::pipeline (libcu++): two stages
// over k_tiles tiles; the whole block produces tile k+1 while it consumes
// tile k. Consumers read the partner's row, so the pipeline's block-wide
// completion matters. Spec: tests/foreign/specs/cuda_pipeline_block.toml.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include "common.cuh"

namespace cg = cooperative_groups;

__global__ void __launch_bounds__(corpus::kThreads)
    cuda_pipeline_block(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B,
                        unsigned k_tiles) {
  constexpr unsigned kStages = 2;
  __shared__ alignas(16) std::uint32_t s[kStages][corpus::kTileWords];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const unsigned tid = threadIdx.x;
  const unsigned m = corpus::partner(tid);
  for (unsigned k = 0, fetch = 0; k < k_tiles; ++k) {
    for (; fetch < k_tiles && fetch < k + kStages; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, s[fetch % kStages], A + fetch * corpus::kTileWords,
                         cuda::aligned_size_t<16>(sizeof(s[0])), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    for (unsigned w = 0; w < corpus::kChunkWords; ++w)
      B[k * corpus::kTileWords + tid * corpus::kChunkWords + w] =
          s[k % kStages][m * corpus::kChunkWords + w];
    pipe.consumer_release();
  }
}
