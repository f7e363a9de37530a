#pragma once
// The GPU side of `ptxgen lint --save-run DIR` (driver/lint/save_run.cpp writes the plan; its
// header comment gives the format): reading plan.txt, and comparing the GPU's memory after the
// run with the simulator's under a stated mode. Header-only and the standard library only:
// run.cu (nvcc on the GPU machine) and tests/unit/wild_device_plan.cpp both include it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace wild_device {

struct Region {
  std::uint64_t bytes = 0;
  std::string name;
};

/// A tensor map as the plan gives it: dimensions outermost first, as `--arg` wrote them.
struct Map {
  std::size_t region = 0; ///< the region holding its tensor
  std::string dtype;      ///< tile::name(): "float16", "bfloat16", "uint8", ...
  unsigned rank = 0;
  unsigned swizzle = 0; ///< bytes: 0 (none), 32, 64, 128
  bool nan_fill = false;
  unsigned l2 = 0; ///< bytes: 0 (none), 64, 128, 256
  std::vector<std::uint64_t> dims, strides, box, element_strides;
};

struct Link {
  bool in_param = true; ///< else in a region
  std::size_t index = 0;
  std::uint64_t at = 0;
  bool to_map = false; ///< else the address of a region
  std::size_t target = 0;
};

struct Plan {
  std::string entry;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, cluster[3] = {1, 1, 1};
  bool cluster_fixed = false; ///< the entry's .reqnctapercluster: no launch attribute
  std::uint32_t dynamic_smem = 0;
  bool sim_ok = false;
  std::string sim_fault; ///< "KIND LINE" when the simulator's run faulted
  std::uint64_t instructions = 0;
  std::vector<Region> regions;
  std::vector<Map> maps;
  std::vector<std::vector<std::uint8_t>> params;
  std::vector<Link> links;
};

inline std::vector<std::uint8_t> from_hex(const std::string& s) {
  std::vector<std::uint8_t> v;
  auto digit = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (std::size_t i = 0; i + 1 < s.size(); i += 2)
    v.push_back(static_cast<std::uint8_t>(digit(s[i]) * 16 + digit(s[i + 1])));
  return v;
}

/// plan.txt's text into `p`; the first line that is wrong (its text), or empty when it reads.
inline std::string parse_plan(const std::string& text, Plan& p) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != "ptxgen-run-plan 1")
    return "not a plan of version 1: " + line;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string key;
    w >> key;
    bool ok = true;
    if (key == "entry") {
      w >> p.entry;
    } else if (key == "grid" || key == "block" || key == "cluster") {
      unsigned* d = key == "grid" ? p.grid : key == "block" ? p.block : p.cluster;
      ok = static_cast<bool>(w >> d[0] >> d[1] >> d[2]);
      std::string how;
      if (key == "cluster" && (w >> how))
        p.cluster_fixed = how == "fixed";
    } else if (key == "dynamic_smem") {
      ok = static_cast<bool>(w >> p.dynamic_smem);
    } else if (key == "sim") {
      std::string what;
      w >> what;
      p.sim_ok = what == "ok";
      std::getline(w >> std::ws, p.sim_fault);
    } else if (key == "instructions") {
      ok = static_cast<bool>(w >> p.instructions);
    } else if (key == "region") {
      std::size_t k = 0;
      Region r;
      ok = static_cast<bool>(w >> k >> r.bytes) && k == p.regions.size();
      std::getline(w >> std::ws, r.name);
      p.regions.push_back(r);
    } else if (key == "map") {
      std::size_t m = 0;
      Map x;
      std::string fill;
      ok =
          static_cast<bool>(w >> m >> x.region >> x.dtype >> x.rank >> x.swizzle >> fill >> x.l2) &&
          m == p.maps.size() && x.region < p.regions.size() && x.rank >= 1 && x.rank <= 5;
      x.nan_fill = fill == "nan";
      for (auto* v : {&x.dims, &x.strides, &x.box, &x.element_strides}) {
        const unsigned n = v == &x.strides ? x.rank - 1 : x.rank;
        for (unsigned i = 0; ok && i < n; ++i) {
          std::uint64_t value = 0;
          ok = static_cast<bool>(w >> value);
          v->push_back(value);
        }
      }
      p.maps.push_back(x);
    } else if (key == "param") {
      std::size_t k = 0, size = 0;
      std::string hex;
      ok = static_cast<bool>(w >> k >> size >> hex) && k == p.params.size() &&
           hex.size() == 2 * size;
      p.params.push_back(from_hex(hex));
    } else if (key == "link") {
      Link l;
      std::string in_what, to_what;
      ok = static_cast<bool>(w >> in_what >> l.index >> l.at >> to_what >> l.target);
      l.in_param = in_what == "param";
      l.to_map = to_what == "map";
      ok = ok && (l.to_map ? l.target < p.maps.size() : l.target < p.regions.size()) &&
           (l.in_param ? l.index < p.params.size() : l.index < p.regions.size());
      p.links.push_back(l);
    } else if (!key.empty()) {
      ok = false;
    }
    if (!ok)
      return "cannot read this line of the plan: " + line;
  }
  return p.entry.empty() ? "the plan names no entry" : "";
}

inline std::optional<std::vector<std::uint8_t>> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return std::nullopt;
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

/// How two memories are compared: every byte equal, or elements of a floating-point type
/// within `ulps` units in the last place of the larger of |gpu|, |sim| and 1.0 (the inputs of
/// --fill values lie in [-1, 1): an error of a sum of their products is in ulps of the sum's
/// scale, not of a result that cancels to near zero). NaN matches any NaN; an infinity only
/// itself.
struct Mode {
  bool floats = false;
  unsigned size = 1;          ///< element bytes: 2 (f16, bf16), 4 (f32), 8 (f64)
  unsigned mantissa_bits = 0; ///< 10, 7, 23, 52
  double ulps = 0;
  std::string text;
};

/// "bytes", or "f16|bf16|f32|f64 ulp N" (N >= 0); nullopt when it is neither.
inline std::optional<Mode> parse_mode(const std::string& text) {
  Mode m;
  m.text = text;
  if (text == "bytes")
    return m;
  std::istringstream w(text);
  std::string type, word, rest;
  if (!(w >> type >> word >> m.ulps) || word != "ulp" || m.ulps < 0 || (w >> rest))
    return std::nullopt;
  m.floats = true;
  if (type == "f16")
    m.size = 2, m.mantissa_bits = 10;
  else if (type == "bf16")
    m.size = 2, m.mantissa_bits = 7;
  else if (type == "f32")
    m.size = 4, m.mantissa_bits = 23;
  else if (type == "f64")
    m.size = 8, m.mantissa_bits = 52;
  else
    return std::nullopt;
  return m;
}

/// An element's value: `bits` of the mode's type.
inline double element_value(std::uint64_t bits, const Mode& m) {
  if (m.size == 8) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  std::uint32_t f32 = static_cast<std::uint32_t>(bits);
  if (m.size == 2 && m.mantissa_bits == 7) {
    f32 = static_cast<std::uint32_t>(bits) << 16; // bf16: the top half of an f32
  } else if (m.size == 2) {                       // f16
    const int e = static_cast<int>(bits >> 10 & 31), sign = bits >> 15 & 1;
    const double mant = static_cast<double>(bits & 1023);
    double v = e == 0    ? std::ldexp(mant, -24)
               : e == 31 ? (mant == 0 ? INFINITY : NAN)
                         : std::ldexp(1024 + mant, e - 25);
    return sign ? -v : v;
  }
  float f;
  std::memcpy(&f, &f32, 4);
  return f;
}

struct Outcome {
  std::uint64_t elements = 0; ///< compared (bytes in bytes mode)
  std::uint64_t outside = 0;  ///< differing bytes, or elements outside the bound
  double worst_ulps = 0;      ///< the largest distance met (floats; infinite for a NaN mismatch)
  std::uint64_t first_outside = 0; ///< the byte offset of the first one outside
};

/// `gpu` against `sim` under `m`: a size mismatch is every byte outside; bytes past the last
/// whole element are compared as bytes.
inline Outcome compare(const std::vector<std::uint8_t>& gpu, const std::vector<std::uint8_t>& sim,
                       const Mode& m) {
  Outcome o;
  if (gpu.size() != sim.size()) {
    o.elements = o.outside = std::max(gpu.size(), sim.size());
    o.worst_ulps = INFINITY;
    return o;
  }
  const std::size_t whole = m.floats ? gpu.size() / m.size * m.size : 0;
  auto outside = [&](std::uint64_t at) {
    if (o.outside++ == 0)
      o.first_outside = at;
  };
  for (std::size_t i = 0; i < whole; i += m.size) {
    ++o.elements;
    std::uint64_t g = 0, s = 0;
    std::memcpy(&g, gpu.data() + i, m.size);
    std::memcpy(&s, sim.data() + i, m.size);
    if (g == s)
      continue;
    const double a = element_value(g, m), b = element_value(s, m);
    if (std::isnan(a) && std::isnan(b))
      continue;
    double ulps = INFINITY;
    if (std::isfinite(a) && std::isfinite(b)) {
      const double scale = std::max({std::fabs(a), std::fabs(b), 1.0});
      const double ulp = std::ldexp(1.0, std::ilogb(scale) - static_cast<int>(m.mantissa_bits));
      ulps = std::fabs(a - b) / ulp;
    }
    o.worst_ulps = std::max(o.worst_ulps, ulps);
    if (ulps > m.ulps)
      outside(i);
  }
  for (std::size_t i = whole; i < gpu.size(); ++i) {
    ++o.elements;
    if (gpu[i] != sim[i]) {
      o.worst_ulps = INFINITY;
      outside(i);
    }
  }
  return o;
}

/// The regions a GPU run's memory is compared in: all but those holding a tensor map (the
/// simulator holds a handle there, the GPU the driver's encoding).
inline std::vector<bool> compared_regions(const Plan& p) {
  std::vector<bool> keep(p.regions.size(), true);
  for (const Link& l : p.links) {
    if (!l.in_param && l.to_map)
      keep[l.index] = false;
  }
  return keep;
}

} // namespace wild_device
