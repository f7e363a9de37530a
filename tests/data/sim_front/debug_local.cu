// nvcc -G keeps a thread's locals in a .local depot reached through generic
// addresses (cvta.local), and a failed assert() calls the external
// __assertfail. debug_local.ptx is this file compiled by
//   nvcc -arch=sm_80 -G -ptx debug_local.cu -o debug_local.ptx
// Launch: grid 1, block 32; B[t] = A[t] + A[(t + 1) % 32] + t, and a trap
// when n > 32.
#include <cassert>
#include <cstdint>

extern "C" __global__ void debug_local(const unsigned* A, unsigned* B, unsigned n) {
  assert(n <= 32);
  unsigned window[2];
  const unsigned t = threadIdx.x;
  window[0] = A[t];
  window[1] = A[(t + 1) % 32];
  volatile unsigned* w = window;
  B[t] = w[0] + w[1] + t;
}
