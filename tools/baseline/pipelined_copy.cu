// The persistent pipelined streaming copy as an expert writes it by hand in
// CUDA C++: the baseline that ptxgen's tools/bench/specs/stream_copy_persistent.toml
// is measured against (tools/bench/stream_bench.cpp, docs/benchmarks.md).
//
// Shape (the same as the spec's): a block of PC_THREADS threads copies tiles of
// PC_THREADS x PC_VECS x 16 bytes (128 x 4 x 16 B = 8 KiB by default); the CTAs
// stride over the tiles (tile = blockIdx.x, blockIdx.x + gridDim.x, ...); each
// CTA keeps a ring of PC_STAGES tiles in dynamic shared memory, filled with
// cp.async.cg (16 B) PC_STAGES - 1 tiles ahead of the tile it writes out.
// Thread tid owns 16-byte chunk j * PC_THREADS + tid of each tile (j < PC_VECS),
// so every warp-wide cp.async, ld.shared and st.global covers 512 contiguous
// bytes.
//
// Steady state, per tile: cp.async.wait_group PC_STAGES-2 (this tile's group
// is done); __syncthreads (every thread has finished reading the stage read in
// the previous iteration, which is the one refilled now; with this thread
// mapping each thread reads only what it copied, so the barrier is the
// pipeline's general shape rather than a need of this copy); refill that stage
// with the tile PC_STAGES-1 strides ahead (predicated off past the end; the
// commit is unconditional, so every iteration commits exactly one group and
// the wait count stays PC_STAGES-2 through the tail); then the tile is written
// out with 16-byte ld.shared / st.global. Every real copy is waited for before
// the loop ends, so no wait_all is needed after it.
//
// Built by tools/bench/stream_bench.cmake: nvcc -ptx -arch=sm_90 -O3; the PTX
// is embedded in ptxgen_stream_bench and JIT-compiled by the driver, like the
// ptxgen kernel it is compared with. The compile-time shape can be changed
// with -DPC_STAGES=4, -DPC_THREADS=256, -DPC_VECS=8, -DPC_PREFETCH=256 (the
// benchmark reads stages, threads and chunks from the module; --baseline-ptx).
#include <cstdint>

#ifndef PC_STAGES
#define PC_STAGES 3
#endif
#ifndef PC_THREADS
#define PC_THREADS 128
#endif
#ifndef PC_VECS
#define PC_VECS 4
#endif
// L2 prefetch size of each cp.async: 0 (none), 64, 128 or 256 bytes.
#ifndef PC_PREFETCH
#define PC_PREFETCH 0
#endif
#if PC_PREFETCH == 0
#define PC_CP_ASYNC "cp.async.cg.shared.global"
#elif PC_PREFETCH == 64
#define PC_CP_ASYNC "cp.async.cg.shared.global.L2::64B"
#elif PC_PREFETCH == 128
#define PC_CP_ASYNC "cp.async.cg.shared.global.L2::128B"
#elif PC_PREFETCH == 256
#define PC_CP_ASYNC "cp.async.cg.shared.global.L2::256B"
#else
#error "PC_PREFETCH must be 0, 64, 128 or 256"
#endif

namespace {

constexpr unsigned kStages = PC_STAGES;
constexpr unsigned kThreads = PC_THREADS;
constexpr unsigned kVecs = PC_VECS;                 // 16-byte chunks per thread per tile
constexpr unsigned kTileVecs = kThreads * kVecs;    // 16-byte chunks per tile
constexpr unsigned kTileBytes = kTileVecs * 16;     // 8 KiB by default
constexpr unsigned kRingBytes = kStages * kTileBytes;
static_assert(kStages >= 2, "a ring needs at least two stages");
static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps");

__device__ __forceinline__ void cp_async_16(unsigned smem, const void* gmem, bool pred) {
  // The predicate stays a predicate: no branch around the copies.
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"
               "@p " PC_CP_ASYNC " [%0], [%1], 16;\n\t}\n" ::"r"(smem),
               "l"(gmem), "r"(static_cast<unsigned>(pred))
               : "memory");
}

__device__ __forceinline__ void commit_group() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <unsigned N> __device__ __forceinline__ void wait_group() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ uint4 ld_shared_v4(unsigned smem) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(smem)
               : "memory");
  return v;
}

// Issues this thread's PC_VECS chunks of the tile at `src` into the stage at `smem`.
__device__ __forceinline__ void load_tile(unsigned smem, const uint4* src, bool pred) {
#pragma unroll
  for (unsigned j = 0; j < kVecs; ++j)
    cp_async_16(smem + j * kThreads * 16, src + j * kThreads, pred);
}

} // namespace

/// The compile-time shape, read by the benchmark from the loaded module
/// (cuModuleGetGlobal), so that it is written in this file only:
/// {stages, threads per block, 16-byte chunks per thread per tile}.
extern "C" __device__ const unsigned pipelined_copy_shape[3] = {kStages, kThreads, kVecs};

/// in, out: n_tiles * PC_THREADS * PC_VECS * 16 bytes each, 16-byte aligned.
/// Launch with blockDim.x = PC_THREADS and PC_STAGES * tile bytes of dynamic
/// shared memory; any grid. n_tiles + PC_STAGES * gridDim.x must fit in 32 bits.
extern "C" __global__ void __launch_bounds__(PC_THREADS)
    pipelined_copy(const uint4* __restrict__ in, uint4* __restrict__ out, unsigned n_tiles) {
  extern __shared__ __align__(128) unsigned char ring[];
  const unsigned tid = threadIdx.x;
  const unsigned stride = gridDim.x;                        // tiles per grid step
  const size_t step = static_cast<size_t>(stride) * kTileVecs; // chunks per grid step
  unsigned tile = blockIdx.x;

  const unsigned ring_base = static_cast<unsigned>(__cvta_generic_to_shared(ring)) + tid * 16;
  const unsigned ring_end = ring_base + kRingBytes;
  const uint4* src = in + static_cast<size_t>(tile) * kTileVecs + tid;
  uint4* dst = out + static_cast<size_t>(tile) * kTileVecs + tid;

  // Prologue: the first PC_STAGES - 1 tiles into stages 0 .. PC_STAGES - 2.
  unsigned ahead = tile; // the next tile to load
#pragma unroll
  for (unsigned s = 0; s + 1 < kStages; ++s) {
    load_tile(ring_base + s * kTileBytes, src, ahead < n_tiles);
    commit_group();
    ahead += stride;
    src += step;
  }

  unsigned read = ring_base;                                // stage of `tile`
  unsigned refill = ring_base + (kStages - 1) * kTileBytes; // stage of `ahead`
  for (; tile < n_tiles; tile += stride) {
    wait_group<kStages - 2>();
    __syncthreads();
    load_tile(refill, src, ahead < n_tiles);
    commit_group();
    ahead += stride;
    src += step;
#pragma unroll
    for (unsigned j = 0; j < kVecs; ++j)
      dst[j * kThreads] = ld_shared_v4(read + j * kThreads * 16);
    dst += step;
    read = read + kTileBytes == ring_end ? ring_base : read + kTileBytes;
    refill = refill + kTileBytes == ring_end ? ring_base : refill + kTileBytes;
  }
}
