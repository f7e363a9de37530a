#pragma once
// Walks over a view's coordinates and the offsets two affine forms give them, for the
// reference's ops and their replay: row-major coordinate loops, the per-op table of offsets
// relative to a thread's first (Points), and a memcpy sized for cp.async's chunks.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ptxgen::driver::evaluation {

/// Calls f(coords) for every coordinate of `shape`, row major, over the axes
/// from `from` on; coords[0..from) are left as the caller set them.
template <class F>
void for_each_coord(const std::vector<std::int64_t>& shape, std::size_t from,
                    std::vector<std::int64_t>& coords, F&& f) {
  coords.resize(shape.size());
  for (std::size_t a = from; a < shape.size(); ++a) {
    if (shape[a] <= 0) {
      return; // an empty axis: no coordinates at all
    }
    coords[a] = 0;
  }
  while (true) {
    f(static_cast<const std::vector<std::int64_t>&>(coords));
    std::size_t a = shape.size();
    while (true) {
      if (a == from) {
        return; // every axis wrapped around (or there are none)
      }
      --a;
      if (++coords[a] < shape[a]) {
        break;
      }
      coords[a] = 0;
    }
  }
}

/// Calls f(x) for each row (the last axis) of `shape`, row major, with x the coordinates of
/// its first element (last coordinate 0); for a shape of rank 0, once with no coordinates.
template <class F>
void for_each_row(const std::vector<std::int64_t>& shape, F&& f) {
  const std::vector<std::int64_t> outer(shape.begin(), shape.end() - (shape.empty() ? 0 : 1));
  std::vector<std::int64_t> coords;
  std::vector<std::int64_t> x(shape.size(), 0);
  for_each_coord(outer, 0, coords, [&](const std::vector<std::int64_t>& c) {
    std::copy(c.begin(), c.end(), x.begin());
    f(static_cast<const std::vector<std::int64_t>&>(x));
  });
}

/// memcpy of `n` bytes, with the chunk sizes of cp.async (4, 8, 16) as constants: a call of
/// the library's memcpy costs more than such a copy itself.
inline void copy_bytes(std::uint8_t* dst, const std::uint8_t* src, std::int64_t n) {
  switch (n) {
  case 16:
    std::memcpy(dst, src, 16);
    break;
  case 8:
    std::memcpy(dst, src, 8);
    break;
  case 4:
    std::memcpy(dst, src, 4);
    break;
  default:
    std::memcpy(dst, src, static_cast<std::size_t>(n));
  }
}

/// Calls f(d, s) at each coordinate of the axes from .. to - 1 of `shape` (row major; `x`,
/// whose coordinates there start at 0, follows), d and s being two affine forms' offsets
/// there (d and s at the start), stepped by their strides: one addition per step, not a sum
/// per axis. Stops at the first f that returns false, and then returns false.
template <class F>
bool each_point(const std::vector<std::int64_t>& shape, std::size_t from, std::size_t to,
                std::vector<std::int64_t>& x, std::int64_t d, std::int64_t s,
                const std::vector<std::int64_t>& dstride, const std::vector<std::int64_t>& sstride,
                F& f) {
  if (from == to) {
    return f(d, s);
  }
  for (x[from] = 0; x[from] < shape[from]; ++x[from], d += dstride[from], s += sstride[from]) {
    if (!each_point(shape, from + 1, to, x, d, s, dstride, sstride, f)) {
      return false;
    }
  }
  x[from] = 0;
  return true;
}

/// The offsets of each coordinate of the axes from .. to - 1 of `shape` (row major, the others
/// 0) under two views' strides, relative to coordinate 0, and their extremes: the same for
/// every thread of an op (a view's strides do not depend on the thread), so a thread's points
/// are its base plus these, and its base alone says whether all of them are in bounds.
struct Points {
  std::vector<std::int64_t> d;
  std::vector<std::int64_t> s;
  std::int64_t d_low = 0, d_high = 0, s_low = 0, s_high = 0;
  /// d[i] = i * d_step for every i (d_even), and the same for s: one run of a trace.
  bool d_even = true, s_even = true;
  std::int64_t d_step = 0, s_step = 0;

  Points(const std::vector<std::int64_t>& shape, std::size_t from, std::size_t to,
         const std::vector<std::int64_t>& dstride, const std::vector<std::int64_t>& sstride) {
    std::vector<std::int64_t> x(shape.size(), 0);
    auto add = [&](std::int64_t dd, std::int64_t ss) {
      d.push_back(dd);
      s.push_back(ss);
      d_low = std::min(d_low, dd);
      d_high = std::max(d_high, dd);
      s_low = std::min(s_low, ss);
      s_high = std::max(s_high, ss);
      return true;
    };
    each_point(shape, from, to, x, 0, 0, dstride, sstride, add);
    d_step = d.size() > 1 ? d[1] : 0;
    s_step = s.size() > 1 ? s[1] : 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
      d_even = d_even && d[i] == static_cast<std::int64_t>(i) * d_step;
      s_even = s_even && s[i] == static_cast<std::int64_t>(i) * s_step;
    }
  }

  /// True when every point of the thread whose first point is at d0 and s0 has its `len`
  /// bytes inside tensors of dsize and ssize bytes.
  bool inside(std::int64_t d0, std::int64_t dsize, std::int64_t s0, std::int64_t ssize,
              std::int64_t len) const {
    return d.empty() || (d0 + d_low >= 0 && d0 + d_high + len <= dsize && s0 + s_low >= 0 &&
                         s0 + s_high + len <= ssize);
  }
};

/// True when one of the axes from .. to - 1 of `shape` is empty: no coordinates at all.
inline bool any_empty(const std::vector<std::int64_t>& shape, std::size_t from, std::size_t to) {
  return std::any_of(shape.begin() + static_cast<std::ptrdiff_t>(from),
                     shape.begin() + static_cast<std::ptrdiff_t>(to),
                     [](std::int64_t n) { return n <= 0; });
}

inline std::string coords_text(const std::vector<std::int64_t>& c) {
  std::string s = "(";
  for (std::size_t i = 0; i < c.size(); ++i) {
    s += (i ? "," : "") + std::to_string(c[i]);
  }
  return s + ")";
}

} // namespace ptxgen::driver::evaluation
