// Two cluster kernels written with cooperative_groups, compiled by nvcc into the PTX next to this
// file (see cluster_kernels.ptx's header for the command), for the simulator's cluster tests
// (tests/unit/sim_cluster_nvcc.cpp) and tools/sim_cluster_device.sh (the same kernels on the GPU).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Clusters of 2 CTAs: each CTA stages its slice of `in` in shared memory; after cluster.sync()
// every thread reads its peer CTA's slice, reversed, through distributed shared memory.
extern "C" __global__ void __cluster_dims__(2, 1, 1)
    cluster_swap_reverse(const unsigned* in, unsigned* out) {
  __shared__ unsigned tile[128];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned tid = threadIdx.x;
  tile[tid] = in[blockIdx.x * blockDim.x + tid] * 3u + cluster.block_rank();
  cluster.sync();
  const unsigned peer = cluster.block_rank() ^ 1u;
  unsigned* remote = cluster.map_shared_rank(tile, peer);
  out[blockIdx.x * blockDim.x + tid] = remote[blockDim.x - 1 - tid];
  cluster.sync(); // the peer's shared memory stays until every read of it is done
}

// A distributed histogram (the CUDA programming guide's): the bins are split over the CTAs of a
// cluster of 4, each CTA's shared memory holding bins / 4 of them; every input element is
// counted with an atomicAdd into the owning CTA's shared memory; the cluster then adds its bins
// to the global histogram.
extern "C" __global__ void __cluster_dims__(4, 1, 1)
    cluster_histogram(const unsigned* in, unsigned n, unsigned* bins, unsigned nbins) {
  extern __shared__ unsigned smem[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned per_block = nbins / cluster.num_blocks();
  for (unsigned i = threadIdx.x; i < per_block; i += blockDim.x)
    smem[i] = 0;
  cluster.sync();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned bin = in[i] % nbins;
    unsigned* owner = cluster.map_shared_rank(smem, bin / per_block);
    atomicAdd(owner + bin % per_block, 1u);
  }
  cluster.sync();
  const unsigned base = cluster.block_rank() * per_block;
  for (unsigned i = threadIdx.x; i < per_block; i += blockDim.x)
    atomicAdd(&bins[base + i], smem[i]);
}
