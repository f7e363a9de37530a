// The persistent streaming copy through 2-D TMA tensor copies (sm_90), as an
// expert writes it by hand in CUDA C++ with inline PTX: the baseline that
// ptxgen's tools/bench/stream_copy_tma.toml is measured against
// (tools/bench/stream_bench.cpp, docs/benchmarks.md).
//
// The bytes are a 2-D uint16 tensor of `rows` x `cols` elements, row-major
// (16 KiB rows in the benchmark: cols = 8192), described by two tensor maps
// (cuTensorMapEncodeTiled on the host, passed by value as
// `const __grid_constant__ CUtensorMap`), with boxes of TC_BOX_ROWS x
// TC_BOX_COLS elements and swizzle TC_SWIZZLE (0, 32, 64 or 128 bytes; the
// same on both maps, so the shared tile is stored as it was loaded). Tile t
// is the box at row (t / col_tiles) * TC_BOX_ROWS, column (t % col_tiles) *
// TC_BOX_COLS. One thread per CTA moves the tiles; the CTAs stride over them;
// the ring is that of tools/baseline/bulk_copy.cu: TC_STAGES boxes in dynamic
// shared memory (1024-byte aligned, the 128-byte swizzle's period), one
// mbarrier per stage, TC_AHEAD boxes loaded ahead, cp.async.bulk.wait_group.read
// (S - A - 1) before a refill, a bulk group per stored box.
//
// Built by tools/bench/stream_bench.cmake: nvcc -ptx -arch=sm_90 -O3, the PTX
// embedded in ptxgen_stream_bench. Other shapes: -DTC_STAGES, -DTC_BOX_ROWS,
// -DTC_BOX_COLS, -DTC_SWIZZLE, -DTC_AHEAD, -DTC_THREADS; the benchmark reads
// them from the module's tma_copy_shape and encodes the maps to match
// (--tma-ptx).
#include <cstdint>

#include <cuda.h>

#ifndef TC_STAGES
#define TC_STAGES 4
#endif
#ifndef TC_BOX_ROWS
#define TC_BOX_ROWS 64
#endif
#ifndef TC_BOX_COLS
#define TC_BOX_COLS 256
#endif
#ifndef TC_SWIZZLE
#define TC_SWIZZLE 0
#endif
#ifndef TC_AHEAD
#define TC_AHEAD (TC_STAGES - 2)
#endif
#ifndef TC_THREADS
#define TC_THREADS 32
#endif

namespace {

constexpr unsigned kStages = TC_STAGES;
constexpr unsigned kBoxBytes = TC_BOX_ROWS * TC_BOX_COLS * 2;
constexpr unsigned kAhead = TC_AHEAD;
constexpr unsigned kReadsPending = kStages - kAhead - 1;
static_assert(kAhead >= 1 && kAhead < kStages, "1 <= TC_AHEAD < TC_STAGES");
static_assert(TC_BOX_ROWS >= 1 && TC_BOX_ROWS <= 256 && TC_BOX_COLS >= 8 && TC_BOX_COLS <= 256 &&
                  TC_BOX_COLS % 8 == 0,
              "a box has 1..256 elements per dimension, inner rows of whole 16 bytes");
static_assert(TC_SWIZZLE == 0 || TC_BOX_COLS * 2 <= TC_SWIZZLE,
              "a swizzled box's inner bytes fit in the swizzle span");
static_assert(kBoxBytes % 1024 == 0, "stages stay 1024-byte aligned");
static_assert(TC_THREADS % 32 == 0 && TC_THREADS <= 1024, "whole warps");

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

__device__ __forceinline__ void tensor_load(unsigned smem, const CUtensorMap* map, unsigned col,
                                            unsigned row, unsigned bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(smem),
               "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(bar)
               : "memory");
}

__device__ __forceinline__ void tensor_store(const CUtensorMap* map, unsigned col, unsigned row,
                                             unsigned smem) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
               " [%0, {%1, %2}], [%3];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)),
               "r"(col), "r"(row), "r"(smem)
               : "memory");
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

/// A tile index as its box's (column, row) in elements, stepped by the grid
/// without a division in the loop.
struct BoxAt {
  unsigned col, row;
  __device__ __forceinline__ void step(unsigned col_step, unsigned row_step, unsigned cols) {
    col += col_step;
    row += row_step;
    if (col >= cols) {
      col -= cols;
      row += TC_BOX_ROWS;
    }
  }
};

} // namespace

/// The compile-time shape, read by the benchmark from the loaded module:
/// {stages, box rows, box columns (uint16 elements), swizzle bytes (0 = none),
/// boxes ahead, threads per block}.
extern "C" __device__ const unsigned tma_copy_shape[6] = {
    kStages, TC_BOX_ROWS, TC_BOX_COLS, TC_SWIZZLE, kAhead, TC_THREADS};

/// in_map, out_map: 2-D uint16 maps of the same rows x cols with boxes of
/// TC_BOX_ROWS x TC_BOX_COLS and swizzle TC_SWIZZLE; col_tiles = cols /
/// TC_BOX_COLS; n_tiles = col_tiles * ceil(rows / TC_BOX_ROWS) (a ragged last
/// row of boxes is zero-filled by the loads and clipped by the stores). Launch
/// with blockDim.x = TC_THREADS and TC_STAGES * box bytes + 1024 of dynamic
/// shared memory (the ring is aligned up to 1024 bytes); any grid.
extern "C" __global__ void __launch_bounds__(TC_THREADS)
    tma_copy(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map,
             unsigned col_tiles, unsigned n_tiles) {
  extern __shared__ __align__(1024) unsigned char ring_raw[];
  __shared__ __align__(8) std::uint64_t bars[kStages];
  if (threadIdx.x != 0)
    return;
  const unsigned stride = gridDim.x;
  const unsigned ring_base =
      (static_cast<unsigned>(__cvta_generic_to_shared(ring_raw)) + 1023u) & ~1023u;
  const unsigned bar_base = static_cast<unsigned>(__cvta_generic_to_shared(bars));
#pragma unroll
  for (unsigned s = 0; s < kStages; ++s)
    mbar_init(bar_base + 8 * s);
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(&in_map))
               : "memory");
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(&out_map))
               : "memory");

  // A grid step in elements: stride boxes are (stride / col_tiles) box rows
  // and (stride % col_tiles) box columns.
  const unsigned cols = col_tiles * TC_BOX_COLS;
  const unsigned col_step = (stride % col_tiles) * TC_BOX_COLS;
  const unsigned row_step = (stride / col_tiles) * TC_BOX_ROWS;
  unsigned tile = blockIdx.x;
  unsigned ahead = tile;
  BoxAt out_at{(tile % col_tiles) * TC_BOX_COLS, (tile / col_tiles) * TC_BOX_ROWS};
  BoxAt in_at = out_at;
#pragma unroll
  for (unsigned s = 0; s < kAhead; ++s) {
    if (ahead < n_tiles) {
      arrive_expect_tx(bar_base + 8 * s, kBoxBytes);
      tensor_load(ring_base + s * kBoxBytes, &in_map, in_at.col, in_at.row, bar_base + 8 * s);
    }
    ahead += stride;
    in_at.step(col_step, row_step, cols);
  }

  unsigned stage = 0, parity = 0;
  unsigned refill = kAhead;
  for (; tile < n_tiles; tile += stride) {
    bulk_wait_read<kReadsPending>();
    if (ahead < n_tiles) {
      arrive_expect_tx(bar_base + 8 * refill, kBoxBytes);
      tensor_load(ring_base + refill * kBoxBytes, &in_map, in_at.col, in_at.row,
                  bar_base + 8 * refill);
    }
    ahead += stride;
    in_at.step(col_step, row_step, cols);
    refill = refill + 1 == kStages ? 0 : refill + 1;
    while (!try_wait(bar_base + 8 * stage, parity)) {
    }
    tensor_store(&out_map, out_at.col, out_at.row, ring_base + stage * kBoxBytes);
    bulk_commit();
    out_at.step(col_step, row_step, cols);
    if (++stage == kStages) {
      stage = 0;
      parity ^= 1;
    }
  }
  bulk_wait_all();
}
