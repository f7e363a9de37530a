#include <cuda/barrier>
#include <cuda/ptx>
using barrier = cuda::barrier<cuda::thread_scope_block>;
__global__ void k_bulk(const int4* __restrict__ a, int4* __restrict__ b) {
  __shared__ alignas(128) int4 s[128];
  __shared__ barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  barrier::arrival_token tok;
  if (threadIdx.x == 0) {
    cuda::memcpy_async(s, a, cuda::aligned_size_t<16>(sizeof(s)), bar);
  }
  tok = bar.arrive();
  bar.wait(std::move(tok));
  b[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
__global__ void k_ptx(const int4* __restrict__ a, int4* __restrict__ b) {
  __shared__ alignas(128) int4 s[128];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) { cuda::ptx::mbarrier_init(&bar, 1); cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);}
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &bar, sizeof(s));
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, s, a, sizeof(s), &bar);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {}
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  b[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
