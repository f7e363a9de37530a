// A read of a cp.async destination before its group is waited (the racecheck
// control of docs/conformance.md, "racecheck's memcpy_async warnings"): each
// thread copies its 16-byte chunk into shared memory, commits, reads the chunk
// back at once, and only then waits and syncs. On the GPU the read may see the
// bytes from before the copy; compute-sanitizer racecheck reports it as a
// warning ("Potential RAW hazard detected (invalid memcpy_async
// synchronization)"), the simulator as `read before wait`. Not in kernels.list
// (it is wrong on purpose); its spec tests/foreign/specs/early_read.toml states
// the copy it means.
#include "common.cuh"

__global__ void __launch_bounds__(corpus::kThreads)
    early_read(const std::uint32_t* __restrict__ A, std::uint32_t* __restrict__ B) {
  __shared__ alignas(16) std::uint32_t s[corpus::kTileWords];
  const unsigned tid = threadIdx.x;
  const unsigned row = tid * corpus::kChunkWords;
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&s[row]));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(&A[row]) : "memory");
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  std::uint32_t v[4];
  for (unsigned w = 0; w < 4; ++w)
    v[w] = s[row + w]; // before the wait: the copy may not have landed
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
  for (unsigned w = 0; w < 4; ++w)
    B[row + w] = v[w];
}
