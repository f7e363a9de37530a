// The two mistakes that `ptxgen lint` found in NVIDIA cuda-samples'
// globalToShmemAsyncCopy (tests/wild/MANIFEST.toml, `cuda_samples_g2s`),
// reproduced in a kernel of this project's own: a test that stays in the
// repository whether or not the public corpus is there.
//
// ring_ahead: every thread copies its element of each tile into a ring of
// kRing shared buffers with a thread-scoped cuda::pipeline, then reads its
// neighbour's element of the current tile. With RING_FIXED the producer keeps
// tiles k .. k+kRing-2 in flight: the buffer it refills at step k was last read
// at step k-2, and the barrier of step k-1 lies between. Without it the loop
// runs to k+kRing inclusive, as the sample's `aStage <= a + aStep * 4` does:
// kRing+1 tiles in flight over kRing buffers, so tile k+kRing lands in the
// buffer of tile k before anybody read it.
//
// one_init: a block of 16 x 16 threads waits on one cuda::barrier. Without
// RING_FIXED every thread with threadIdx.x == 0 initialises it (16 threads, as
// the sample's `if (threadIdx.x == 0) init(&bar, ...)` does with a 2-D block);
// with it only thread (0, 0) does.
//
//   nvcc -arch=sm_80 -O3 -ptx tests/wild/own/ring_ahead.cu -o tests/wild/own/ring_ahead.sm80.ptx
//   nvcc -arch=sm_80 -O3 -ptx -DRING_FIXED tests/wild/own/ring_ahead.cu \
//        -o tests/wild/own/ring_ahead_fixed.sm80.ptx
#include <cstdint>
#include <cuda/barrier>
#include <cuda/pipeline>

namespace {
constexpr int kRing = 4;
constexpr int kTile = 64; // elements per tile: one per thread of a 64-thread block
#ifdef RING_FIXED
constexpr int kAhead = kRing - 2; // tiles in flight beyond the current one
#else
constexpr int kAhead = kRing;
#endif
} // namespace

extern "C" __global__ void __launch_bounds__(kTile)
    ring_ahead(const float* __restrict__ src, float* __restrict__ dst, int tiles) {
  __shared__ alignas(16) float ring[kRing][kTile];
  auto pipe = cuda::make_pipeline(); // thread scope: producer_acquire never blocks
  const int t = static_cast<int>(threadIdx.x);
  const int neighbour = (t + 1) % kTile;
  float sum = 0.0f;
  int issued = 0;
  for (int k = 0; k < tiles; ++k) {
    for (; issued <= k + kAhead; ++issued) {
      pipe.producer_acquire();
      if (issued < tiles)
        cuda::memcpy_async(&ring[issued % kRing][t], &src[issued * kTile + t], sizeof(float), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    __syncthreads();
    sum += ring[k % kRing][neighbour];
    pipe.consumer_release();
  }
  dst[blockIdx.x * kTile + t] = sum;
}

extern "C" __global__ void __launch_bounds__(256)
    one_init(const float4* __restrict__ src, float* __restrict__ dst, int tiles) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ alignas(16) float4 tile[16][4];
#ifdef RING_FIXED
  const bool initialises = threadIdx.x == 0 && threadIdx.y == 0;
#else
  const bool initialises = threadIdx.x == 0;
#endif
  if (initialises)
    init(&bar, blockDim.x * blockDim.y);
  __syncthreads();
  float sum = 0.0f;
  for (int k = 0; k < tiles; ++k) {
    if (threadIdx.x < 4)
      cuda::memcpy_async(&tile[threadIdx.y][threadIdx.x],
                         &src[(k * 16 + threadIdx.y) * 4 + threadIdx.x], sizeof(float4), bar);
    bar.arrive_and_wait();
    sum += tile[threadIdx.x % 16][threadIdx.y % 4].x;
    bar.arrive_and_wait();
  }
  dst[threadIdx.y * 16 + threadIdx.x] = sum;
}
