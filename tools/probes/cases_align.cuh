// Probes 1, 3, 4 and 6: inner coordinate alignment, box and coordinate limits,
// element strides with OOB, cache hints and L2 promotion.
#pragma once
#include "rules.cuh"

#include <climits>
#include <functional>
#include <string>
#include <vector>

namespace probes {

struct Observed {
  std::string summary, detail;
};

struct Case {
  std::string probe, params, expected;
  std::function<Observed()> run;
  bool solo = false; // run alone on the GPU, after the parallel shards (all_cases puts it last)
};

struct DType {
  CUtensorMapDataType type;
  unsigned esize;
  const char* name;
};

inline std::string dim_params(const Map2d& m, int c0, int c1) {
  return "box " + std::to_string(m.box0) + "x" + std::to_string(m.box1) + " at (" +
         std::to_string(c0) + ", " + std::to_string(c1) + ")";
}

/// The tagged image of `m` in global memory and its map; `error` says why the map did not
/// encode (the probe's observation then).
struct TaggedMap {
  std::vector<std::uint8_t> image;
  DevBuf dev;
  CUtensorMap map{};
  std::string error;
  explicit TaggedMap(const Map2d& m) : image(tagged_image(m.h, m.pitch)), dev(image.size()) {
    upload(dev, image);
    if (const CUresult e = encode(&map, m, dev.p); e != CUDA_SUCCESS)
      error = "encode: " + cu_error_name(e);
  }
};

/// A tensor load of `m` over the tagged (or given) image at (c0, c1): the
/// comparison with the unswizzled rule, and the tx outcome with box bytes.
inline Observed load_vs_rule(const Map2d& m, const std::vector<std::uint8_t>& g, int c0, int c1,
                             Issue issue = Issue::plain) {
  DevBuf dev(g.size());
  upload(dev, g);
  CUtensorMap map;
  const CUresult e = encode(&map, m, dev.p);
  if (e != CUDA_SUCCESS)
    return {"encode: " + cu_error_name(e), ""};
  const unsigned box_bytes = m.box0 * m.box1 * m.esize;
  const LoadResult r = run_load(map, {c0, c1, box_bytes, box_bytes + 256, issue, nullptr, 0});
  const auto want = expect_load(m, g, c0, c1);
  return {std::string("runs; tx ") + std::to_string(box_bytes) + " " + tx_word(r.done) + "; " +
              compare(r.dump, want, true),
          describe_words(r.dump, (box_bytes + 256) / 4)};
}

inline Observed store_vs_rule(const Map2d& m, std::vector<std::uint8_t> init, int c0, int c1,
                              Issue issue = Issue::plain) {
  DevBuf dev(init.size());
  upload(dev, init);
  CUtensorMap map;
  const CUresult e = encode(&map, m, dev.p);
  if (e != CUDA_SUCCESS)
    return {"encode: " + cu_error_name(e), ""};
  const unsigned box_bytes = m.box0 * m.box1 * m.esize;
  std::vector<std::uint8_t> src(box_bytes);
  for (unsigned k = 0; k < box_bytes; ++k)
    src[k] = static_cast<std::uint8_t>((k * 11 + 3) & 0x7f);
  run_store(map, {c0, c1, box_bytes, issue, nullptr}, src);
  const auto got = download(dev, init.size());
  return {"runs; " + compare(got, expect_store(m, init, src, c0, c1), false), ""};
}

/// Probe 1: the innermost coordinate at a byte offset, load and store.
inline void add_alignment(std::vector<Case>& out) {
  const DType types[] = {{CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, "u8"},
                         {CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, "u16"},
                         {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, "f32"}};
  const int offsets[] = {-16, -8, -4, 3, 4, 8, 12, 16, 144};
  for (const bool store : {false, true})
    for (const DType& t : types)
      for (const int off : offsets) {
        if (off % static_cast<int>(t.esize) != 0)
          continue; // not an element boundary
        Map2d m;
        m.type = t.type;
        m.esize = t.esize;
        m.w = 256 / t.esize;
        m.h = 8;
        m.pitch = 256;
        m.box0 = 32 / t.esize;
        m.box1 = 4;
        const int c0 = off / static_cast<int>(t.esize), c1 = 1;
        Case c;
        c.probe = std::string("1 inner coord align (") + (store ? "store" : "load") + ")";
        c.params = std::string(t.name) + ", inner offset " + std::to_string(off) + " B, " +
                   dim_params(m, c0, c1);
        c.expected = off % 16 != 0 ? "fault (offset not a multiple of 16 B)"
                                   : "runs; bytes as rule (OOB zero/skipped)";
        c.run = [m, c0, c1, store] {
          std::vector<std::uint8_t> g(m.h * m.pitch);
          for (std::size_t k = 0; k < g.size(); ++k)
            g[k] = static_cast<std::uint8_t>(k * 7 + 1);
          if (store)
            return store_vs_rule(m, std::vector<std::uint8_t>(g.size(), kSentinelByte), c0, c1);
          Observed o = load_vs_rule(m, g, c0, c1);
          o.detail.clear(); // byte data, not tags: the comparison says it all
          return o;
        };
        out.push_back(std::move(c));
      }
}

inline Map2d small_u32(unsigned w, unsigned h, unsigned box0, unsigned box1) {
  Map2d m;
  m.type = CU_TENSOR_MAP_DATA_TYPE_UINT32;
  m.esize = 4;
  m.w = w;
  m.h = h;
  m.pitch = std::uint64_t(w) * 4;
  m.box0 = box0;
  m.box1 = box1;
  return m;
}

/// Probe 3: box limits (encode errors), coordinates near +-2^31, fully OOB boxes.
inline void add_limits(std::vector<Case>& out) {
  auto encode_case = [&](const std::string& params, Map2d m, const std::string& expected) {
    out.push_back({"3 box limit", params, expected, [m] {
                     const auto g = tagged_image(m.h, m.pitch);
                     return load_vs_rule(m, g, 0, 0);
                   }});
  };
  encode_case("u32 box 4x256 (rows 256)", small_u32(16, 300, 4, 256),
              "encodes; runs; bytes as rule");
  encode_case("u32 box 4x257 (rows 257)", small_u32(16, 300, 4, 257),
              "encode: CUDA_ERROR_INVALID_VALUE (box dims <= 256)");
  Map2d wide = small_u32(512, 4, 256, 1);
  encode_case("u32 box 256x1 (inner 1024 B)", wide, "encodes; runs; bytes as rule");
  wide.box0 = 260;
  encode_case("u32 box 260x1 (inner 1040 B)", wide, "encode: CUDA_ERROR_INVALID_VALUE");
  Map2d sw = small_u32(64, 8, 16, 8);
  sw.swizzle = CU_TENSOR_MAP_SWIZZLE_32B;
  encode_case("u32 box 16x8, 32B swizzle, inner 64 B > span", sw,
              "encode: CUDA_ERROR_INVALID_VALUE (inner box bytes <= span)");

  const int coords[][2] = {{0, INT_MAX - 1}, {0, INT_MAX - 3}, {0, INT_MIN}, {INT_MAX - 3, 0},
                           {INT_MIN, 0},     {0, -2},          {16, 0},      {0, 8},
                           {-8, -8},         {1024, 1024}};
  for (const auto& c : coords) {
    const Map2d m = small_u32(16, 8, 4, 4);
    const int c0 = c[0], c1 = c[1];
    const bool partly = c0 == 0 && c1 == -2; // rows -2..1: two in bounds
    out.push_back({"3 coord limit (load)", "u32 16x8 tensor, " + dim_params(m, c0, c1),
                   partly ? "runs; tx box bytes; in-bounds copied, OOB zero"
                          : "runs; tx box bytes (64); all zero (fully OOB)",
                   [m, c0, c1] { return load_vs_rule(m, tagged_image(m.h, m.pitch), c0, c1); }});
  }
  for (const auto& c : {std::pair<int, int>{16, 0}, {0, -4}, {INT_MIN, INT_MAX - 1}}) {
    const Map2d m = small_u32(16, 8, 4, 4);
    out.push_back({"3 coord limit (store)", "u32 16x8 tensor, " + dim_params(m, c.first, c.second),
                   "runs; nothing written (fully OOB)", [m, c] {
                     return store_vs_rule(m, tagged_image(m.h, m.pitch), c.first, c.second);
                   }});
  }
}

/// Probe 4: element strides 2 and 3 in each dimension, in bounds and across
/// the tensor's edge.
inline void add_strides(std::vector<Case>& out) {
  const unsigned strides[][2] = {{1, 2}, {1, 3}, {2, 1}, {3, 1}, {2, 2}};
  const int coords[][2] = {{0, 0}, {32, 14}};
  for (const auto& s : strides)
    for (const auto& c : coords) {
      Map2d m = small_u32(40, 20, 16, 12);
      m.es0 = s[0];
      m.es1 = s[1];
      const int c0 = c[0], c1 = c[1];
      const unsigned full = m.box0 * m.box1 * 4;
      const unsigned strided = (m.box0 + s[0] - 1) / s[0] * ((m.box1 + s[1] - 1) / s[1]) * 4;
      Case k;
      k.probe = "4 element strides";
      k.params = "u32 40x20, strides (" + std::to_string(s[0]) + ", " + std::to_string(s[1]) +
                 "), " + dim_params(m, c0, c1);
      k.expected = "elements every stride, packed; OOB zero; tx: unknown (full " +
                   std::to_string(full) + " or strided " + std::to_string(strided) + ")";
      k.run = [m, c0, c1, full, strided] {
        const TaggedMap t(m);
        if (!t.error.empty())
          return Observed{t.error, ""};
        const unsigned dump = 2048;
        const LoadResult a = run_load(t.map, {c0, c1, full, dump, Issue::plain, nullptr, 0});
        const LoadResult b = run_load(t.map, {c0, c1, strided, dump, Issue::plain, nullptr, 0});
        const std::size_t end = written_extent(a.dump);
        return Observed{"tx " + std::to_string(full) + " " + tx_word(a.done) + ", tx " +
                            std::to_string(strided) + " " + tx_word(b.done) +
                            "; writes end at byte " + std::to_string(end),
                        describe_words(a.dump, (end + 3) / 4 + 2)};
      };
      out.push_back(std::move(k));
    }
}

/// Probe 6: L2 promotion modes, cache hints on tensor and 1-D bulk copies.
inline void add_hints(std::vector<Case>& out) {
  const std::pair<CUtensorMapL2promotion, const char*> promos[] = {
      {CU_TENSOR_MAP_L2_PROMOTION_NONE, "NONE"},
      {CU_TENSOR_MAP_L2_PROMOTION_L2_64B, "L2_64B"},
      {CU_TENSOR_MAP_L2_PROMOTION_L2_128B, "L2_128B"},
      {CU_TENSOR_MAP_L2_PROMOTION_L2_256B, "L2_256B"}};
  for (const auto& p : promos) {
    Map2d m = small_u32(64, 16, 32, 8);
    m.promo = p.first;
    out.push_back({"6 L2 promotion (load)", std::string("u32 box 32x8, ") + p.second,
                   "runs; bytes as rule",
                   [m] { return load_vs_rule(m, tagged_image(m.h, m.pitch), 0, 4); }});
  }
  const std::pair<Issue, const char*> hints[] = {{Issue::hint_evict_first, "evict_first"},
                                                 {Issue::hint_evict_last, "evict_last"},
                                                 {Issue::hint_evict_normal, "evict_normal"}};
  for (const auto& h : hints) {
    const Map2d m = small_u32(64, 16, 32, 8);
    out.push_back({"6 cache hint (tensor load)", std::string(".L2::cache_hint ") + h.second,
                   "runs; bytes as rule",
                   [m, h] { return load_vs_rule(m, tagged_image(m.h, m.pitch), 32, 8, h.first); }});
    out.push_back({"6 cache hint (tensor store)", std::string(".L2::cache_hint ") + h.second,
                   "runs; bytes as rule", [m, h] {
                     return store_vs_rule(m, tagged_image(m.h, m.pitch), 32, 8, h.first);
                   }});
  }
  for (const Issue i : {Issue::bulk_1d, Issue::bulk_1d_hint}) {
    const bool hint = i == Issue::bulk_1d_hint;
    out.push_back(
        {"6 cache hint (1-D bulk)",
         std::string("4096 B load + store") + (hint ? ", .L2::cache_hint evict_first" : ""),
         "runs; bytes as rule", [i] {
           const auto g = tagged_image(16, 256);
           DevBuf src(g.size()), dst(g.size());
           upload(src, g);
           check(cudaMemset(dst.p, 0, g.size()));
           const Map2d m = small_u32(64, 16, 32, 8);
           CUtensorMap map;
           if (encode(&map, m, src.p) != CUDA_SUCCESS)
             return Observed{"encode failed", ""};
           const LoadResult r =
               run_load(map, {0, 0, 4096, 4096 + 256, i, src.as<std::uint8_t>(), 4096});
           std::string s = "load: tx 4096 " + tx_word(r.done) + ", " + compare(r.dump, g, true);
           run_store(map, {0, 0, 4096, i, dst.as<std::uint8_t>()}, g);
           return Observed{s + "; store: " + compare(download(dst, g.size()), g, false), ""};
         }});
  }
  out.push_back({"6 prefetch.tensor.L2", "u32 box 32x8 at (0, 0)", "runs", [] {
                   const Map2d m = small_u32(64, 16, 32, 8);
                   DevBuf dev(m.h * m.pitch);
                   CUtensorMap map;
                   if (encode(&map, m, dev.p) != CUDA_SUCCESS)
                     return Observed{"encode failed", ""};
                   prefetch_probe<<<1, 32>>>(map, 0, 0);
                   check(cudaGetLastError());
                   check(cudaDeviceSynchronize());
                   return Observed{"runs", ""};
                 }});
}

} // namespace probes
