// `ptxgen lint` and compute-sanitizer racecheck on one PTX (docs/lint.md, "racecheck"): each
// thread copies its 16 bytes into shared memory with cp.async and reads them back BEFORE
// its wait_group covers the copy, then waits and stores what it read. racecheck calls it a
// "Potential RAW hazard detected (invalid memcpy_async synchronization)"; lint reports
// race.read-before-wait at the ld.shared against the cp.async.
//
//   nvcc -arch=sm_80 -O3 -ptx tests/lint/read_before_wait.cu -o tests/lint/read_before_wait.ptx
#include <cstdint>

extern "C" __global__ void __launch_bounds__(128)
    read_before_wait(const std::uint32_t* __restrict__ src, std::uint32_t* __restrict__ dst) {
  __shared__ alignas(16) std::uint32_t s[128 * 4];
  const unsigned t = threadIdx.x;
  const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(&s[t * 4]));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem), "l"(src + t * 4)
               : "memory");
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  std::uint32_t v[4];
  for (int i = 0; i < 4; ++i) // read before the wait below: the copy may still be in flight
    v[i] = reinterpret_cast<volatile std::uint32_t*>(s)[t * 4 + i];
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  for (int i = 0; i < 4; ++i)
    dst[t * 4 + i] = v[i];
}
