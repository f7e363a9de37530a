// Tensor-core kernels for the simulator's tests and the H200 check (tools/tensor_core_device.sh).
// Each kernel reads row-major A (M x K), B (K x N) and C (M x N) from global memory, builds the
// fragments the PTX ISA specifies ("Matrix fragments for mma.m16n8k16" and its siblings; the
// wgmma "Register Fragments and Shared Memory Matrix Layouts"), runs one instruction written as
// inline PTX, and writes D row-major. The fragment formulas below are the ISA's, written out
// here on their own; the simulator's are in driver/sim/tensor_core.cpp.
//
// mma_kernels.ptx is this file compiled by (from the repository root):
//   nvcc -arch=sm_90a -ptx -o tests/data/sim_tensor_core/mma_kernels.ptx \
//     tests/data/sim_tensor_core/mma_kernels.cu
#include <stdint.h>

typedef unsigned char u8;

// ---- element access: element `idx` of a packed array of `bits`-bit elements
__device__ uint64_t elem(const u8* p, int idx, int bits) {
  if (bits == 4)
    return (p[idx / 2] >> (4 * (idx % 2))) & 0xf;
  uint64_t v = 0;
  for (int b = 0; b < bits / 8; ++b)
    v |= (uint64_t)p[idx * (bits / 8) + b] << (8 * b);
  return v;
}

__device__ void put(u8* p, int idx, int bits, uint64_t v) {
  for (int b = 0; b < bits / 8; ++b)
    p[idx * (bits / 8) + b] = (u8)(v >> (8 * b));
}

// ---- mma.sync fragments (groupID = lane >> 2, threadID_in_group = lane % 4)
// A (rows x K, row-major): register j holds `32 / bits` consecutive elements of row
// groupID + 8 (j % (rows / 8)), from column threadID_in_group * epr + 4 epr (j / (rows / 8)).
__device__ uint32_t a_reg(const u8* A, int rows, int K, int bits, int lane, int j) {
  const int epr = 32 / bits, blocks = rows / 8, g = lane >> 2, t = lane & 3;
  uint32_t r = 0;
  for (int e = 0; e < epr; ++e) {
    const int row = g + 8 * (j % blocks), col = t * epr + e + 4 * epr * (j / blocks);
    r |= (uint32_t)elem(A, row * K + col, bits) << (e * bits);
  }
  return r;
}
// B (K x 8): register j holds rows threadID_in_group * epr + 4 epr j .. of column groupID.
__device__ uint32_t b_reg(const u8* B, int bits, int lane, int j) {
  const int epr = 32 / bits, g = lane >> 2, t = lane & 3;
  uint32_t r = 0;
  for (int e = 0; e < epr; ++e)
    r |= (uint32_t)elem(B, (t * epr + e + 4 * epr * j) * 8 + g, bits) << (e * bits);
  return r;
}
// C and D (rows x 8): element i at row groupID + 8 (i / 2), column 2 threadID_in_group + i % 2.
__device__ int c_index(int lane, int i) {
  return ((lane >> 2) + 8 * (i / 2)) * 8 + 2 * (lane & 3) + i % 2;
}

__device__ void load_c32(const u8* C, int lane, uint32_t* c) {
  for (int i = 0; i < 4; ++i)
    c[i] = (uint32_t)elem(C, c_index(lane, i), 32);
}
__device__ void store_d32(u8* D, int lane, const uint32_t* d) {
  for (int i = 0; i < 4; ++i)
    put(D, c_index(lane, i), 32, d[i]);
}

// The m16n8kK forms with 32-bit accumulators (f32 or s32): A 16 x K and B K x 8 of `bits`-bit
// elements, C and D four registers; `opcode` is the instruction up to its operands.
#define MMA_16N8(name, K, bits, opcode)                                                            \
  extern "C" __global__ void name(const u8* A, const u8* B, const u8* C, u8* D) {                  \
    const int lane = threadIdx.x;                                                                  \
    uint32_t a[4], b[2], c[4], d[4];                                                               \
    for (int j = 0; j < 4; ++j)                                                                    \
      a[j] = a_reg(A, 16, K, bits, lane, j);                                                       \
    for (int j = 0; j < 2; ++j)                                                                    \
      b[j] = b_reg(B, bits, lane, j);                                                              \
    load_c32(C, lane, c);                                                                          \
    asm volatile(opcode " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"     \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),    \
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));                                               \
    store_d32(D, lane, d);                                                                         \
  }

MMA_16N8(mma_f16_f32, 16, 16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
MMA_16N8(mma_bf16_f32, 16, 16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")

// f16 accumulators: C and D are two f16x2 registers, element i in register i / 2, half i % 2.
extern "C" __global__ void mma_f16_f16(const u8* A, const u8* B, const u8* C, u8* D) {
  const int lane = threadIdx.x;
  uint32_t a[4], b[2], c[2], d[2];
  for (int j = 0; j < 4; ++j)
    a[j] = a_reg(A, 16, 16, 16, lane, j);
  for (int j = 0; j < 2; ++j)
    b[j] = b_reg(B, 16, lane, j);
  for (int j = 0; j < 2; ++j)
    c[j] = (uint32_t)elem(C, c_index(lane, 2 * j), 16) |
           (uint32_t)elem(C, c_index(lane, 2 * j + 1), 16) << 16;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, "
               "{%6, %7}, {%8, %9};"
               : "=r"(d[0]), "=r"(d[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                 "r"(c[1]));
  for (int i = 0; i < 4; ++i)
    put(D, c_index(lane, i), 16, (d[i / 2] >> (16 * (i % 2))) & 0xffff);
}

// tf32 m16n8k8: A 16 x 8, B 8 x 8, one element per register.
MMA_16N8(mma_tf32, 8, 32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")

// m16n8k32 with 8-bit A and B: integers (s32 accumulators) and e4m3 (f32 accumulators).
MMA_16N8(mma_s8_satfinite, 32, 8, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32")
MMA_16N8(mma_u8_s8, 32, 8, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32")
MMA_16N8(mma_e4m3_f32, 32, 8, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32")

// f64 m8n8k4: A 8 x 4 (row groupID, column threadID_in_group), B 4 x 8, C and D 8 x 8 (two
// elements per lane, row groupID, columns 2 threadID_in_group + i).
extern "C" __global__ void mma_f64(const u8* A, const u8* B, const u8* C, u8* D) {
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  const double* a = (const double*)A;
  const double* b = (const double*)B;
  const double* c = (const double*)C;
  double d0, d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};"
               : "=d"(d0), "=d"(d1)
               : "d"(a[g * 4 + t]), "d"(b[t * 8 + g]), "d"(c[g * 8 + 2 * t]),
                 "d"(c[g * 8 + 2 * t + 1]));
  ((double*)D)[g * 8 + 2 * t] = d0;
  ((double*)D)[g * 8 + 2 * t + 1] = d1;
}

// ldmatrix / movmatrix / stmatrix round trip: A holds four 8 x 8 b16 matrices (row-major, one
// after the other); ldmatrix.x4 loads them, movmatrix transposes the first, stmatrix.x4.trans
// stores all four transposed into D. C is unused. Lane i gives row i % 8 of matrix i / 8.
extern "C" __global__ void matrix_moves(const u8* A, const u8* B, const u8* C, u8* D) {
  __shared__ __align__(16) uint16_t in[4 * 64], out[4 * 64];
  const int lane = threadIdx.x;
  for (int i = lane; i < 4 * 64; i += 32)
    in[i] = (uint16_t)elem(A, i, 16);
  __syncthreads(); // one warp: bar.sync, which the simulator runs
  uint32_t r[4];
  const uint32_t src = (uint32_t)__cvta_generic_to_shared(in + 8 * lane);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(src));
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(r[0]) : "r"(r[0]));
  const uint32_t dst = (uint32_t)__cvta_generic_to_shared(out + 8 * lane);
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(dst),
               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
  __syncthreads(); // one warp: bar.sync, which the simulator runs
  for (int i = lane; i < 4 * 64; i += 32)
    put(D, i, 16, out[i]);
}

// ---- wgmma (one warpgroup): D (64 x N, f32 or s32) element i of thread tid is at row
// 16 (tid / 32) + groupID + 8 ((i / 2) % 2), column 8 (i / 4) + 2 threadID_in_group + i % 2.
__device__ int wg_index(int tid, int i, int n) {
  const int lane = tid % 32;
  return (16 * (tid / 32) + (lane >> 2) + 8 * ((i / 2) % 2)) * n + 8 * (i / 4) + 2 * (lane & 3) +
         i % 2;
}

// The tiles the threads wrote made visible to the async proxy wgmma reads them through, then
// thread tid's eight accumulators of C (64 x 16).
__device__ void wg_publish_load_c(const u8* C, int tid, uint32_t* d) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  for (int i = 0; i < 8; ++i)
    d[i] = (uint32_t)elem(C, wg_index(tid, i, 16), 32);
}

// One wgmma with A and B from descriptors da and db, fenced, committed and waited for: `mma` is
// the instruction up to its operands, `imm` its immediates after the descriptors.
#define WGMMA_DESCRIPTORS(mma, imm, d, da, db)                                                     \
  asm volatile("wgmma.fence.sync.aligned;\n" mma " {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, " imm \
               ";\n"                                                                               \
               "wgmma.commit_group.sync.aligned;\n"                                                \
               "wgmma.wait_group.sync.aligned 0;"                                                  \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]),           \
                 "+r"(d[6]), "+r"(d[7])                                                            \
               : "l"(da), "l"(db)                                                                  \
               : "memory")

// Thread tid's eight results into D (64 x 16).
__device__ void wg_store_d(u8* D, int tid, const uint32_t* d) {
  for (int i = 0; i < 8; ++i)
    put(D, wg_index(tid, i, 16), 32, d[i]);
}

// The K-major canonical layout without swizzle: 8-row by 16-byte core matrices, `lbo` bytes
// apart along K and `sbo` apart along M/N. With a swizzle of `span` bytes (32, 64, 128): rows of
// `span` bytes, 8-row atoms `sbo` apart, and address bits [4, 4 + log2(span / 16)) XORed with
// bits [7, ...) (CUTLASS's Swizzle<3,4,3>, <2,4,3>, <1,4,3>; the tiles are 1024-byte aligned).
__device__ int kmajor(int r, int kbyte, int lbo, int sbo, int span) {
  if (span == 0)
    return (r / 8) * sbo + (kbyte / 16) * lbo + (r % 8) * 16 + kbyte % 16;
  const int off = (r / 8) * sbo + (r % 8) * span + kbyte;
  return off ^ (((off >> 7) & (span / 16 - 1)) << 4);
}

__device__ uint64_t descriptor(const void* smem, int lbo, int sbo, int span) {
  const uint64_t addr = (uint32_t)__cvta_generic_to_shared(smem);
  const uint64_t mode = span == 128 ? 1 : span == 64 ? 2 : span == 32 ? 3 : 0;
  return (addr >> 4 & 0x3fff) | (uint64_t)(lbo >> 4 & 0x3fff) << 16 |
         (uint64_t)(sbo >> 4 & 0x3fff) << 32 | mode << 62;
}

// m64n16k16 f16 -> f32, A and B from descriptors without swizzle: D = A (64 x 16) B (16 x 16) + C.
extern "C" __global__ void wgmma_f16_plain(const u8* A, const u8* B, const u8* C, u8* D) {
  __shared__ __align__(1024) u8 sa[64 * 32], sb[16 * 32];
  const int tid = threadIdx.x;
  for (int i = tid; i < 64 * 16; i += 128)
    put(sa + kmajor(i / 16, 2 * (i % 16), 128, 256, 0), 0, 16, elem(A, i, 16));
  for (int i = tid; i < 16 * 16; i += 128) // B[k][n] at row n, column k
    put(sb + kmajor(i % 16, 2 * (i / 16), 128, 256, 0), 0, 16, elem(B, i, 16));
  uint32_t d[8];
  wg_publish_load_c(C, tid, d);
  const uint64_t da = descriptor(sa, 128, 256, 0), db = descriptor(sb, 128, 256, 0);
  WGMMA_DESCRIPTORS("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16", "1, 1, 1, 0, 0", d, da,
                    db);
  wg_store_d(D, tid, d);
}

// m64n16k16 bf16 -> f32 four times along K = 64 (the start address advanced 32 bytes a step),
// A and B with the 128-byte swizzle: D = A (64 x 64) B (64 x 16) + C, accumulated in registers.
extern "C" __global__ void wgmma_bf16_swizzle128(const u8* A, const u8* B, const u8* C, u8* D) {
  __shared__ __align__(1024) u8 sa[64 * 128], sb[16 * 128];
  const int tid = threadIdx.x;
  for (int i = tid; i < 64 * 64; i += 128)
    put(sa + kmajor(i / 64, 2 * (i % 64), 0, 1024, 128), 0, 16, elem(A, i, 16));
  for (int i = tid; i < 64 * 16; i += 128) // B[k][n], K = 64
    put(sb + kmajor(i % 16, 2 * (i / 16), 0, 1024, 128), 0, 16, elem(B, i, 16));
  uint32_t d[8];
  wg_publish_load_c(C, tid, d);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int k = 0; k < 4; ++k) {
    const uint64_t da = descriptor(sa + 32 * k, 16, 1024, 128);
    const uint64_t db = descriptor(sb + 32 * k, 16, 1024, 128);
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, "
                 "%6, %7}, %8, %9, 1, 1, 1, 0, 0;"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]),
                   "+r"(d[6]), "+r"(d[7])
                 : "l"(da), "l"(db)
                 : "memory");
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n"
               "wgmma.wait_group.sync.aligned 0;" ::
                   : "memory");
  wg_store_d(D, tid, d);
}

// m64n16k16 f16 -> f32 with A in registers (each warp's 16 rows as mma.m16n8k16's A fragment)
// and B from a 64-byte-swizzled descriptor.
extern "C" __global__ void wgmma_f16_regs(const u8* A, const u8* B, const u8* C, u8* D) {
  __shared__ __align__(1024) u8 sb[16 * 64];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  for (int i = tid; i < 16 * 16; i += 128)
    put(sb + kmajor(i % 16, 2 * (i / 16), 0, 512, 64), 0, 16, elem(B, i, 16));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint32_t a[4], d[8];
  for (int j = 0; j < 4; ++j)
    a[j] = a_reg(A + warp * 16 * 16 * 2, 16, 16, 16, lane, j);
  for (int i = 0; i < 8; ++i)
    d[i] = (uint32_t)elem(C, wg_index(tid, i, 16), 32);
  const uint64_t db = descriptor(sb, 16, 512, 64);
  asm volatile("wgmma.fence.sync.aligned;\n"
               "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, "
               "%7}, {%8, %9, %10, %11}, %12, 1, 1, 1, 0;\n"
               "wgmma.commit_group.sync.aligned;\n"
               "wgmma.wait_group.sync.aligned 0;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
                 "+r"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db)
               : "memory");
  wg_store_d(D, tid, d);
}

// m64n16k32 s8 -> s32 (.satfinite), A and B from 32-byte-swizzled descriptors.
extern "C" __global__ void wgmma_s8_swizzle32(const u8* A, const u8* B, const u8* C, u8* D) {
  __shared__ __align__(1024) u8 sa[64 * 32], sb[16 * 32];
  const int tid = threadIdx.x;
  for (int i = tid; i < 64 * 32; i += 128)
    sa[kmajor(i / 32, i % 32, 0, 256, 32)] = A[i];
  for (int i = tid; i < 32 * 16; i += 128) // B[k][n]
    sb[kmajor(i % 16, i / 16, 0, 256, 32)] = B[i];
  uint32_t d[8];
  wg_publish_load_c(C, tid, d);
  const uint64_t da = descriptor(sa, 16, 256, 32), db = descriptor(sb, 16, 256, 32);
  WGMMA_DESCRIPTORS("wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8.satfinite", "1", d, da, db);
  wg_store_d(D, tid, d);
}

// The MN-major canonical layout (imm-trans 1: A M-major, B N-major), 16-byte chunks along M/N.
// Without swizzle: core matrices of 8 K-rows by 16 bytes of M/N, `sbo` bytes apart along M/N and
// `lbo` apart along K (each 8 K-rows). With a swizzle of `span` bytes: atoms of 8 K-rows by `span`
// bytes of M/N, `lbo` apart along M/N and `sbo` apart along K, XORed as kmajor's.
__device__ int mnmajor(int mnbyte, int k, int lbo, int sbo, int span) {
  if (span == 0)
    return (mnbyte / 16) * sbo + (k / 8) * lbo + (k % 8) * 16 + mnbyte % 16;
  const int off = (mnbyte / span) * lbo + (k / 8) * sbo + (k % 8) * span + mnbyte % span;
  return off ^ (((off >> 7) & (span / 16 - 1)) << 4);
}

// m64n16k16 f16 -> f32, A M-major and B N-major from descriptors without swizzle.
extern "C" __global__ void wgmma_f16_mn_plain(const u8* A, const u8* B, const u8* C, u8* D) {
  __shared__ __align__(1024) u8 sa[64 * 32], sb[16 * 32];
  const int tid = threadIdx.x;
  for (int i = tid; i < 64 * 16; i += 128) // A[m][k]: 8 chunks of 8 m, each 2 groups of 8 k
    put(sa + mnmajor(2 * (i / 16), i % 16, 128, 256, 0), 0, 16, elem(A, i, 16));
  for (int i = tid; i < 16 * 16; i += 128) // B[k][n]
    put(sb + mnmajor(2 * (i % 16), i / 16, 128, 256, 0), 0, 16, elem(B, i, 16));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint32_t d[8];
  for (int i = 0; i < 8; ++i)
    d[i] = (uint32_t)elem(C, wg_index(tid, i, 16), 32);
  const uint64_t da = descriptor(sa, 128, 256, 0), db = descriptor(sb, 128, 256, 0);
  asm volatile("wgmma.fence.sync.aligned;\n"
               "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, "
               "%7}, %8, %9, 1, 1, 1, 1, 1;\n"
               "wgmma.commit_group.sync.aligned;\n"
               "wgmma.wait_group.sync.aligned 0;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
                 "+r"(d[7])
               : "l"(da), "l"(db)
               : "memory");
  for (int i = 0; i < 8; ++i)
    put(D, wg_index(tid, i, 16), 32, d[i]);
}

// m64n16k16 bf16 -> f32 four times along K = 64 (the start address advanced two 8-row K groups
// a step), A M-major with the 128-byte swizzle (64 bf16 of M a row), B N-major with the 32-byte
// swizzle (16 bf16 of N a row): D = A (64 x 64) B (64 x 16) + C.
extern "C" __global__ void wgmma_bf16_mn_swizzle(const u8* A, const u8* B, const u8* C, u8* D) {
  __shared__ __align__(1024) u8 sa[64 * 128], sb[64 * 32];
  const int tid = threadIdx.x;
  for (int i = tid; i < 64 * 64; i += 128) // A[m][k]
    put(sa + mnmajor(2 * (i / 64), i % 64, 8192, 1024, 128), 0, 16, elem(A, i, 16));
  for (int i = tid; i < 64 * 16; i += 128) // B[k][n]
    put(sb + mnmajor(2 * (i % 16), i / 16, 2048, 256, 32), 0, 16, elem(B, i, 16));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint32_t d[8];
  for (int i = 0; i < 8; ++i)
    d[i] = (uint32_t)elem(C, wg_index(tid, i, 16), 32);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int k = 0; k < 4; ++k) {
    const uint64_t da = descriptor(sa + 2048 * k, 8192, 1024, 128);
    const uint64_t db = descriptor(sb + 512 * k, 2048, 256, 32);
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, "
                 "%6, %7}, %8, %9, 1, 1, 1, 1, 1;"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]),
                   "+r"(d[6]), "+r"(d[7])
                 : "l"(da), "l"(db)
                 : "memory");
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n"
               "wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 8; ++i)
    put(D, wg_index(tid, i, 16), 32, d[i]);
}

// ---- wmma (nvcuda::wmma, the warp-level API): each kernel one warp, fragments the API's own
// (their distribution over the lanes is the ISA's business, not the program's), memory layouts
// and strides varied: A, B, C row-major in global memory as above; where a kernel wants another
// layout or a padded stride it copies the matrix into shared memory so first.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

// f16 in, f32 accumulators, m16n16k16: A and B through shared memory (B transposed there, loaded
// col_major), C from global, D stored col-major into shared memory and copied out row-major.
extern "C" __global__ void wmma_f16_f32(const u8* A, const u8* B, const u8* C, u8* D) {
  using namespace nvcuda;
  __shared__ __align__(32) half sa[16 * 16], sb[16 * 16];
  __shared__ __align__(32) float sd[16 * 16];
  const half* a = (const half*)A;
  const half* b = (const half*)B;
  for (int i = threadIdx.x; i < 256; i += 32) {
    sa[i] = a[i];
    sb[(i % 16) * 16 + i / 16] = b[i]; // B[k][n] at n * 16 + k
  }
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, sa, 16);
  wmma::load_matrix_sync(fb, sb, 16);
  wmma::load_matrix_sync(fc, (const float*)C, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(sd, fc, 16, wmma::mem_col_major);
  __syncwarp();
  for (int i = threadIdx.x; i < 256; i += 32)
    ((float*)D)[i] = sd[(i % 16) * 16 + i / 16]; // D[m][n] from n * 16 + m
}

// f16 accumulators, m16n16k16: A transposed into shared memory (col_major), B row_major and C
// from global memory, D to global memory.
extern "C" __global__ void wmma_f16_f16(const u8* A, const u8* B, const u8* C, u8* D) {
  using namespace nvcuda;
  __shared__ __align__(32) half sa[16 * 16];
  for (int i = threadIdx.x; i < 256; i += 32)
    sa[(i % 16) * 16 + i / 16] = ((const half*)A)[i]; // A[m][k] at k * 16 + m
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc;
  wmma::load_matrix_sync(fa, sa, 16);
  wmma::load_matrix_sync(fb, (const half*)B, 16);
  wmma::load_matrix_sync(fc, (const half*)C, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync((half*)D, fc, 16, wmma::mem_row_major);
}

// bf16 m32n8k16, everything row-major in global memory.
extern "C" __global__ void wmma_bf16_m32n8(const u8* A, const u8* B, const u8* C, u8* D) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> fc;
  wmma::load_matrix_sync(fa, (const __nv_bfloat16*)A, 16);
  wmma::load_matrix_sync(fb, (const __nv_bfloat16*)B, 8);
  wmma::load_matrix_sync(fc, (const float*)C, 8, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync((float*)D, fc, 8, wmma::mem_row_major);
}

// tf32 m16n16k8: A 16 x 8 and B 8 x 16 as f32 bits (the instruction reads their tf32 part).
extern "C" __global__ void wmma_tf32(const u8* A, const u8* B, const u8* C, u8* D) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::load_matrix_sync(fa, (const float*)A, 8);
  wmma::load_matrix_sync(fb, (const float*)B, 16);
  wmma::load_matrix_sync(fc, (const float*)C, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync((float*)D, fc, 16, wmma::mem_row_major);
}

// s8 m8n32k16 with .satfinite: B transposed into shared memory (col_major).
extern "C" __global__ void wmma_s8_m8n32(const u8* A, const u8* B, const u8* C, u8* D) {
  using namespace nvcuda;
  __shared__ __align__(32) signed char sb[16 * 32];
  for (int i = threadIdx.x; i < 16 * 32; i += 32)
    sb[(i % 32) * 16 + i / 32] = ((const signed char*)B)[i]; // B[k][n] at n * 16 + k
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 8, 32, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, int> fc;
  wmma::load_matrix_sync(fa, (const signed char*)A, 16);
  wmma::load_matrix_sync(fb, sb, 16);
  wmma::load_matrix_sync(fc, (const int*)C, 32, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc, true);
  wmma::store_matrix_sync((int*)D, fc, 32, wmma::mem_row_major);
}

// u8 m16n16k16 with padded strides: A copied into shared rows of 48 bytes, C loaded col-major
// from a transposed shared copy with a stride of 24 elements.
extern "C" __global__ void wmma_u8_stride(const u8* A, const u8* B, const u8* C, u8* D) {
  using namespace nvcuda;
  __shared__ __align__(32) unsigned char sa[16 * 48];
  __shared__ __align__(32) int sc[16 * 24];
  for (int i = threadIdx.x; i < 256; i += 32) {
    sa[(i / 16) * 48 + i % 16] = A[i];
    sc[(i % 16) * 24 + i / 16] = ((const int*)C)[i]; // C[m][n] at n * 24 + m
  }
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::load_matrix_sync(fa, sa, 48);
  wmma::load_matrix_sync(fb, B, 16);
  wmma::load_matrix_sync(fc, sc, 24, wmma::mem_col_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync((int*)D, fc, 16, wmma::mem_row_major);
}

// f64 m8n8k4: A row_major, B col_major (transposed into shared memory), C and D in global memory.
extern "C" __global__ void wmma_f64(const u8* A, const u8* B, const u8* C, u8* D) {
  using namespace nvcuda;
  __shared__ __align__(32) double sb[4 * 8];
  sb[(threadIdx.x % 8) * 4 + threadIdx.x / 8] = ((const double*)B)[threadIdx.x]; // B[k][n]
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
  wmma::load_matrix_sync(fa, (const double*)A, 4);
  wmma::load_matrix_sync(fb, sb, 4);
  wmma::load_matrix_sync(fc, (const double*)C, 8, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync((double*)D, fc, 8, wmma::mem_row_major);
}
