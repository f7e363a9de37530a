#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
using barrier = cuda::barrier<cuda::thread_scope_block>;
__global__ void k_barrier(const int4* __restrict__ a, int4* __restrict__ b) {
  __shared__ alignas(16) int4 s[128];
  __shared__ barrier bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(&s[threadIdx.x], &a[threadIdx.x], cuda::aligned_size_t<16>(sizeof(int4)), bar);
  bar.arrive_and_wait();
  b[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
__global__ void k_barrier_block(const int4* __restrict__ a, int4* __restrict__ b) {
  __shared__ alignas(16) int4 s[128];
  __shared__ barrier bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, s, a, cuda::aligned_size_t<16>(sizeof(int4)*128), bar);
  bar.arrive_and_wait();
  b[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
