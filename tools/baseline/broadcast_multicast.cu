// The broadcast load (the GEMM A-operand pattern) by hand in CUDA C++ with inline PTX: the
// baseline that tools/bench/broadcast_multicast_{2,4}.toml are measured against
// (tools/broadcast_device.sh, docs/benchmarks.md "Broadcast loads: multicast against unicast").
//
// The same shape as the specs: A is 256 tiles of 64 x 256 uint16 (32 KiB, 8 MiB in all),
// described by one tensor map (cuTensorMapEncodeTiled, no swizzle, no L2 promotion: the specs'
// defaults); 132 CTAs of 32 threads (128 in clusters of 8) in clusters of C (2, 4 or 8);
// cluster c loads tiles (c + j * nclusters) % 256, j = 0 .. n - 1, through a ring of S stages
// of 32 KiB in dynamic shared memory (--stages, default 4), L tiles ahead (--ahead, default
// S - 1). Thread 0 of CTA rank r loads rows [r * 64 / C, (r + 1) * 64 / C)
// of each tile and multicasts them (mask 2^C - 1) to every CTA of the cluster, whose `full`
// barrier expects the whole 32 KiB. A stage is refilled only once every CTA of the cluster has
// received the tile in it:
//   --mode sync   as the specs do it: after its wait, the warp meets the cluster at
//                 barrier.cluster.arrive / wait (once per tile);
//   --mode empty  as CUTLASS's PipelineTmaAsync does it: after its wait for the tile, thread r
//                 (r < C) arrives on the stage's `empty` barrier of rank r
//                 (mapa + mbarrier.arrive.release.cluster), and the producer waits for its own
//                 `empty` (C arrivals) before it refills the stage; with L = S - 2 a CTA may
//                 run one tile ahead of its slowest peer (tools/bench/broadcast_empty_*.toml).
//                 (Until 2026-12-05 thread 0 made the C arrivals itself, one after another.)
//                 With --arrive-scope cta the arrival has no semantics written (.release.cta,
//                 CUTLASS's ClusterBarrier::arrive(cta_id)) instead of .release.cluster.
// At the end every thread waits for the last tile and copies it to B[bid] (32 KiB per CTA); the
// host checks every B[bid] against its tile of A, and a cluster barrier precedes the exit.
//
//   nvcc -gencode arch=compute_90a,code=sm_90a -O3 -o broadcast_multicast \
//        tools/baseline/broadcast_multicast.cu -lcuda
//   ./broadcast_multicast [--cluster 2|4|8] [--mode sync|empty] [--stages S] [--ahead L]
//                         [--tiles N] [--a-tiles N] [--reps N] [--warmup N]
//                         [--arrive-scope cluster|cta]
// (--tiles: tiles each CTA receives; --a-tiles: A's size in tiles, 256 unless given: the
// `big` specs' A, ncluster x 128 tiles, is larger than the H200's L2)
// prints one line: `broadcast-baseline cluster C mode M stages S ahead L tiles N a_tiles T
// median_ms X min_ms Y delivered_bytes D delivered_GBps G ok|WRONG`, where D = CTAs x N x 32768
// (the bytes that reach shared memory in one launch) and G = D / median (decimal GB/s). Exit status
// 0 when B is right.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

namespace {

constexpr unsigned kTiles = 256;   // tiles of A unless --a-tiles
constexpr unsigned kTileRows = 64; // rows of a tile
constexpr unsigned kCols = 256;    // uint16 columns: one 512-byte row
constexpr unsigned kTileBytes = kTileRows * kCols * 2;
constexpr unsigned kMaxStages = 7; // 7 x 32 KiB: the most an SM's 227 KiB hold
constexpr unsigned kSMs = 132;
constexpr unsigned kThreads = 32;

constexpr unsigned grid_of(unsigned cluster) {
  return kSMs / cluster * cluster;
}

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ unsigned special(unsigned which) {
  unsigned v = 0;
  if (which == 0)
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v));
  else if (which == 1)
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v));
  else
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v));
  return v;
}

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity) {
  asm volatile("{\n\t.reg .pred p;\n"
               "WAIT_%=:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
               "@!p bra WAIT_%=;\n\t}" ::"r"(bar),
               "r"(parity)
               : "memory");
}

// The release of a stage on rank `rank`'s barrier: at cluster scope (ptxgen's form), or, with
// `cta_scope`, with no semantics written (`.release.cta`, the default: CUTLASS's
// ClusterBarrier::arrive(cta_id)).
__device__ __forceinline__ void arrive_remote(unsigned bar, unsigned rank, bool cta_scope) {
  if (cta_scope)
    asm volatile("{\n\t.reg .b32 r;\n\t"
                 "mapa.shared::cluster.u32 r, %0, %1;\n\t"
                 "mbarrier.arrive.shared::cluster.b64 _, [r];\n\t}" ::"r"(bar),
                 "r"(rank)
                 : "memory");
  else
    asm volatile("{\n\t.reg .b32 r;\n\t"
                 "mapa.shared::cluster.u32 r, %0, %1;\n\t"
                 "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\n\t}" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}

__device__ __forceinline__ void load_multicast(unsigned dst, const CUtensorMap* map, unsigned row,
                                               unsigned bar, std::uint16_t mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {0, %2}], [%3], %4;" ::"r"(dst),
               "l"(reinterpret_cast<std::uint64_t>(map)), "r"(row), "r"(bar), "h"(mask)
               : "memory");
}

__device__ __forceinline__ void cluster_sync_all(bool relaxed) {
  if (relaxed)
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  else
    asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

template <unsigned C, bool kEmpty>
__global__ void __launch_bounds__(kThreads)
    broadcast(const __grid_constant__ CUtensorMap a, std::uint16_t* b, unsigned n, unsigned stages,
              unsigned ahead, unsigned a_tiles, unsigned cta_scope) {
  extern __shared__ __align__(1024) unsigned char ring[];
  __shared__ alignas(8) std::uint64_t full[kMaxStages];
  __shared__ alignas(8) std::uint64_t empty[kMaxStages];
  constexpr unsigned kPart = kTileRows / C;
  constexpr std::uint16_t kMask = (1u << C) - 1u;
  const unsigned rank = special(0), cid = special(1), ncl = special(2);
  const unsigned tid = threadIdx.x;
  if (tid == 0) {
    for (unsigned s = 0; s < stages; ++s) {
      mbar_init(smem_u32(&full[s]), 1);
      if (kEmpty)
        mbar_init(smem_u32(&empty[s]), C);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncwarp();
  cluster_sync_all(true);
  const unsigned part = smem_u32(ring) + rank * kPart * kCols * 2;
  // Tile j's first row of this CTA's part: ((cid + j * ncl) % a_tiles) * 64 + rank * kPart.
  auto load = [&](unsigned j) {
    const unsigned s = j % stages;
    if (kEmpty && j >= stages) // every CTA has released tile j - stages of this stage
      wait_parity(smem_u32(&empty[s]), (j / stages - 1) & 1u);
    arrive_expect_tx(smem_u32(&full[s]), kTileBytes);
    load_multicast(part + s * kTileBytes, &a, (cid + j * ncl) % a_tiles * kTileRows + rank * kPart,
                   smem_u32(&full[s]), kMask);
  };
  if (tid == 0) {
    for (unsigned j = 0; j < ahead && j < n; ++j)
      load(j);
  }
  for (unsigned k = 0; k < n; ++k) {
    if (tid == 0 && k + ahead < n)
      load(k + ahead);
    if (tid == 0 || (kEmpty && tid < C)) {
      wait_parity(smem_u32(&full[k % stages]), (k / stages) & 1u);
      if (kEmpty) // thread r releases the stage in the CTA of rank r
        arrive_remote(smem_u32(&empty[k % stages]), tid, cta_scope != 0);
    }
    if (!kEmpty) {
      __syncwarp();
      cluster_sync_all(false); // every CTA has tile k: its stage may be refilled
    }
  }
  __syncwarp();
  const unsigned last = (n - 1) % stages;
  wait_parity(smem_u32(&full[last]), ((n - 1) / stages) & 1u);
  const uint4* src = reinterpret_cast<const uint4*>(ring + last * kTileBytes);
  uint4* dst =
      reinterpret_cast<uint4*>(b + static_cast<std::size_t>(blockIdx.x) * kTileRows * kCols);
  for (unsigned i = tid; i < kTileBytes / 16; i += kThreads)
    dst[i] = src[i];
  __syncwarp();
  cluster_sync_all(false); // no CTA exits while a peer may still arrive on its barriers
}

#define CHECK_CUDA(x)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

struct Options {
  unsigned cluster = 2, tiles = 512, reps = 50, warmup = 10, stages = 4, ahead = 0;
  unsigned a_tiles = kTiles;
  bool empty = false;
  bool cta_scope = false; ///< --arrive-scope cta: the remote release at .cta scope
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--cluster" && has)
      o.cluster = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--tiles" && has)
      o.tiles = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--a-tiles" && has)
      o.a_tiles = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--reps" && has)
      o.reps = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--warmup" && has)
      o.warmup = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--stages" && has)
      o.stages = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--ahead" && has)
      o.ahead = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--mode" && has)
      o.empty = std::string(argv[++i]) == "empty";
    else if (a == "--arrive-scope" && has)
      o.cta_scope = std::string(argv[++i]) == "cta";
    else {
      std::fprintf(stderr,
                   "usage: %s [--cluster 2|4|8] [--mode sync|empty] [--stages S] [--ahead L] "
                   "[--tiles N] [--a-tiles N] [--reps N] [--warmup N] "
                   "[--arrive-scope cluster|cta]\n",
                   argv[0]);
      std::exit(2);
    }
  }
  if (o.ahead == 0)
    o.ahead = o.stages - 1;
  if ((o.cluster != 2 && o.cluster != 4 && o.cluster != 8) || o.tiles == 0 || o.a_tiles == 0 ||
      o.reps == 0 || o.stages < 2 || o.stages > kMaxStages || o.ahead >= o.stages) {
    std::fprintf(stderr,
                 "--cluster 2, 4 or 8, --stages 2..%u, --ahead 1..stages - 1, --tiles, "
                 "--a-tiles and --reps at least 1\n",
                 kMaxStages);
    std::exit(2);
  }
  return o;
}

CUtensorMap encode(void* a, unsigned cluster, unsigned a_tiles) {
  CUtensorMap m;
  const cuuint64_t dims[2] = {kCols, cuuint64_t{a_tiles} * kTileRows};
  const cuuint64_t strides[1] = {kCols * 2};
  const cuuint32_t box[2] = {kCols, kTileRows / cluster};
  const cuuint32_t elem[2] = {1, 1};
  const CUresult r =
      cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, a, dims, strides, box, elem,
                             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled: CUresult %d\n", static_cast<int>(r));
    std::exit(1);
  }
  return m;
}

template <unsigned C, bool kEmpty>
float launch(const Options& o, const CUtensorMap& map, std::uint16_t* b, cudaEvent_t t0,
             cudaEvent_t t1) {
  auto* k = broadcast<C, kEmpty>;
  const unsigned ring = o.stages * kTileBytes;
  CHECK_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, ring));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid_of(C));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = ring;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = C;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK_CUDA(cudaEventRecord(t0));
  CHECK_CUDA(cudaLaunchKernelEx(&cfg, k, map, b, o.tiles, o.stages, o.ahead, o.a_tiles,
                                static_cast<unsigned>(o.cta_scope)));
  CHECK_CUDA(cudaEventRecord(t1));
  CHECK_CUDA(cudaEventSynchronize(t1));
  CHECK_CUDA(cudaGetLastError());
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, t0, t1));
  return ms;
}

float launch_any(const Options& o, const CUtensorMap& map, std::uint16_t* b, cudaEvent_t t0,
                 cudaEvent_t t1) {
  if (o.cluster == 2)
    return o.empty ? launch<2, true>(o, map, b, t0, t1) : launch<2, false>(o, map, b, t0, t1);
  if (o.cluster == 4)
    return o.empty ? launch<4, true>(o, map, b, t0, t1) : launch<4, false>(o, map, b, t0, t1);
  return o.empty ? launch<8, true>(o, map, b, t0, t1) : launch<8, false>(o, map, b, t0, t1);
}

} // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::size_t a_elems = std::size_t{o.a_tiles} * kTileRows * kCols;
  const unsigned grid = grid_of(o.cluster);
  const std::size_t b_elems = std::size_t{grid} * kTileRows * kCols;
  std::vector<std::uint16_t> ha(a_elems), hb(b_elems);
  std::uint32_t x = 38;
  for (auto& v : ha) {
    x = x * 1664525u + 1013904223u;
    v = static_cast<std::uint16_t>(x >> 16);
  }
  std::uint16_t *da = nullptr, *db = nullptr;
  CHECK_CUDA(cudaMalloc(&da, a_elems * 2));
  CHECK_CUDA(cudaMalloc(&db, b_elems * 2));
  CHECK_CUDA(cudaMemcpy(da, ha.data(), a_elems * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(db, 0, b_elems * 2));
  const CUtensorMap map = encode(da, o.cluster, o.a_tiles);
  cudaEvent_t t0, t1;
  CHECK_CUDA(cudaEventCreate(&t0));
  CHECK_CUDA(cudaEventCreate(&t1));
  for (unsigned i = 0; i < o.warmup; ++i)
    launch_any(o, map, db, t0, t1);
  std::vector<float> ms;
  for (unsigned i = 0; i < o.reps; ++i)
    ms.push_back(launch_any(o, map, db, t0, t1));
  CHECK_CUDA(cudaMemcpy(hb.data(), db, b_elems * 2, cudaMemcpyDeviceToHost));
  const unsigned ncl = grid / o.cluster;
  bool ok = true;
  for (unsigned bid = 0; bid < grid && ok; ++bid) {
    const unsigned t = (bid / o.cluster + (o.tiles - 1) * ncl) % o.a_tiles;
    ok = std::memcmp(hb.data() + std::size_t{bid} * kTileRows * kCols,
                     ha.data() + std::size_t{t} * kTileRows * kCols, kTileBytes) == 0;
  }
  std::sort(ms.begin(), ms.end());
  const float median =
      ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  const double delivered = double(grid) * o.tiles * kTileBytes;
  std::printf("broadcast-baseline cluster %u mode %s stages %u ahead %u tiles %u a_tiles %u "
              "median_ms %.4f "
              "min_ms %.4f delivered_bytes %.0f delivered_GBps %.1f %s\n",
              o.cluster, o.empty ? "empty" : "sync", o.stages, o.ahead, o.tiles, o.a_tiles, median,
              ms.front(), delivered, delivered / (median * 1e-3) / 1e9, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
