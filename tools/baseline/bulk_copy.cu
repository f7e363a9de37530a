// The persistent streaming copy through 1-D bulk copies (sm_90), as an expert
// writes it by hand in CUDA C++ with inline PTX: the baseline that ptxgen's
// tools/bench/stream_copy_bulk.toml is measured against (tools/bench/stream_bench.cpp,
// docs/benchmarks.md).
//
// Shape: one thread per CTA (thread 0; the others exit at once) moves
// whole tiles of BC_TILE bytes; the CTAs stride over the tiles (tile =
// blockIdx.x, blockIdx.x + gridDim.x, ...). Each CTA keeps a ring of BC_STAGES
// tiles in dynamic shared memory, one mbarrier per stage. Tile i of a CTA
// lives in stage i % BC_STAGES; its load completes on that stage's barrier as
// BC_TILE transaction bytes, in phase (i / BC_STAGES) % 2.
//
// Per tile i (steady state), BC_AHEAD = A tiles ahead:
//   1. cp.async.bulk.wait_group.read (S - A - 1): the stores still allowed to
//      be reading shared memory are those of tiles i - 1 .. i - (S - A - 1),
//      so the store of tile i + A - S, the last user of the stage refilled
//      now, has finished reading it;
//   2. the refill: mbarrier.arrive.expect_tx of BC_TILE bytes on that stage's
//      barrier and cp.async.bulk global -> shared of tile i + A (skipped past
//      the end);
//   3. mbarrier.try_wait.parity on tile i's barrier;
//   4. cp.async.bulk shared -> global of tile i, then commit_group.
// After the loop, cp.async.bulk.wait_group 0: every store is complete before
// the kernel exits. The default A = S - 2 keeps one store in flight while the
// next stage is refilled (wait_group.read 1).
//
// Built by tools/bench/stream_bench.cmake: nvcc -ptx -arch=sm_90 -O3; the PTX
// is embedded in ptxgen_stream_bench and JIT-compiled by the driver. Other
// shapes: -DBC_STAGES=4 -DBC_TILE=32768 -DBC_AHEAD=2 -DBC_THREADS=32
// -DBC_HINT=1 (L2::cache_hint evict_first on loads and stores); the benchmark
// reads the shape from the module's bulk_copy_shape (--bulk-ptx).
#include <cstdint>

#ifndef BC_STAGES
#define BC_STAGES 4
#endif
#ifndef BC_TILE
#define BC_TILE 32768
#endif
#ifndef BC_AHEAD
#define BC_AHEAD (BC_STAGES - 2)
#endif
#ifndef BC_THREADS
#define BC_THREADS 32
#endif
#ifndef BC_HINT
#define BC_HINT 0
#endif

namespace {

constexpr unsigned kStages = BC_STAGES;
constexpr unsigned kTile = BC_TILE;
constexpr unsigned kAhead = BC_AHEAD;
constexpr unsigned kReadsPending = kStages - kAhead - 1; // wait_group.read count
static_assert(kAhead >= 1 && kAhead < kStages, "1 <= BC_AHEAD < BC_STAGES");
static_assert(kTile % 16 == 0 && kTile >= 16 && kTile <= 1048560, "a bulk copy's size");
static_assert(BC_THREADS % 32 == 0 && BC_THREADS <= 1024, "whole warps");

__device__ __forceinline__ std::uint64_t make_policy() {
  std::uint64_t policy = 0;
#if BC_HINT
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
#endif
  return policy;
}

__device__ __forceinline__ void mbar_init(unsigned bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ bool try_wait(unsigned bar, unsigned parity) {
  unsigned done = 0;
  asm volatile("{\n\t.reg .pred p;\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
               "selp.u32 %0, 1, 0, p;\n\t}\n"
               : "=r"(done)
               : "r"(bar), "r"(parity)
               : "memory");
  return done != 0;
}

__device__ __forceinline__ void bulk_load(unsigned smem, const unsigned char* src, unsigned bar,
                                          std::uint64_t policy) {
#if BC_HINT
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
               " [%0], [%1], %2, [%3], %4;\n" ::"r"(smem),
               "l"(src), "n"(kTile), "r"(bar), "l"(policy)
               : "memory");
#else
  (void)policy;
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1], %2, [%3];\n" ::"r"(smem),
               "l"(src), "n"(kTile), "r"(bar)
               : "memory");
#endif
}

__device__ __forceinline__ void bulk_store(unsigned char* dst, unsigned smem,
                                           std::uint64_t policy) {
#if BC_HINT
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;\n" ::
                   "l"(dst),
               "r"(smem), "n"(kTile), "l"(policy)
               : "memory");
#else
  (void)policy;
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(dst),
               "r"(smem), "n"(kTile)
               : "memory");
#endif
}

__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

template <unsigned N> __device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void bulk_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

} // namespace

/// The compile-time shape, read by the benchmark from the loaded module so
/// that it is written in this file only: {stages, tile bytes, tiles ahead,
/// threads per block}.
extern "C" __device__ const unsigned bulk_copy_shape[4] = {kStages, kTile, kAhead, BC_THREADS};

/// in, out: n_tiles * BC_TILE bytes each, 16-byte aligned. Launch with
/// blockDim.x = BC_THREADS and BC_STAGES * BC_TILE bytes of dynamic shared
/// memory; any grid. n_tiles + BC_STAGES * gridDim.x must fit in 32 bits.
extern "C" __global__ void __launch_bounds__(BC_THREADS)
    bulk_copy(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
              unsigned n_tiles) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) std::uint64_t bars[kStages];
  if (threadIdx.x != 0)
    return;
  const unsigned stride = gridDim.x;
  const unsigned ring_base = static_cast<unsigned>(__cvta_generic_to_shared(ring));
  const unsigned bar_base = static_cast<unsigned>(__cvta_generic_to_shared(bars));
  const std::uint64_t policy = make_policy();
#pragma unroll
  for (unsigned s = 0; s < kStages; ++s)
    mbar_init(bar_base + 8 * s);
  // The barriers' initialisation is visible to the async proxy that completes them.
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");

  unsigned tile = blockIdx.x;
  unsigned ahead = tile; // the next tile to load
#pragma unroll
  for (unsigned s = 0; s < kAhead; ++s) {
    if (ahead < n_tiles) {
      arrive_expect_tx(bar_base + 8 * s, kTile);
      bulk_load(ring_base + s * kTile, in + static_cast<size_t>(ahead) * kTile, bar_base + 8 * s,
                policy);
    }
    ahead += stride;
  }

  unsigned stage = 0, parity = 0; // tile's stage and its barrier's phase parity
  unsigned refill = kAhead;       // ahead's stage
  for (; tile < n_tiles; tile += stride) {
    bulk_wait_read<kReadsPending>();
    if (ahead < n_tiles) {
      arrive_expect_tx(bar_base + 8 * refill, kTile);
      bulk_load(ring_base + refill * kTile, in + static_cast<size_t>(ahead) * kTile,
                bar_base + 8 * refill, policy);
    }
    ahead += stride;
    refill = refill + 1 == kStages ? 0 : refill + 1;
    while (!try_wait(bar_base + 8 * stage, parity)) {
    }
    bulk_store(out + static_cast<size_t>(tile) * kTile, ring_base + stage * kTile, policy);
    bulk_commit();
    if (++stage == kStages) {
      stage = 0;
      parity ^= 1;
    }
  }
  bulk_wait_all();
}
