// Shared shape of the code-generator kernels of the foreign-PTX corpus
// (triton_*, tvm_*, cutlass_ms*; docs/foreign.md, "Kernels in the shapes code
// generators emit"). Each streams k_tiles tiles of two operands, A and W (128
// 16-byte chunks each, one per thread), through a cp.async ring and computes on
// them (FMAs, adds); the spec language has no arithmetic, so each kernel also
// writes what it read back where it came from: a thread that read A's chunk r of
// tile k (another warp's) writes it to OA's chunk r of tile k, and the same for W
// into OB, so OA == A and OB == W over the tiles when every read saw its tile
// (ldmatrix fragments are scattered back to their rows). The computed result goes
// to C only when store_acc is non-zero: the specs pass 0 (C keeps its zeros).
#pragma once
#include "common.cuh"

namespace codegen {
/// The W chunk thread t reads: one warp further on (another warp, and another
/// permutation than corpus::partner's, so A's and W's reads cross warps differently).
__device__ __forceinline__ unsigned w_row(unsigned tid) {
  return (tid + 32) % corpus::kThreads;
}
/// The shared address of an object, as a 32-bit .shared address.
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
} // namespace codegen
