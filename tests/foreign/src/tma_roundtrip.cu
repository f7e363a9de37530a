// A 2-D TMA round trip through libcu++'s experimental functions (sm_90 only),
// both tensor maps `const __grid_constant__ CUtensorMap` parameters: A (32 x 64
// u32) and B (30 x 64 u32), each with 128-byte swizzle and 16 x 32 boxes. For
// each of the four boxes, thread 0 loads it (cp_async_bulk_tensor_2d_global_to_shared,
// barrier_arrive_tx), all wait on the phase parity; thread 0 waits until the
// previous box's store has read `out` (cp_async_bulk_wait_group_read<0>) and
// all sync; every thread copies 128-byte lines of `in` to `out` with lines L and
// L ^ 8 swapped (the swizzle moves both alike), fences the async proxy
// (fence_proxy_async_shared_cta) and syncs; thread 0 stores `out` to B at the
// box's place (cp_async_bulk_tensor_2d_shared_to_global) and commits. Rows 30
// and 31 of the last two boxes lie outside B: the store skips them. A final
// cp_async_bulk_wait_group_read<0> before exit.
// Spec (it needs [tensor.A.map] and [tensor.B.map]): tests/foreign/specs/tma_roundtrip.toml.
#include <cuda.h>
#include <cuda/barrier>
#include "common.cuh"

namespace cde = cuda::device::experimental;
using barrier_t = cuda::barrier<cuda::thread_scope_block>;

namespace {
constexpr unsigned kRows = 32, kCols = 64;       // A; B has 30 rows
constexpr unsigned kBoxRows = 16, kBoxCols = 32; // a box: 16 lines of 128 bytes
constexpr unsigned kBoxWords = kBoxRows * kBoxCols;
constexpr unsigned kSwap = 8 * kBoxCols; // line L <-> line L ^ 8, in words
} // namespace

__global__ void __launch_bounds__(corpus::kThreads)
    tma_roundtrip(const __grid_constant__ CUtensorMap a_map,
                  const __grid_constant__ CUtensorMap b_map) {
  __shared__ alignas(1024) std::uint32_t in[kBoxWords];
  __shared__ alignas(1024) std::uint32_t out[kBoxWords];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar;
  const unsigned tid = threadIdx.x;
  if (tid == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
#pragma unroll 1
  for (unsigned k = 0; k < (kRows / kBoxRows) * (kCols / kBoxCols); ++k) {
    const int row0 = static_cast<int>(k / 2 * kBoxRows), col0 = static_cast<int>(k % 2 * kBoxCols);
    if (tid == 0) {
      cde::cp_async_bulk_tensor_2d_global_to_shared(in, &a_map, col0, row0, bar);
      (void)cuda::device::barrier_arrive_tx(bar, 1, sizeof(in));
    } else {
      (void)bar.arrive();
    }
    bar.wait_parity(k & 1);
    if (tid == 0)
      cde::cp_async_bulk_wait_group_read<0>(); // the previous box's store has read `out`
    __syncthreads();
    for (unsigned e = tid; e < kBoxWords; e += blockDim.x)
      out[e] = in[e ^ kSwap];
    cde::fence_proxy_async_shared_cta();
    __syncthreads(); // `out` written and `in` read by all before the store and the next load
    if (tid == 0) {
      cde::cp_async_bulk_tensor_2d_shared_to_global(&b_map, col0, row0, out);
      cde::cp_async_bulk_commit_group();
    }
  }
  if (tid == 0)
    cde::cp_async_bulk_wait_group_read<0>();
}
