// The device side of the simulator's arithmetic check: runs every form of
// forms.def (or of the file SIM_ARITH_FORMS names: kernel_math.def) in inline PTX on the GPU over the inputs of format.hpp and writes
// inputs and results to a file that tests/unit/sim_arith_device.cpp replays on
// the simulator. Build and run: see README.md (tools/sim_arith_device/run.sh).

#include "format.hpp"

#include <cstdio>
#include <cuda_runtime.h>

using namespace sim_arith_device;
typedef unsigned long long u64;

#define R16(k) "h"(static_cast<unsigned short>(x[k]))
#define R32(k) "r"(static_cast<unsigned>(x[k]))
#define R64(k) "l"(static_cast<u64>(x[k]))

#define BODY_K_32_32(t) unsigned d; asm volatile(t : "=r"(d) : R32(0)); out[i] = d;
#define BODY_K_32_32_32(t) unsigned d; asm volatile(t : "=r"(d) : R32(0), R32(1)); out[i] = d;
#define BODY_K_32_32_32_32(t) unsigned d; asm volatile(t : "=r"(d) : R32(0), R32(1), R32(2)); out[i] = d;
#define BODY_K_32_32_32_32_32(t) unsigned d; asm volatile(t : "=r"(d) : R32(0), R32(1), R32(2), R32(3)); out[i] = d;
#define BODY_K_32_64(t) unsigned d; asm volatile(t : "=r"(d) : R64(0)); out[i] = d;
#define BODY_K_32_16(t) unsigned d; asm volatile(t : "=r"(d) : R16(0)); out[i] = d;
#define BODY_K_16_16(t) unsigned short d; asm volatile(t : "=h"(d) : R16(0)); out[i] = d;
#define BODY_K_16_32(t) unsigned short d; asm volatile(t : "=h"(d) : R32(0)); out[i] = d;
#define BODY_K_16_16_16(t) unsigned short d; asm volatile(t : "=h"(d) : R16(0), R16(1)); out[i] = d;
#define BODY_K_16_16_16_16(t) unsigned short d; asm volatile(t : "=h"(d) : R16(0), R16(1), R16(2)); out[i] = d;
#define BODY_K_64_32(t) u64 d; asm volatile(t : "=l"(d) : R32(0)); out[i] = d;
#define BODY_K_64_64(t) u64 d; asm volatile(t : "=l"(d) : R64(0)); out[i] = d;
#define BODY_K_64_64_64(t) u64 d; asm volatile(t : "=l"(d) : R64(0), R64(1)); out[i] = d;
#define BODY_K_64_64_64_64(t) u64 d; asm volatile(t : "=l"(d) : R64(0), R64(1), R64(2)); out[i] = d;
#define BODY_K_16_32_32(t) unsigned short d; asm volatile(t : "=h"(d) : R32(0), R32(1)); out[i] = d;

#define SETP(op) "{ .reg .pred %%arith_q; " op " %%arith_q, %1, %2; selp.u32 %0, 1, 0, %%arith_q; }"
#define BODY_K_P_32_32(op) unsigned d; asm volatile(SETP(op) : "=r"(d) : R32(0), R32(1)); out[i] = d;
#define BODY_K_P_16_16(op) unsigned d; asm volatile(SETP(op) : "=r"(d) : R16(0), R16(1)); out[i] = d;
#define BODY_K_P_64_64(op) unsigned d; asm volatile(SETP(op) : "=r"(d) : R64(0), R64(1)); out[i] = d;

#define KERNEL(id, kind, text)                                                                     \
  __global__ void k_##id(const u64* in, u64* out) {                                                \
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;                                      \
    const u64* x = in + 4 * i;                                                                     \
    BODY_##kind(text)                                                                              \
  }
#define LDM_1(op) asm volatile(op " {%0}, [%1];" : "=r"(d[0]) : "r"(a))
#define LDM_2(op) asm volatile(op " {%0, %1}, [%2];" : "=r"(d[0]), "=r"(d[1]) : "r"(a))
#define LDM_4(op)                                                                                  \
  asm volatile(op " {%0, %1, %2, %3}, [%4];"                                                      \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                    \
               : "r"(a))
#define LDMATRIX(id, op, n)                                                                        \
  __global__ void k_##id(const u64* in, u64* out) {                                                \
    __shared__ u64 tile[8][64];                                                                    \
    const unsigned lane = threadIdx.x % 32, wb = threadIdx.x / 32;                                 \
    const unsigned w = blockIdx.x * (blockDim.x / 32) + wb;                                        \
    const u64* x = in + 256 * w;                                                                   \
    tile[wb][2 * lane] = x[2 * lane];                                                              \
    tile[wb][2 * lane + 1] = x[2 * lane + 1];                                                      \
    __syncwarp();                                                                                  \
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(&tile[wb][0])) +             \
                       16 * static_cast<unsigned>(x[64 + lane] % 32);                              \
    unsigned d[4] = {0, 0, 0, 0};                                                                  \
    LDM_##n(op);                                                                                   \
    out[64 * w + 2 * lane] = (static_cast<u64>(d[1]) << 32) | d[0];                                \
    out[64 * w + 2 * lane + 1] = (static_cast<u64>(d[3]) << 32) | d[2];                            \
  }

#ifndef SIM_ARITH_FORMS
#define SIM_ARITH_FORMS "forms.def"
#endif

#define ARITH_FORM(id, kind, gen, text) KERNEL(id, kind, text)
#define ARITH_APPROX(id, kind, gen, text, ulps) KERNEL(id, kind, text)
#define ARITH_SETP(id, kind, gen, op) KERNEL(id, kind, op)
#define ARITH_LDMATRIX(id, op, n) LDMATRIX(id, op, n)
#include SIM_ARITH_FORMS
#undef ARITH_FORM
#undef ARITH_APPROX
#undef ARITH_SETP
#undef ARITH_LDMATRIX

struct Entry {
  const char* id;
  Kind kind;
  Gen gen;
  const char* text;
  void (*kernel)(const u64*, u64*);
};

static const Entry entries[] = {
#define ARITH_FORM(id, kind, gen, text) {#id, kind, gen, text, k_##id},
#define ARITH_APPROX(id, kind, gen, text, ulps) {#id, kind, gen, text, k_##id},
#define ARITH_SETP(id, kind, gen, op) {#id, kind, gen, op, k_##id},
#define ARITH_LDMATRIX(id, op, n) {#id, K_LDMATRIX, G_INT, op, k_##id},
#include SIM_ARITH_FORMS
#undef ARITH_FORM
#undef ARITH_APPROX
#undef ARITH_SETP
#undef ARITH_LDMATRIX
};

static bool ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    std::fprintf(stderr, "sim_arith_device: %s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s RESULTS_FILE\n", argv[0]);
    return 2;
  }
  const std::uint32_t n = inputs_per_form;
  u64 *din = nullptr, *dout = nullptr;
  if (!ok(cudaMalloc(&din, n * 4 * sizeof(u64)), "cudaMalloc") ||
      !ok(cudaMalloc(&dout, n * sizeof(u64)), "cudaMalloc"))
    return 1;
  std::vector<Record> recs;
  std::uint32_t seed = 0;
  for (const Entry& e : entries) {
    Record r;
    r.id = e.id;
    r.text = e.text;
    r.kind = e.kind;
    const std::vector<std::uint64_t> in = inputs(e.kind, e.gen, seed++);
    r.input_hash = hash(in);
    r.out.assign(n, 0);
    if (!ok(cudaMemcpy(din, in.data(), in.size() * 8, cudaMemcpyHostToDevice), "copy in"))
      return 1;
    if (e.kind == K_LDMATRIX)
      e.kernel<<<ldmatrix_warps / 8, 256>>>(din, dout);
    else
      e.kernel<<<n / 256, 256>>>(din, dout);
    if (!ok(cudaGetLastError(), e.id) || !ok(cudaDeviceSynchronize(), e.id) ||
        !ok(cudaMemcpy(r.out.data(), dout, n * 8, cudaMemcpyDeviceToHost), "copy out"))
      return 1;
    recs.push_back(std::move(r));
  }
  if (!write_file(argv[1], recs)) {
    std::fprintf(stderr, "sim_arith_device: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("sim_arith_device: %zu forms x %u inputs -> %s\n", recs.size(), n, argv[1]);
  return 0;
}
