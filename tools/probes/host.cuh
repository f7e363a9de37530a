// Host side helpers of the probe suite: tensor-map encoding through the driver
// entry point (no -lcuda at link time), CUDA error handling (a fault ends the
// child process that ran the case), tagged tensors and a compact description of
// where tagged words landed.
#pragma once
#include "kernels.cuh"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

namespace probes {

/// A CUDA runtime error: the child reports it as the case's result and exits,
/// since a fault poisons the context for every later case.
struct Fault {
  std::string name;
};

inline void check(cudaError_t e) {
  if (e != cudaSuccess)
    throw Fault{cudaGetErrorName(e)};
}

using EncodeTiledFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                   const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                   const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                   CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
using GetErrorNameFn = CUresult (*)(CUresult, const char**);

template <class Fn>
Fn driver_fn(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  check(cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || p == nullptr)
    throw Fault{std::string("no ") + name};
  return reinterpret_cast<Fn>(p);
}

inline std::string cu_error_name(CUresult r) {
  static const auto fn = driver_fn<GetErrorNameFn>("cuGetErrorName");
  const char* s = nullptr;
  return fn(r, &s) == CUDA_SUCCESS && s ? s : "CUresult " + std::to_string(r);
}

/// A 2-D tensor map: dims {w, h} elements, rows `pitch` bytes apart.
struct Map2d {
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  unsigned esize = 1;
  std::uint64_t w = 0, h = 0, pitch = 0;
  unsigned box0 = 0, box1 = 0;
  unsigned es0 = 1, es1 = 1;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion promo = CU_TENSOR_MAP_L2_PROMOTION_NONE;
};

inline CUresult encode(CUtensorMap* out, const Map2d& m, void* base) {
  static const auto fn = driver_fn<EncodeTiledFn>("cuTensorMapEncodeTiled");
  const cuuint64_t dims[2] = {m.w, m.h};
  const cuuint64_t strides[1] = {m.pitch};
  const cuuint32_t box[2] = {m.box0, m.box1};
  const cuuint32_t es[2] = {m.es0, m.es1};
  std::memset(out, 0, sizeof *out);
  return fn(out, m.type, 2, base, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, m.swizzle,
            m.promo, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/// The tag of the 4-byte word at byte offset 4*word of row `row`: top bit set,
/// so it is neither zero (fill) nor the sentinel.
inline std::uint32_t tag(unsigned row, unsigned word) {
  return 0x80000000u | row << 16 | word;
}

/// Global memory that frees itself (the child exits on a fault anyway).
struct DevBuf {
  void* p = nullptr;
  explicit DevBuf(std::size_t bytes) { check(cudaMalloc(&p, bytes)); }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

struct LoadResult {
  bool done = false;
  std::vector<std::uint8_t> dump;
};

/// Run load_probe once on `map` and copy back the status and the dump.
inline LoadResult run_load(const CUtensorMap& map, const LoadArgs& a) {
  DevBuf dump(a.dump_bytes), status(sizeof(unsigned));
  check(cudaMemset(status.p, 0, sizeof(unsigned)));
  load_probe<<<1, kThreads, a.dump_bytes + 1024>>>(map, a, dump.as<std::uint8_t>(),
                                                   status.as<unsigned>());
  check(cudaGetLastError());
  check(cudaDeviceSynchronize());
  LoadResult r;
  unsigned st = 0;
  check(cudaMemcpy(&st, status.p, sizeof st, cudaMemcpyDeviceToHost));
  r.done = st == kStatusDone;
  r.dump.resize(a.dump_bytes);
  check(cudaMemcpy(r.dump.data(), dump.p, a.dump_bytes, cudaMemcpyDeviceToHost));
  return r;
}

inline void run_store(const CUtensorMap& map, const StoreArgs& a,
                      const std::vector<std::uint8_t>& src) {
  DevBuf s(src.size());
  check(cudaMemcpy(s.p, src.data(), src.size(), cudaMemcpyHostToDevice));
  store_probe<<<1, kThreads, a.src_bytes + 1024>>>(map, a, s.as<std::uint8_t>());
  check(cudaGetLastError());
  check(cudaDeviceSynchronize());
}

inline std::uint32_t word_at(const std::vector<std::uint8_t>& v, std::size_t i) {
  std::uint32_t w;
  std::memcpy(&w, v.data() + 4 * i, 4);
  return w;
}

/// Run-length description of `n` words of a dump: tagged words as
/// r<row>:c<first>..<last>[/step] (word columns of the global row), zero fill as
/// Zx<n>, untouched sentinel as Sx<n>, anything else as ?<hex>.
inline std::string describe_words(const std::vector<std::uint8_t>& dump, std::size_t n) {
  std::string out;
  std::size_t i = 0;
  auto sep = [&] {
    if (!out.empty())
      out += ' ';
  };
  while (i < n) {
    const std::uint32_t w = word_at(dump, i);
    std::size_t j = i + 1;
    if (w == 0 || w == kSentinelWord) {
      while (j < n && word_at(dump, j) == w)
        ++j;
      sep();
      out += (w == 0 ? "Zx" : "Sx") + std::to_string(j - i);
    } else if (w & 0x80000000u) {
      const std::uint32_t row = w >> 16 & 0x7fff, col = w & 0xffff;
      long step = 0;
      if (j < n) {
        const std::uint32_t v = word_at(dump, j);
        if ((v & 0x80000000u) && (v >> 16 & 0x7fff) == row)
          step = long(v & 0xffff) - long(col);
      }
      std::uint32_t last = col;
      if (step != 0) {
        while (j < n) {
          const std::uint32_t v = word_at(dump, j);
          if (!(v & 0x80000000u) || (v >> 16 & 0x7fff) != row ||
              long(v & 0xffff) - long(last) != step)
            break;
          last = v & 0xffff;
          ++j;
        }
      }
      sep();
      out += "r" + std::to_string(row) + ":c" + std::to_string(col);
      if (j - i > 1)
        out += ".." + std::to_string(last) + (step != 1 ? "/" + std::to_string(step) : "");
    } else {
      char b[16];
      std::snprintf(b, sizeof b, "?%08x", w);
      sep();
      out += b;
    }
    i = j;
  }
  return out;
}

/// Bytes from the last non-sentinel byte of the dump (how far the writes went).
inline std::size_t written_extent(const std::vector<std::uint8_t>& dump) {
  std::size_t e = dump.size();
  while (e > 0 && dump[e - 1] == kSentinelByte)
    --e;
  return e;
}

inline std::string tx_word(bool done) {
  return done ? "completes" : "timeout";
}

} // namespace probes
