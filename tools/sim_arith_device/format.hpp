#pragma once
// The device check's shared ground (tools/sim_arith_device/check.cu on the GPU,
// tests/unit/sim_arith_device.cpp on the simulator): operand kinds, the input
// generator and the results file. Plain C++17, compiled by nvcc and by g++.
//
// Results file (little endian): "PTXGARITH2", u32 form count, then per form:
// u32 id length, id bytes, u32 template length, template bytes, u32 kind,
// u32 n, u64 FNV-1a hash of the n * 4 u64 inputs (the inputs themselves are
// inputs(kind, gen, form index) again), n results of result_bytes(kind) each.

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace sim_arith_device {

/// Operand widths: K_<dst>_<src>...; P: the destination is a predicate.
enum Kind : std::uint32_t {
  K_32_32,
  K_32_32_32,
  K_32_32_32_32,
  K_32_32_32_32_32,
  K_32_64,
  K_32_16,
  K_16_16,
  K_16_32,
  K_16_16_16,
  K_16_16_16_16,
  K_64_32,
  K_64_64,
  K_64_64_64,
  K_64_64_64_64,
  K_P_32_32,
  K_P_16_16,
  K_P_64_64,
  K_LDMATRIX, ///< ldmatrix, one warp per 256 inputs (below)
  K_16_32_32, ///< cvt packing two 32-bit sources into 16 bits (e4m3x2, e5m2x2)
};

/// The last Kind (a results file's kinds are checked against it).
constexpr Kind last_kind = K_16_32_32;

/// K_LDMATRIX: warp w takes inputs [256 w, 256 w + 256): the first 64 are its
/// 512-byte shared tile (32 rows of 16 bytes), input 64 + lane % 32 picks the
/// row whose address the lane gives (its value mod 32). Lane l of warp w
/// writes results 64 w + 2 l (registers d1:d0) and 64 w + 2 l + 1 (d3:d2).
constexpr std::uint32_t ldmatrix_warps = 32;

struct Shape {
  unsigned dst;    ///< destination bits (1: predicate)
  unsigned src[4]; ///< source bits, 0 past the last
};

inline Shape shape(Kind k) {
  switch (k) {
  case K_32_32:
    return {32, {32, 0, 0, 0}};
  case K_32_32_32:
    return {32, {32, 32, 0, 0}};
  case K_32_32_32_32:
    return {32, {32, 32, 32, 0}};
  case K_32_32_32_32_32:
    return {32, {32, 32, 32, 32}};
  case K_32_64:
    return {32, {64, 0, 0, 0}};
  case K_32_16:
    return {32, {16, 0, 0, 0}};
  case K_16_16:
    return {16, {16, 0, 0, 0}};
  case K_16_32:
    return {16, {32, 0, 0, 0}};
  case K_16_16_16:
    return {16, {16, 16, 0, 0}};
  case K_16_16_16_16:
    return {16, {16, 16, 16, 0}};
  case K_64_32:
    return {64, {32, 0, 0, 0}};
  case K_64_64:
    return {64, {64, 0, 0, 0}};
  case K_64_64_64:
    return {64, {64, 64, 0, 0}};
  case K_64_64_64_64:
    return {64, {64, 64, 64, 0}};
  case K_P_32_32:
    return {1, {32, 32, 0, 0}};
  case K_P_16_16:
    return {1, {16, 16, 0, 0}};
  case K_P_64_64:
    return {1, {64, 64, 0, 0}};
  case K_LDMATRIX:
    return {64, {64, 64, 64, 64}};
  case K_16_32_32:
    return {16, {32, 32, 0, 0}};
  }
  return {32, {0, 0, 0, 0}};
}

/// How inputs are drawn.
enum Gen : std::uint32_t {
  G_INT,
  G_BITS,
  G_SHIFT,
  G_PRMT,
  G_F16,
  G_BF16,
  G_F32,
  G_F64,
  G_F16X2,
  G_BF16X2,
  G_F32_FP8,   ///< f32 values around the 8-bit floats' range (2^-20 .. 2^18), edges and ties
  G_F16X2_FP8, ///< f16x2 pairs likewise
  G_FP8X2,     ///< two 8-bit float bit patterns (every byte value appears)
};

constexpr std::uint32_t inputs_per_form = 2048;

/// Interesting bit patterns of a float format (exponent bits e, fraction bits m).
inline std::vector<std::uint64_t> float_edges(unsigned e, unsigned m) {
  const std::uint64_t sign = 1ull << (e + m), one = ((1ull << (e - 1)) - 1) << m;
  const std::uint64_t inf = ((1ull << e) - 1) << m, fmask = (1ull << m) - 1;
  std::vector<std::uint64_t> v = {0,
                                  1,
                                  fmask,
                                  1ull << m,
                                  one,
                                  one + 1,
                                  one - 1,
                                  inf - 1,
                                  inf,
                                  inf + 1,
                                  inf | (1ull << (m - 1)),
                                  one >> 1,
                                  one + (1ull << m),
                                  (one - (1ull << m)) | 1};
  const std::size_t n = v.size();
  for (std::size_t k = 0; k < n; ++k)
    v.push_back(v[k] | sign);
  return v;
}

/// A float of (e, m) bits whose magnitude lies around the 8-bit floats' range: exponent
/// -20 .. 17 (the e4m3 and e5m2 subnormals up to past their largest values), random sign and
/// fraction, every 4th with a short fraction (ties when rounded to 2 or 3 fraction bits).
inline std::uint64_t fp8_range(std::uint64_t r, unsigned e, unsigned m) {
  const std::uint64_t bias = (1ull << (e - 1)) - 1;
  const std::uint64_t ex = bias - 20 + (r >> 40) % 38;
  const std::uint64_t fr = (r >> 8) % 4 == 0 ? (r & 0xF) << (m - 4) : r & ((1ull << m) - 1);
  return ((r >> 63) << (e + m)) | (ex << m) | fr;
}

/// One operand value: edges first, then random bits, then values of nearby
/// magnitude (so sums and products round in interesting ways).
inline std::uint64_t draw(Gen g, unsigned bits, unsigned operand, std::uint32_t i,
                          std::mt19937_64& rng) {
  const std::uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  const std::uint64_t r = rng();
  auto floaty = [&](unsigned e, unsigned m) -> std::uint64_t {
    const auto edges = float_edges(e, m);
    // edges crossed with edges for the first edges^2 inputs
    const std::size_t ne = edges.size();
    if (i < ne * ne) {
      const std::size_t k = operand == 0 ? i % ne : operand == 1 ? i / ne : (i * 7 + 3) % ne;
      return edges[k];
    }
    if (i % 3 == 0)
      return r;
    // near 1.0 (exponent within +-3 of the bias) with random sign and fraction
    const std::uint64_t bias = (1ull << (e - 1)) - 1;
    const std::uint64_t ex = bias - 3 + (r >> 60) % 7;
    const std::uint64_t fr = (i % 3 == 1) ? (r & ((1ull << m) - 1)) : (r & 0xF) | (1ull << (m - 1));
    return ((r >> 63) << (e + m)) | (ex << m) | fr;
  };
  std::uint64_t v = 0;
  switch (g) {
  case G_INT: {
    static const std::uint64_t edges[] = {0,
                                          1,
                                          2,
                                          0x7f,
                                          0x80,
                                          0xff,
                                          0x7fff,
                                          0x8000,
                                          0xffff,
                                          0x7fffffff,
                                          0x80000000,
                                          0xffffffff,
                                          0x100000000ull,
                                          0x7fffffffffffffffull,
                                          0x8000000000000000ull,
                                          ~0ull,
                                          0xfffffffffffffffbull,
                                          16777217,
                                          0x20000001ull};
    const std::size_t ne = sizeof edges / sizeof edges[0];
    v = i < ne * ne ? edges[operand == 0 ? i % ne : i / ne % ne] : (i % 2 ? r : r >> (r & 63));
    break;
  }
  case G_BITS: // bfi / bfe: a value, a value, a position and a length around the edges
    v = operand < 2 ? r : (i % 4 == 0 ? r & 0xffff : r % 40);
    break;
  case G_SHIFT:
    v = operand < 2 ? r : (i % 4 == 0 ? r : r % 70);
    break;
  case G_PRMT:
    v = r;
    break;
  case G_F16:
    v = floaty(5, 10);
    break;
  case G_BF16:
    v = floaty(8, 7);
    break;
  case G_F32:
    v = floaty(8, 23);
    break;
  case G_F64:
    v = floaty(11, 52);
    break;
  case G_F16X2:
    v = floaty(5, 10) | (floaty(5, 10) << 16);
    break;
  case G_BF16X2:
    v = floaty(8, 7) | (floaty(8, 7) << 16);
    break;
  case G_F32_FP8:
    v = i % 5 == 0 ? floaty(8, 23) : fp8_range(r, 8, 23);
    break;
  case G_F16X2_FP8:
    v = fp8_range(r, 5, 10) | (fp8_range(r >> 20, 5, 10) << 16);
    break;
  case G_FP8X2: // every byte value in both bytes over the inputs
    v = (i & 0xff) | (((i * 167 + (i >> 8)) & 0xff) << 8);
    break;
  }
  return v & mask;
}

/// The inputs of one form: n * 4 values.
inline std::vector<std::uint64_t> inputs(Kind k, Gen g, std::uint32_t seed) {
  std::mt19937_64 rng(0x5eed0000u + seed);
  const Shape s = shape(k);
  std::vector<std::uint64_t> in(static_cast<std::size_t>(inputs_per_form) * 4, 0);
  for (std::uint32_t i = 0; i < inputs_per_form; ++i) {
    for (unsigned o = 0; o < 4; ++o) {
      if (s.src[o] != 0)
        in[static_cast<std::size_t>(i) * 4 + o] = draw(g, s.src[o], o, i, rng);
    }
  }
  return in;
}

/// The bytes a result of kind k takes in the file.
inline unsigned result_bytes(Kind k) {
  const unsigned bits = shape(k).dst;
  return bits <= 8 ? 1 : bits / 8;
}

/// FNV-1a over the inputs' bytes (little-endian host).
inline std::uint64_t hash(const std::vector<std::uint64_t>& in) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint64_t v : in) {
    for (unsigned b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

/// One form's record in the results file.
struct Record {
  std::string id;
  std::string text;
  Kind kind = K_32_32;
  std::uint64_t input_hash = 0;
  std::vector<std::uint64_t> out; ///< n
};

constexpr char magic[] = "PTXGARITH2";

inline bool write_file(const char* path, const std::vector<Record>& recs) {
  std::FILE* f = std::fopen(path, "wb");
  if (f == nullptr)
    return false;
  auto u32 = [&](std::uint32_t v) { std::fwrite(&v, 4, 1, f); };
  std::fwrite(magic, 1, sizeof magic - 1, f);
  u32(static_cast<std::uint32_t>(recs.size()));
  for (const auto& r : recs) {
    u32(static_cast<std::uint32_t>(r.id.size()));
    std::fwrite(r.id.data(), 1, r.id.size(), f);
    u32(static_cast<std::uint32_t>(r.text.size()));
    std::fwrite(r.text.data(), 1, r.text.size(), f);
    u32(r.kind);
    u32(static_cast<std::uint32_t>(r.out.size()));
    std::fwrite(&r.input_hash, 8, 1, f);
    for (std::uint64_t v : r.out)
      std::fwrite(&v, result_bytes(r.kind), 1, f);
  }
  return std::fclose(f) == 0;
}

inline bool read_file(const char* path, std::vector<Record>& recs) {
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr)
    return false;
  bool ok = true;
  auto u32 = [&]() {
    std::uint32_t v = 0;
    ok = ok && std::fread(&v, 4, 1, f) == 1;
    return v;
  };
  auto str = [&]() {
    std::string s(u32(), '\0');
    ok = ok && s.size() < 4096 && std::fread(s.data(), 1, s.size(), f) == s.size();
    return s;
  };
  char m[sizeof magic - 1] = {};
  ok = std::fread(m, 1, sizeof m, f) == sizeof m && std::string(m, sizeof m) == magic;
  const std::uint32_t count = u32();
  for (std::uint32_t k = 0; ok && k < count; ++k) {
    Record r;
    r.id = str();
    r.text = str();
    r.kind = static_cast<Kind>(u32());
    const std::uint32_t n = u32();
    ok = ok && n <= 1u << 20 && r.kind <= last_kind && std::fread(&r.input_hash, 8, 1, f) == 1;
    r.out.assign(ok ? n : 0, 0);
    for (std::uint64_t& v : r.out)
      ok = ok && std::fread(&v, result_bytes(r.kind), 1, f) == 1;
    recs.push_back(std::move(r));
  }
  std::fclose(f);
  return ok;
}

} // namespace sim_arith_device
