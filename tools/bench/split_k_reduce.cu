// Split-K's reduction step on the GPU, two ways, the same shape: K CTAs per output tile each
// add a TILE-float partial into one global tile. `bulk`: thread 0 of each CTA issues one
// cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 of the tile from shared memory
// (what ptxgen's bulk_reduce lowers to); `red`: every thread adds its elements with
// red.global.add.f32 (atomicAdd with the result unused). Both start from the same shared
// tile (filled by the threads, then fence.proxy.async for the bulk form). Prints the time per
// launch and the effective reduction bandwidth (partial bytes combined per second), and
// checks both outputs (every partial is 1.0: each output element is K).
//
//   nvcc -arch=sm_90 -O3 -o split_k_reduce split_k_reduce.cu && ./split_k_reduce [TILES] [K]
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kTile = 4096; // floats per tile: 16 KiB, one bulk reduction
constexpr int kThreads = 256;

__global__ void bulk_kernel(float* out, int k) {
  __shared__ alignas(128) float s[kTile];
  for (int i = threadIdx.x; i < kTile; i += blockDim.x)
    s[i] = 1.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    float* dst = out + static_cast<size_t>(blockIdx.x / k) * kTile;
    unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(s));
    asm volatile(
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(dst),
        "r"(src), "n"(kTile * 4)
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

__global__ void red_kernel(float* out, int k) {
  __shared__ alignas(128) float s[kTile];
  for (int i = threadIdx.x; i < kTile; i += blockDim.x)
    s[i] = 1.0f;
  __syncthreads();
  float* dst = out + static_cast<size_t>(blockIdx.x / k) * kTile;
  for (int i = threadIdx.x; i < kTile; i += blockDim.x)
    atomicAdd(dst + i, s[i]); // red.global.add.f32: the result is unused
}

template <class F>
float time_ms(F launch, int reps) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  launch();
  cudaEventRecord(a);
  for (int r = 0; r < reps; ++r)
    launch();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  return ms / reps;
}

int main(int argc, char** argv) {
  const int tiles = argc > 1 ? std::atoi(argv[1]) : 264;
  const int k = argc > 2 ? std::atoi(argv[2]) : 8;
  const size_t n = static_cast<size_t>(tiles) * kTile;
  float* out = nullptr;
  cudaMalloc(&out, n * sizeof(float));
  std::vector<float> host(n);
  bool ok = true;
  const char* names[] = {"bulk (cp.reduce.async.bulk .add.f32)", "red (red.global.add.f32)"};
  for (int which = 0; which < 2; ++which) {
    auto launch = [&] {
      if (which == 0)
        bulk_kernel<<<tiles * k, kThreads>>>(out, k);
      else
        red_kernel<<<tiles * k, kThreads>>>(out, k);
    };
    cudaMemset(out, 0, n * sizeof(float));
    launch();
    cudaMemcpy(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < n; ++i)
      if (host[i] != static_cast<float>(k)) {
        std::printf("%s: element %zu is %g, not %d\n", names[which], i, host[i], k);
        ok = false;
        break;
      }
    const float ms = time_ms(launch, 50);
    const double bytes = static_cast<double>(n) * k * sizeof(float);
    std::printf("%-40s tiles %d K %d: %.3f ms/launch, %.1f GB/s of partials\n", names[which], tiles,
                k, ms, bytes / (ms * 1e6));
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(e));
    ok = false;
  }
  cudaFree(out);
  return ok ? 0 : 1;
}
