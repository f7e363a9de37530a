// CUTLASS-style 1-D bulk copies in inline PTX (sm_90 only): one elected thread
// loads each of three tiles into shared memory with
// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes` on an
// mbarrier (`arrive.expect_tx` of the tile's bytes, parity k & 1); every
// thread copies its partner's row into one of two output stages, fences the
// async proxy (`fence.proxy.async.shared::cta`) and syncs; the elected thread
// bulk-stores the stage (`cp.async.bulk.global.shared::cta.bulk_group`),
// commits, and before a stage is rewritten waits until only the newest group
// may still read (`wait_group.read 1`); `wait_group.read 0` before exit (the
// shape of CUTLASS's TMA store epilogue). Spec: tests/foreign/specs/bulk_epilogue.toml.
#include "common.cuh"

namespace {
constexpr unsigned kTiles = 3;
constexpr unsigned kBytes = corpus::kTileWords * 4;

__device__ __forceinline__ unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(unsigned bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar));
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulk_load(unsigned dst, const void* src, unsigned bytes,
                                          unsigned bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(dst),
      "l"(src), "r"(bytes), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity) {
  unsigned done = 0;
  while (!done)
    asm volatile("{\n"
                 "  .reg .pred p;\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "  selp.u32 %0, 1, 0, p;\n"
                 "}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
}
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void bulk_store(void* dst, unsigned src, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(dst), "r"(src),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    bulk_epilogue(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B) {
  __shared__ alignas(128) std::uint32_t in[corpus::kTileWords];
  __shared__ alignas(128) std::uint32_t out[2][corpus::kTileWords];
  __shared__ alignas(8) std::uint64_t bar;
  const unsigned tid = threadIdx.x;
  const unsigned b = smem(&bar);
  if (tid == 0)
    mbar_init(b);
  __syncthreads();
#pragma unroll 1
  for (unsigned k = 0; k < kTiles; ++k) {
    const unsigned tile = k * corpus::kTileWords;
    if (tid == 0) {
      arrive_expect_tx(b, kBytes);
      bulk_load(smem(in), &A[tile], kBytes, b);
    }
    wait_parity(b, k & 1);
    if (tid == 0)
      bulk_wait_read<1>(); // the stage's previous store (tile k - 2) has read it
    __syncthreads();
    std::uint32_t* o = out[k & 1];
    const unsigned m = corpus::partner(tid);
    for (unsigned w = 0; w < corpus::kChunkWords; ++w)
      o[tid * corpus::kChunkWords + w] = in[m * corpus::kChunkWords + w];
    fence_proxy_async();
    __syncthreads();
    if (tid == 0)
      bulk_store(&B[tile], smem(o), kBytes);
  }
  if (tid == 0)
    bulk_wait_read<0>();
}
