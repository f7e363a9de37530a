// The persistent streaming copy as a warp-specialized mbarrier ring (sm_90), as an expert
// writes it by hand in CUDA C++ with inline PTX: the baseline that ptxgen's
// tools/bench/stream_copy_ws_ring.toml is measured against (tools/ws_ring_device.sh).
//
// Shape (the spec's): WS_THREADS threads; warp 0 is the producer (its thread 0 alone issues
// the loads, the rest of the warp exits), the other warps are the consumers, which wait for
// each tile, copy it from shared to global memory with 16-byte loads and stores (consumer c
// moves the 16-byte words c, c + consumers, ... of the tile: a warp's store is 512
// contiguous bytes) and release its stage. The CTAs stride over the tiles (tile =
// blockIdx.x, + gridDim.x, ...); each keeps a ring of WS_STAGES tiles of WS_TILE bytes in
// dynamic shared memory with a `full` barrier (count 1: the producer's arrive.expect_tx) and
// an `empty` barrier (count: the consumers) per stage. Tile i of a CTA lives in stage
// i % WS_STAGES, in phase (i / WS_STAGES) % 2 of both barriers.
//
// Producer, per tile i: wait for the consumers' release of the stage's previous use
// (empty, parity ((i / S) % 2) ^ 1: a fresh barrier passes at once), arrive.expect_tx of
// WS_TILE bytes on full, cp.async.bulk of the tile. Consumer, per tile i: wait on full
// (parity (i / S) % 2), the copy, mbarrier.arrive on empty.
//
// -DWS_THREADS=384 -DWS_SETMAXNREG=1 (sm_90a): warpgroup 0 produces and gives registers back
// (setmaxnreg.dec 40), warpgroups 1 and 2 consume and take them (setmaxnreg.inc 232), as
// CUTLASS's warp-specialized kernels do.
//
// Built with nvcc -ptx -arch=sm_90 -O3 (sm_90a with WS_SETMAXNREG; tools/ws_ring_device.sh);
// launch with WS_THREADS threads and WS_STAGES * WS_TILE bytes of dynamic shared memory, one
// CTA per SM.
#include <cstdint>

#ifndef WS_STAGES
#define WS_STAGES 3
#endif
#ifndef WS_TILE
#define WS_TILE 65536
#endif
#ifndef WS_THREADS
#define WS_THREADS 160
#endif
#ifndef WS_SETMAXNREG
#define WS_SETMAXNREG 0
#endif

namespace {

constexpr unsigned kStages = WS_STAGES;
constexpr unsigned kTile = WS_TILE;
// The producer: warp 0, or warpgroup 0 where setmaxnreg moves registers (whole warpgroups).
constexpr unsigned kProducers = WS_SETMAXNREG ? 128 : 32;
constexpr unsigned kConsumers = WS_THREADS - kProducers;
constexpr unsigned kWords = kTile / 16; // 16-byte words of a tile
static_assert(kWords % kConsumers == 0, "whole words per consumer");

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void wait(unsigned bar, unsigned parity) {
  asm volatile("{\n\t.reg .pred p;\n"
               "WS_WAIT_%=:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
               "@!p bra WS_WAIT_%=;\n\t}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

} // namespace

/// in, out: n_tiles * WS_TILE bytes each, 16-byte aligned.
extern "C" __global__ void __launch_bounds__(WS_THREADS, 1)
    ws_copy(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
            unsigned n_tiles) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) std::uint64_t full[kStages], empty[kStages];
  const unsigned ring_base = static_cast<unsigned>(__cvta_generic_to_shared(ring));
  const unsigned full_base = static_cast<unsigned>(__cvta_generic_to_shared(full));
  const unsigned empty_base = static_cast<unsigned>(__cvta_generic_to_shared(empty));
  if (threadIdx.x == 0) {
#pragma unroll
    for (unsigned s = 0; s < kStages; ++s) {
      mbar_init(full_base + 8 * s, 1);
      mbar_init(empty_base + 8 * s, kConsumers);
    }
  }
  __syncthreads();
  const unsigned stride = gridDim.x;
  if (threadIdx.x < kProducers) {
#if WS_SETMAXNREG
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
#endif
    if (threadIdx.x != 0)
      return;
    unsigned stage = 0, parity = 0;
    for (unsigned tile = blockIdx.x; tile < n_tiles; tile += stride) {
      wait(empty_base + 8 * stage, parity ^ 1);
      asm volatile(
          "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(full_base + 8 * stage),
          "n"(kTile)
          : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                   " [%0], [%1], %2, [%3];\n" ::"r"(ring_base + stage * kTile),
                   "l"(in + static_cast<size_t>(tile) * kTile), "n"(kTile),
                   "r"(full_base + 8 * stage)
                   : "memory");
      if (++stage == kStages) {
        stage = 0;
        parity ^= 1;
      }
    }
    return;
  }
#if WS_SETMAXNREG
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
#endif
  const unsigned c = threadIdx.x - kProducers; // the consumer's index
  unsigned stage = 0, parity = 0;
  for (unsigned tile = blockIdx.x; tile < n_tiles; tile += stride) {
    wait(full_base + 8 * stage, parity);
    const uint4* src = reinterpret_cast<const uint4*>(ring + stage * kTile);
    uint4* dst = reinterpret_cast<uint4*>(out + static_cast<size_t>(tile) * kTile);
#pragma unroll
    for (unsigned j = 0; j < kWords / kConsumers; ++j)
      dst[c + j * kConsumers] = src[c + j * kConsumers];
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(empty_base + 8 * stage)
                 : "memory");
    if (++stage == kStages) {
      stage = 0;
      parity ^= 1;
    }
  }
}
