// A cp.async copy through device functions, for nvcc -G (which keeps every
// device function a .func and calls it with call.uni, st.param / ld.param,
// and scopes `%tmp` in sibling blocks). debug_calls.ptx is this file compiled by
//   nvcc -arch=sm_80 -G -ptx debug_calls.cu -o debug_calls.ptx
// Launch: grid 1, block 64, dynamic shared 1024 bytes; B[t] = A[63 - t] for
// t < n, and 0 (zero fill) above.
#include <cstdint>

__device__ void cp_async_zfill(unsigned dst, const void* src, bool pred) {
  int size = pred ? 16 : 0;
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %3, 0;\n"
               " @p cp.async.cg.shared.global [%0], [%1], 16, %2;\n}\n" ::"r"(dst),
               "l"(src), "r"(size), "r"(static_cast<int>(pred)));
  asm volatile("{\n .reg .pred p;\n setp.eq.b32 p, %1, 0;\n"
               " @p st.shared.v4.u32 [%0], {%1, %1, %1, %1};\n}\n" ::"r"(dst),
               "r"(size));
}

__device__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void debug_calls(const uint4* A, uint4* B, unsigned n) {
  extern __shared__ uint4 d[];
  const unsigned t = threadIdx.x;
  cp_async_zfill(shared_address(&d[t]), A + t, t < n);
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
  B[t] = d[63 - t];
}
