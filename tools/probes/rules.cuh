// What the rules predict for an unswizzled 2-D box (the bytes a load lands,
// the image a store leaves) and the comparison that words the observation.
#pragma once
#include "host.cuh"

#include <cstdint>
#include <string>
#include <vector>

namespace probes {

/// Whether element (x, y) lies inside the tensor (64-bit: no wrap at 2^31).
inline bool in_bounds(const Map2d& m, long long x, long long y) {
  return x >= 0 && y >= 0 && x < static_cast<long long>(m.w) && y < static_cast<long long>(m.h);
}

/// The packed shared bytes of a load of the box at (c0, c1) with unit element
/// strides and no swizzle: in-bounds elements copied, the others zero.
inline std::vector<std::uint8_t> expect_load(const Map2d& m, const std::vector<std::uint8_t>& g,
                                             int c0, int c1) {
  std::vector<std::uint8_t> out(std::size_t(m.box0) * m.box1 * m.esize, 0);
  for (unsigned r = 0; r < m.box1; ++r)
    for (unsigned i = 0; i < m.box0; ++i) {
      const long long x = static_cast<long long>(c0) + i, y = static_cast<long long>(c1) + r;
      if (!in_bounds(m, x, y))
        continue;
      for (unsigned b = 0; b < m.esize; ++b)
        out[(std::size_t(r) * m.box0 + i) * m.esize + b] = g[y * m.pitch + x * m.esize + b];
    }
  return out;
}

/// The global image after a store of `src` (packed box) at (c0, c1): in-bounds
/// elements written, the others skipped.
inline std::vector<std::uint8_t> expect_store(const Map2d& m, std::vector<std::uint8_t> g,
                                              const std::vector<std::uint8_t>& src, int c0,
                                              int c1) {
  for (unsigned r = 0; r < m.box1; ++r)
    for (unsigned i = 0; i < m.box0; ++i) {
      const long long x = static_cast<long long>(c0) + i, y = static_cast<long long>(c1) + r;
      if (!in_bounds(m, x, y))
        continue;
      for (unsigned b = 0; b < m.esize; ++b)
        g[y * m.pitch + x * m.esize + b] = src[(std::size_t(r) * m.box0 + i) * m.esize + b];
    }
  return g;
}

/// "bytes as rule", or how many differ and the first; for a load dump, bytes
/// past the expected ones must still hold the sentinel.
inline std::string compare(const std::vector<std::uint8_t>& got,
                           const std::vector<std::uint8_t>& want, bool guard_after) {
  std::size_t bad = 0, first = 0;
  for (std::size_t k = 0; k < want.size() && k < got.size(); ++k)
    if (got[k] != want[k] && bad++ == 0)
      first = k;
  std::string s;
  if (bad == 0) {
    s = "bytes as rule";
  } else {
    char b[96];
    std::snprintf(b, sizeof b, "%zu bytes differ (first at byte %zu: 0x%02x, rule 0x%02x)", bad,
                  first, got[first], want[first]);
    s = b;
  }
  if (guard_after) {
    const std::size_t end = written_extent(got);
    if (end > want.size())
      s += "; writes past the box up to byte " + std::to_string(end);
  }
  return s;
}

/// A global tensor of `rows` rows of `pitch` bytes whose 4-byte words are tags.
inline std::vector<std::uint8_t> tagged_image(std::uint64_t rows, std::uint64_t pitch) {
  std::vector<std::uint8_t> g(rows * pitch);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t w = 0; w < pitch / 4; ++w) {
      const std::uint32_t t = tag(static_cast<unsigned>(r), static_cast<unsigned>(w));
      std::memcpy(&g[r * pitch + 4 * w], &t, 4);
    }
  return g;
}

inline void upload(const DevBuf& d, const std::vector<std::uint8_t>& h) {
  check(cudaMemcpy(d.p, h.data(), h.size(), cudaMemcpyHostToDevice));
}

inline std::vector<std::uint8_t> download(const DevBuf& d, std::size_t bytes) {
  std::vector<std::uint8_t> h(bytes);
  check(cudaMemcpy(h.data(), d.p, bytes, cudaMemcpyDeviceToHost));
  return h;
}

} // namespace probes
