#pragma once
// The tensor-core kernels of tests/data/sim_tensor_core/mma_kernels.cu (mma.sync, wgmma, wmma) as
// cases: their shapes and element types, the test's own decoding of element bits (independent of
// driver/sim), the random inputs, the declared comparison mode and the results file. Shared by the
// H200 program (tools/tensor_core_device/run.cu) and the simulator's unit test
// (tests/unit/sim_tensor_core.cpp).
//
// Comparison mode (the same on the GPU and in the unit test; never a silent tolerance):
//   s32 results: bit for bit.
//   floating results: |x - y| <= bound(case, S) with S = |c| + sum_k |a_ik b_kj| (the ISA leaves
//   the order and the precision of the sums open): f32 D (k + 1) 2^-22 S, with 8-bit float
//   inputs (k + 1) 2^-12 S (Hopper's FP8 sums are reported to keep about 14 bits), f16 D
//   additionally 2^-10 S (its own rounding), f64 (k + 1) 2^-51 S.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace tensor_core_device {

enum Elem : std::uint8_t { F16, BF16, TF32, F32, F64, S8, U8, E4M3, S32, B16 };

struct Case {
  const char* kernel;
  unsigned threads; ///< the CTA (one warp, or one warpgroup)
  unsigned m, n, k;
  Elem a, b, c, d;
  bool satfinite = false; ///< s32 results clamped (else they wrap)
};

/// matrix_moves has no multiply: A is four 8 x 8 b16 matrices, D the same four, the first as
/// it was and the other three transposed (ldmatrix, movmatrix of the first, stmatrix.trans).
inline constexpr Case cases[] = {
    {"mma_f16_f32", 32, 16, 8, 16, F16, F16, F32, F32},
    {"mma_bf16_f32", 32, 16, 8, 16, BF16, BF16, F32, F32},
    {"mma_f16_f16", 32, 16, 8, 16, F16, F16, F16, F16},
    {"mma_tf32", 32, 16, 8, 8, TF32, TF32, F32, F32},
    {"mma_s8_satfinite", 32, 16, 8, 32, S8, S8, S32, S32, true},
    {"mma_u8_s8", 32, 16, 8, 32, U8, S8, S32, S32},
    {"mma_e4m3_f32", 32, 16, 8, 32, E4M3, E4M3, F32, F32},
    {"mma_f64", 32, 8, 8, 4, F64, F64, F64, F64},
    {"matrix_moves", 32, 32, 8, 1, B16, B16, B16, B16},
    {"wgmma_f16_plain", 128, 64, 16, 16, F16, F16, F32, F32},
    {"wgmma_bf16_swizzle128", 128, 64, 16, 64, BF16, BF16, F32, F32},
    {"wgmma_f16_regs", 128, 64, 16, 16, F16, F16, F32, F32},
    {"wgmma_s8_swizzle32", 128, 64, 16, 32, S8, S8, S32, S32, true},
    {"wgmma_f16_mn_plain", 128, 64, 16, 16, F16, F16, F32, F32},
    {"wgmma_bf16_mn_swizzle", 128, 64, 16, 64, BF16, BF16, F32, F32},
    {"wmma_f16_f32", 32, 16, 16, 16, F16, F16, F32, F32},
    {"wmma_f16_f16", 32, 16, 16, 16, F16, F16, F16, F16},
    {"wmma_bf16_m32n8", 32, 32, 8, 16, BF16, BF16, F32, F32},
    {"wmma_tf32", 32, 16, 16, 8, TF32, TF32, F32, F32},
    {"wmma_s8_m8n32", 32, 8, 32, 16, S8, S8, S32, S32, true},
    {"wmma_u8_stride", 32, 16, 16, 16, U8, U8, S32, S32},
    {"wmma_f64", 32, 8, 8, 4, F64, F64, F64, F64},
};

inline unsigned bits(Elem e) {
  switch (e) {
  case F16:
  case BF16:
  case B16:
    return 16;
  case S8:
  case U8:
  case E4M3:
    return 8;
  case F64:
    return 64;
  default:
    return 32;
  }
}

/// The value of an element's bits, decoded from the formats' definitions.
inline double value(Elem e, std::uint64_t x) {
  switch (e) {
  case F16: {
    const int s = static_cast<int>((x >> 15) & 1), ex = static_cast<int>((x >> 10) & 31),
              f = static_cast<int>(x & 1023);
    double v = ex == 0 ? std::ldexp(f, -24) : ex == 31 ? NAN : std::ldexp(1024 + f, ex - 25);
    return s ? -v : v;
  }
  case BF16:
  case TF32:
  case F32: {
    std::uint32_t w = e == BF16 ? static_cast<std::uint32_t>(x << 16)
                                : static_cast<std::uint32_t>(x & (e == TF32 ? 0xffffe000u : ~0u));
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  case F64: {
    double d;
    std::memcpy(&d, &x, 8);
    return d;
  }
  case S8:
    return static_cast<double>(static_cast<std::int8_t>(x));
  case U8:
    return static_cast<double>(x & 0xff);
  case E4M3: {
    const int s = static_cast<int>((x >> 7) & 1), ex = static_cast<int>((x >> 3) & 15),
              f = static_cast<int>(x & 7);
    double v = ex == 0 ? std::ldexp(f, -9) : std::ldexp(8 + f, ex - 10);
    return s ? -v : v;
  }
  case S32:
    return static_cast<double>(static_cast<std::int32_t>(x));
  case B16:
    return static_cast<double>(x & 0xffff);
  }
  return 0;
}

/// xorshift64*: the inputs of a seed are the same on every machine.
inline std::uint64_t next(std::uint64_t& s) {
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s * 2685821657736338717ull;
}

/// Random bits of a finite element: floats of moderate size (exponents within a few binades
/// of 1), integers over their whole range.
inline std::uint64_t random_bits(Elem e, std::uint64_t& s) {
  const std::uint64_t r = next(s);
  switch (e) {
  case F16: // sign, exponent 12..17, fraction
    return (r & 0x8000) | ((12 + (r >> 16) % 6) << 10) | ((r >> 24) & 1023);
  case BF16:
    return (r & 0x8000) | ((124 + (r >> 16) % 6) << 7) | ((r >> 24) & 127);
  case TF32:
  case F32:
    return ((r & 1) << 31) | ((124 + (r >> 8) % 6) << 23) |
           ((r >> 16) & (e == TF32 ? 0x7fe000u : 0x7fffffu));
  case F64:
    return ((r & 1) << 63) | ((1020ull + (r >> 8) % 6) << 52) | (r >> 12 & ((1ull << 52) - 1));
  case E4M3: { // any byte but the NaNs (S.1111.111)
    const std::uint64_t b = r >> 40 & 0xff;
    return (b & 0x7f) == 0x7f ? b - 1 : b;
  }
  case S8:
  case U8:
    return r >> 40 & 0xff;
  case S32: // accumulators up to 2^30 in size; a few near the limits to saturate and wrap
    return (r >> 60) == 0 ? 0x7fffff00u + (r & 0xff) : static_cast<std::uint32_t>(r >> 33);
  case B16:
    return r >> 40 & 0xffff;
  }
  return 0;
}

/// The declared bound on |x - y| for a D element whose inputs give S (see the header comment).
inline double bound(const Case& c, double s) {
  if (c.d == S32 || c.d == B16)
    return 0;
  if (c.d == F64)
    return (c.k + 1) * std::ldexp(s, -51);
  const double sums = (c.k + 1) * std::ldexp(s, c.a == E4M3 ? -12 : -22);
  return c.d == F16 ? sums + std::ldexp(s, -10) : sums;
}

/// One case's bytes: the inputs and what a run made of them.
struct Record {
  std::string kernel;
  std::vector<std::uint8_t> a, b, c, d;
};

inline void write_blob(std::FILE* f, const std::vector<std::uint8_t>& v) {
  const auto n = static_cast<std::uint32_t>(v.size());
  std::fwrite(&n, 4, 1, f);
  std::fwrite(v.data(), 1, v.size(), f);
}

inline bool read_blob(std::FILE* f, std::vector<std::uint8_t>& v) {
  std::uint32_t n = 0;
  if (std::fread(&n, 4, 1, f) != 1 || n > (1u << 24))
    return false;
  v.resize(n);
  return std::fread(v.data(), 1, n, f) == n;
}

inline void write_record(std::FILE* f, const Record& r) {
  write_blob(f, std::vector<std::uint8_t>(r.kernel.begin(), r.kernel.end()));
  for (const auto* v : {&r.a, &r.b, &r.c, &r.d})
    write_blob(f, *v);
}

/// The records of a results file, in order; empty when it cannot be read.
inline std::vector<Record> read_records(const std::string& path) {
  std::vector<Record> out;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    return out;
  while (true) {
    Record r;
    std::vector<std::uint8_t> name;
    if (!read_blob(f, name))
      break;
    r.kernel.assign(name.begin(), name.end());
    if (!read_blob(f, r.a) || !read_blob(f, r.b) || !read_blob(f, r.c) || !read_blob(f, r.d))
      break;
    out.push_back(std::move(r));
  }
  std::fclose(f);
  return out;
}

/// Element `i` of packed `bits`-bit elements.
inline std::uint64_t element(const std::vector<std::uint8_t>& v, std::size_t i, unsigned b) {
  std::uint64_t x = 0;
  for (unsigned k = 0; k < b / 8; ++k)
    x |= static_cast<std::uint64_t>(v[i * (b / 8) + k]) << (8 * k);
  return x;
}

/// The case's expected D in double (C + sum_k A B in k order) and S per element.
inline void reference(const Case& c, const Record& r, std::vector<double>& d,
                      std::vector<double>& s) {
  d.assign(c.m * c.n, 0);
  s.assign(c.m * c.n, 0);
  for (unsigned i = 0; i < c.m; ++i)
    for (unsigned j = 0; j < c.n; ++j) {
      double acc = value(c.c, element(r.c, i * c.n + j, bits(c.c))), mag = std::fabs(acc);
      for (unsigned k = 0; k < c.k; ++k) {
        const double p = value(c.a, element(r.a, i * c.k + k, bits(c.a))) *
                         value(c.b, element(r.b, k * c.n + j, bits(c.b)));
        acc += p;
        mag += std::fabs(p);
      }
      d[i * c.n + j] = acc;
      s[i * c.n + j] = mag;
    }
}

/// matrix_moves' expected D: matrix 0 as it was, 1..3 transposed.
inline std::vector<std::uint8_t> moved(const std::vector<std::uint8_t>& a) {
  std::vector<std::uint8_t> d(a.size());
  for (unsigned mtx = 0; mtx < 4; ++mtx)
    for (unsigned r = 0; r < 8; ++r)
      for (unsigned col = 0; col < 8; ++col) {
        const unsigned from = mtx * 64 + (mtx == 0 ? r * 8 + col : col * 8 + r);
        const unsigned to = mtx * 64 + r * 8 + col;
        d[2 * to] = a[2 * from];
        d[2 * to + 1] = a[2 * from + 1];
      }
  return d;
}

/// How D element `x` (bits) compares with the reference `ref` and its S: the excess over the
/// bound (0 when within it; s32 exactly, with .satfinite clamped, else wrapped).
inline double excess(const Case& c, std::uint64_t x, double ref, double s) {
  if (c.d == S32) {
    const auto v = static_cast<std::int64_t>(ref);
    const std::int64_t want = c.satfinite
                                  ? (v > INT32_MAX   ? INT32_MAX
                                     : v < INT32_MIN ? INT32_MIN
                                                     : v)
                                  : static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
    return static_cast<std::int32_t>(x) == want ? 0 : 1;
  }
  const double got = value(c.d, x);
  const double diff = std::fabs(got - ref) - bound(c, s);
  return diff > 0 ? diff : 0;
}

} // namespace tensor_core_device
