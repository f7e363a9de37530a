// Cluster and multicast kernels written the way public Hopper code writes them, this project's
// own (tests/wild/MANIFEST.toml, `own_cluster_*`): lint must find them clean, each one-line
// mutant of their PTX must be reported with its rule, and on the H200 the GPU's memory after a
// run must equal the simulator's (tools/wild_device.sh).
//
// dsmem_reduce          cooperative_groups: cluster.sync() / map_shared_rank, a reduction
//                       over the four CTAs' shared memory (cluster of 4)
// memcpy_async_cluster  libcu++: cuda::barrier + cuda::memcpy_async (a bulk copy on sm_90),
//                       then each CTA reads its peer's tile (cluster of 2)
// tma_multicast_2       CUTLASS-style inline asm: the GEMM A-operand broadcast, each CTA loads
// tma_multicast_4       its slice of every tile with cp.async.bulk.tensor .multicast::cluster
//                       into all CTAs; a producer warp and four consumer warps; the consumers
//                       release a stage with a remote mbarrier.arrive.release.cluster on every
//                       CTA's `empty` (clusters of 2 and 4)
// bulk_broadcast        libcu++ cuda::ptx: rank 0 multicasts one block to the cluster with
//                       cp.async.bulk .multicast::cluster; each CTA states its bytes with
//                       cuda::device::barrier_expect_tx (cluster of 4)
//
// The PTX is generated, never edited:
//   nvcc -arch=sm_90a -O3 -ptx tests/wild/own/cluster_multicast.cu \
//        -o tests/wild/own/cluster_multicast.sm90a.ptx
#include <cstdint>
#include <cuda/barrier>
#include <cuda/ptx>

#include <cooperative_groups.h>
#include <cuda.h> // CUtensorMap

// a cuda::barrier in __shared__ is initialised by init(), not by its constructor (libcu++'s docs)
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

namespace {

// ---- dsmem_reduce -------------------------------------------------------------------------

constexpr unsigned kReduceCluster = 4;
constexpr unsigned kReduceThreads = 128;
constexpr unsigned kReduceSlice = kReduceThreads / kReduceCluster; // elements each CTA sums

// ---- memcpy_async_cluster -----------------------------------------------------------------

constexpr unsigned kCopyWords = 512; // 2 KiB per CTA

// ---- tma_multicast ------------------------------------------------------------------------

constexpr unsigned kTileRows = 32;                         // BM
constexpr unsigned kTileCols = 32;                         // BK, u32: 128-byte rows
constexpr unsigned kTileBytes = kTileRows * kTileCols * 4; // 4 KiB a stage
constexpr unsigned kStages = 2;
constexpr unsigned kConsumerWarps = 4;
constexpr unsigned kConsumers = kConsumerWarps * 32;

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(std::uint64_t* bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}

__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
}

__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

__device__ __forceinline__ std::uint32_t cluster_rank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

// CUTLASS's ClusterBarrier::wait: a try_wait.parity loop.
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, std::uint32_t phase) {
  asm volatile("{\n"
               ".reg .pred P1;\n"
               "LAB_WAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
               "@P1 bra DONE;\n"
               "bra LAB_WAIT;\n"
               "DONE:\n"
               "}\n" ::"r"(smem_addr(bar)),
               "r"(phase)
               : "memory");
}

// CUTLASS's ClusterBarrier::arrive(cta_id, pred): an arrival on the barrier at the same offset
// in CTA `cta` of the cluster.
__device__ __forceinline__ void mbar_arrive_cluster(std::uint64_t* bar, std::uint32_t cta) {
  asm volatile("{\n"
               ".reg .b32 remAddr32;\n"
               "mapa.shared::cluster.u32 remAddr32, %0, %1;\n"
               "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remAddr32];\n"
               "}\n" ::"r"(smem_addr(bar)),
               "r"(cta)
               : "memory");
}

// CUTLASS's SM90_TMA_LOAD_MULTICAST_2D::copy.
__device__ __forceinline__ void tma_load_multicast_2d(const void* map, std::uint64_t* bar,
                                                      std::uint16_t mask, void* dst, int c0,
                                                      int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4, %5}], [%2], %3;" ::"r"(smem_addr(dst)),
               "l"(map), "r"(smem_addr(bar)), "h"(mask), "r"(c0), "r"(c1)
               : "memory");
}

// A: kTiles tiles of kTileRows x kTileCols u32 side by side (rows x (kTileCols * k_tiles)).
// Every CTA of the cluster needs every tile (the CTAs of one GEMM row of output tiles);
// CTA r loads rows [r * rows / C, (r + 1) * rows / C) of each and multicasts them to all.
template <unsigned kCluster>
__device__ void tma_multicast_body(const CUtensorMap& a, unsigned* out, unsigned k_tiles) {
  __shared__ alignas(1024) unsigned tile[kStages][kTileRows * kTileCols];
  __shared__ alignas(8) std::uint64_t full[kStages];
  __shared__ alignas(8) std::uint64_t empty[kStages];
  constexpr unsigned kSliceRows = kTileRows / kCluster;
  constexpr std::uint16_t kMask = (1u << kCluster) - 1u;
  const unsigned warp = threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned rank = cluster_rank();
  if (threadIdx.x == 0) {
    for (unsigned s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], kConsumerWarps * kCluster);
    }
    fence_barrier_init();
  }
  // CUTLASS: cluster_arrive_relaxed() + cluster_wait() after the barriers' init
  cluster_arrive_relaxed();
  cluster_wait();

  if (warp == kConsumerWarps) { // the producer warp
    if (lane == 0) {
      for (unsigned k = 0; k < k_tiles; ++k) {
        const unsigned s = k % kStages;
        mbar_wait(&empty[s], ((k / kStages) & 1u) ^ 1u); // a fresh barrier passes parity 1
        arrive_expect_tx(&full[s], kTileBytes);
        tma_load_multicast_2d(&a, &full[s], kMask, &tile[s][rank * kSliceRows * kTileCols],
                              static_cast<int>(k * kTileCols), static_cast<int>(rank * kSliceRows));
      }
    }
    __syncwarp();
  } else { // the consumer warps
    unsigned acc = 0;
    for (unsigned k = 0; k < k_tiles; ++k) {
      const unsigned s = k % kStages;
      mbar_wait(&full[s], (k / kStages) & 1u);
      for (unsigned j = 0; j < kTileRows * kTileCols / kConsumers; ++j)
        acc += tile[s][j * kConsumers + threadIdx.x] * (k + 1);
      __syncwarp();
      if (lane < kCluster) // lane c releases the stage on CTA c's `empty`
        mbar_arrive_cluster(&empty[s], lane);
    }
    out[blockIdx.x * kConsumers + threadIdx.x] = acc + rank;
  }
  // no CTA exits while a peer may still multicast into it or arrive on its `empty`
  cluster_arrive();
  cluster_wait();
}

// ---- bulk_broadcast -----------------------------------------------------------------------

constexpr unsigned kBroadcastCluster = 4;
constexpr unsigned kBroadcastWords = 1024; // 4 KiB

} // namespace

extern "C" __global__ void __cluster_dims__(kReduceCluster, 1, 1) __launch_bounds__(kReduceThreads)
    dsmem_reduce(const unsigned* in, unsigned* out) {
  __shared__ unsigned part[kReduceThreads];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned tid = threadIdx.x;
  part[tid] = in[blockIdx.x * kReduceThreads + tid];
  cluster.sync();
  if (tid < kReduceSlice) { // CTA r sums its slice of the cluster's four vectors
    const unsigned i = cluster.block_rank() * kReduceSlice + tid;
    unsigned sum = 0;
    for (unsigned r = 0; r < kReduceCluster; ++r)
      sum += cluster.map_shared_rank(part, r)[i];
    out[(blockIdx.x / kReduceCluster) * kReduceThreads + i] = sum;
  }
  cluster.sync(); // the peers read this CTA's `part` until here
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
    memcpy_async_cluster(const unsigned* in, unsigned* out) {
  __shared__ alignas(128) unsigned tile[kCopyWords];
  __shared__ block_barrier bar;
  cg::thread_block block = cg::this_thread_block();
  cg::cluster_group cluster = cg::this_cluster();
  if (block.thread_rank() == 0)
    init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * kCopyWords,
                     cuda::aligned_size_t<16>(sizeof(tile)), bar);
  bar.arrive_and_wait();
  cluster.sync(); // both CTAs' tiles have landed
  const unsigned* peer = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1u);
  for (unsigned i = block.thread_rank(); i < kCopyWords; i += block.size())
    out[blockIdx.x * kCopyWords + i] = tile[i] + peer[kCopyWords - 1 - i];
  cluster.sync();
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kConsumers + 32)
    tma_multicast_2(const __grid_constant__ CUtensorMap a, unsigned* out, unsigned k_tiles) {
  tma_multicast_body<2>(a, out, k_tiles);
}

extern "C" __global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(kConsumers + 32)
    tma_multicast_4(const __grid_constant__ CUtensorMap a, unsigned* out, unsigned k_tiles) {
  tma_multicast_body<4>(a, out, k_tiles);
}

extern "C" __global__ void __cluster_dims__(kBroadcastCluster, 1, 1) __launch_bounds__(128)
    bulk_broadcast(const unsigned* in, unsigned* out) {
  __shared__ alignas(128) unsigned row[kBroadcastWords];
  __shared__ block_barrier bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cluster.sync(); // every CTA's barrier is initialised before rank 0 multicasts into it
  if (threadIdx.x == 0) {
    cuda::device::barrier_expect_tx(bar, sizeof(row)); // each CTA receives the whole row
    if (rank == 0)
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, row,
                               in + (blockIdx.x / kBroadcastCluster) * kBroadcastWords, sizeof(row),
                               cuda::device::barrier_native_handle(bar),
                               static_cast<std::uint16_t>((1u << kBroadcastCluster) - 1u));
  }
  bar.wait(bar.arrive());
  for (unsigned i = threadIdx.x; i < kBroadcastWords; i += blockDim.x)
    out[blockIdx.x * kBroadcastWords + i] = row[i] ^ (rank * 0x01010101u);
  cluster.sync(); // rank 0's multicast wrote every peer's `row` and completed on its barrier
}
