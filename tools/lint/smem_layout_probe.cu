// Where the GPU places a kernel's dynamic shared memory after its static shared variables
// (tools/lint/smem_layout_device.sh): fast.cu's matmul_4 / matmul_7 declare static mbarriers
// (`__shared__ barrier full[S], empty[S]`) and `extern __shared__ __align__(128) uint8_t
// smem[]`, and feed 128-byte-swizzled TMA boxes into `smem`, which the swizzle wants 1024-byte
// aligned. The simulator places `smem` right after the static bytes (offset 0x80 there) and
// reports a misaligned address; this probe prints what the H200 gives, for the same
// declarations, as shared-window offsets.
#include <cstdint>
#include <cstdio>

template <int Stages>
__global__ void layout(unsigned* out) {
  __shared__ alignas(8) std::uint64_t full[Stages], empty[Stages];
  extern __shared__ __align__(128) std::uint8_t smem[];
  if (threadIdx.x == 0) {
    full[0] = empty[0] = 0; // keep them
    out[0] = static_cast<unsigned>(__cvta_generic_to_shared(full));
    out[1] = static_cast<unsigned>(__cvta_generic_to_shared(empty));
    out[2] = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    smem[0] = static_cast<std::uint8_t>(full[0] + empty[0]);
  }
}

template <int Stages>
int run(unsigned dynamic_bytes) {
  unsigned* d = nullptr;
  unsigned h[3] = {0, 0, 0};
  if (cudaMalloc(&d, sizeof h) != cudaSuccess)
    return 1;
  cudaFuncSetAttribute(layout<Stages>, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic_bytes);
  layout<Stages><<<1, 32, dynamic_bytes>>>(d);
  const cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  std::printf("stages %d, %u dynamic bytes: full at 0x%x, empty at 0x%x, smem at 0x%x "
              "(smem %% 1024 = %u) %s\n",
              Stages, dynamic_bytes, h[0], h[1], h[2], h[2] % 1024, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

int main() {
  int bad = run<5>(163840) + run<3>(147456) + run<2>(1024);
  return bad;
}
