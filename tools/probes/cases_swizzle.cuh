// Probes 2 and 5 (where each 16-byte chunk of a swizzled box lands in shared
// memory, narrow and full-width boxes; the transaction count that completes the
// phase), probe 7 (bulk wait thread scope) and probe 8 (a swizzled destination off its
// pattern's 256/512/1024-byte boundary).
#pragma once
#include "cases_align.cuh"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace probes {

constexpr unsigned kSwzRows = 16;   // two repeats of every mode's 8-line pattern
constexpr unsigned kSwzPitch = 256; // global row bytes (wider than any box)
constexpr unsigned kSwzDump = 8192; // shared bytes watched (box at most 2 KiB)

/// Chunk (r, j) of the box: the 16-byte chunk index in the dump where it
/// landed, -1 when nowhere, -2 when in more than one place.
inline std::vector<std::vector<int>> chunk_positions(const std::vector<std::uint8_t>& dump,
                                                     unsigned rows, unsigned chunks) {
  std::vector<std::vector<int>> pos(rows, std::vector<int>(chunks, -1));
  for (std::size_t k = 0; k < dump.size() / 16; ++k) {
    const std::uint32_t w0 = word_at(dump, 4 * k);
    if (!(w0 & 0x80000000u))
      continue;
    const unsigned row = w0 >> 16 & 0x7fff, col = w0 & 0xffff;
    bool whole = col % 4 == 0;
    for (unsigned i = 1; i < 4 && whole; ++i)
      whole = word_at(dump, 4 * k + i) == w0 + i;
    if (!whole || row >= rows || col / 4 >= chunks)
      continue;
    int& p = pos[row][col / 4];
    p = p == -1 ? static_cast<int>(k) : -2;
  }
  return pos;
}

/// The model's swizzle of a byte offset in a 1024-byte aligned buffer: bits
/// [4, 4 + log2(span / 16)) XOR bits [7, ...) (CUTLASS's Swizzle<B, 4, 3>).
inline unsigned swizzle_addr(unsigned a, unsigned span) {
  return span == 0 ? a : a ^ ((a >> 3) & (span - 16));
}

/// The names of the layout models that place every chunk where it was seen.
inline std::string matching_models(const std::vector<std::vector<int>>& pos, unsigned span,
                                   unsigned inner) {
  struct Model {
    const char* name;
    unsigned (*at)(unsigned r, unsigned j, unsigned span, unsigned inner);
  };
  static const Model models[] = {
      {"padded rows, chunk at swz(r*span+16j)",
       [](unsigned r, unsigned j, unsigned s, unsigned) {
         return swizzle_addr(r * s + 16 * j, s);
       }},
      {"padded rows, chunk j^(r%(span/16))",
       [](unsigned r, unsigned j, unsigned s, unsigned) {
         return r * s + 16 * (j ^ (r % (s / 16)));
       }},
      {"packed rows, chunk at swz(r*inner+16j)",
       [](unsigned r, unsigned j, unsigned s, unsigned b) {
         return swizzle_addr(r * b + 16 * j, s);
       }},
      {"packed rows, unswizzled",
       [](unsigned r, unsigned j, unsigned, unsigned b) { return r * b + 16 * j; }}};
  std::string out;
  for (const Model& m : models) {
    if (span == 0 && m.name[0] == 'p' && m.name[1] == 'a' && m.name[2] == 'd')
      continue;
    bool all = true;
    for (unsigned r = 0; r < pos.size() && all; ++r)
      for (unsigned j = 0; j < pos[r].size() && all; ++j)
        all = pos[r][j] >= 0 && static_cast<unsigned>(pos[r][j]) * 16 == m.at(r, j, span, inner);
    if (all)
      out += (out.empty() ? "" : " = ") + std::string(m.name);
  }
  return out.empty() ? "none of the models" : out;
}

inline std::string positions_text(const std::vector<std::vector<int>>& pos) {
  std::string s;
  for (unsigned r = 0; r < pos.size(); ++r) {
    s += (r ? " r" : "r") + std::to_string(r) + ":";
    for (unsigned j = 0; j < pos[r].size(); ++j)
      s += (j ? "," : "") + std::to_string(pos[r][j]);
  }
  return s + " (16-byte chunk index in shared memory; -1 missing, -2 twice)";
}

inline Observed swizzle_run(const Map2d& m, unsigned span, unsigned inner) {
  const TaggedMap t(m);
  if (!t.error.empty())
    return {t.error, ""};
  const unsigned box = inner * kSwzRows, padded = (span ? span : inner) * kSwzRows;
  const LoadResult a = run_load(t.map, {0, 0, box, kSwzDump, Issue::plain, nullptr, 0});
  const auto pos = chunk_positions(a.dump, kSwzRows, inner / 16);
  std::string s = matching_models(pos, span, inner) + "; writes end at byte " +
                  std::to_string(written_extent(a.dump)) + " (packed " + std::to_string(box) +
                  ", padded " + std::to_string(padded) + "); tx " + std::to_string(box) + " " +
                  tx_word(a.done);
  if (padded != box) {
    const LoadResult b = run_load(t.map, {0, 0, padded, kSwzDump, Issue::plain, nullptr, 0});
    s += ", tx " + std::to_string(padded) + " " + tx_word(b.done);
  }
  return {s, positions_text(pos)};
}

/// Probes 2 and 5: every swizzle mode, element size and inner box width up to
/// the span (narrow: probe 2; full width and unswizzled controls: probe 5).
inline void add_swizzle(std::vector<Case>& out) {
  const DType types[] = {{CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, "u8"},
                         {CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, "u16"},
                         {CU_TENSOR_MAP_DATA_TYPE_UINT32, 4, "u32"},
                         {CU_TENSOR_MAP_DATA_TYPE_UINT64, 8, "u64"}};
  const std::pair<CUtensorMapSwizzle, unsigned> modes[] = {{CU_TENSOR_MAP_SWIZZLE_NONE, 0},
                                                           {CU_TENSOR_MAP_SWIZZLE_32B, 32},
                                                           {CU_TENSOR_MAP_SWIZZLE_64B, 64},
                                                           {CU_TENSOR_MAP_SWIZZLE_128B, 128}};
  for (const auto& mode : modes)
    for (const DType& t : types)
      for (const unsigned inner : {16u, 32u, 64u, 128u}) {
        const unsigned span = mode.second;
        if (span == 0 ? inner != 128 : inner > span)
          continue;
        Map2d m;
        m.type = t.type;
        m.esize = t.esize;
        m.w = kSwzPitch / t.esize;
        m.h = kSwzRows;
        m.pitch = kSwzPitch;
        m.box0 = inner / t.esize;
        m.box1 = kSwzRows;
        m.swizzle = mode.first;
        const bool narrow = span != 0 && inner < span;
        Case c;
        c.probe = narrow ? "2 narrow swizzled box" : "5 swizzle atom (full width)";
        c.params = std::string(t.name) + ", swizzle " +
                   (span ? std::to_string(span) + "B" : "none") + ", inner box " +
                   std::to_string(inner) + " B x " + std::to_string(kSwzRows) + " rows";
        c.expected =
            span == 0 ? "packed rows, unswizzled"
            : narrow  ? "padded rows, chunk j^(r%(span/16)) (measured before at 128B, 64 B box); "
                        "tx = packed box bytes"
                      : "chunk at swz(a) = a ^ ((a >> 3) & (span - 16))";
        c.run = [m, span, inner] { return swizzle_run(m, span, inner); };
        out.push_back(std::move(c));
      }
}

/// Probe 8: a full-width swizzled box loaded to a destination `off` bytes past a 1024-byte
/// boundary (a multiple of 128, the unswizzled alignment, below the mode's repeat): whether
/// the copy runs or faults, and whether the pattern follows the address bits (CUTLASS's
/// reading, whose wgmma descriptors carry a base offset for this case) or the destination.
inline void add_swizzle_offset(std::vector<Case>& out) {
  const std::pair<CUtensorMapSwizzle, unsigned> modes[] = {{CU_TENSOR_MAP_SWIZZLE_32B, 32},
                                                           {CU_TENSOR_MAP_SWIZZLE_64B, 64},
                                                           {CU_TENSOR_MAP_SWIZZLE_128B, 128}};
  for (const auto& mode : modes)
    for (const unsigned off : {128u, 256u, 384u, 512u, 896u}) {
      const unsigned span = mode.second, repeat = 8 * span;
      if (off >= repeat)
        continue;
      Map2d m;
      m.type = CU_TENSOR_MAP_DATA_TYPE_UINT8;
      m.esize = 1;
      m.w = kSwzPitch;
      m.h = kSwzRows;
      m.pitch = kSwzPitch;
      m.box0 = span;
      m.box1 = kSwzRows;
      m.swizzle = mode.first;
      Case c;
      c.probe = "8 swizzled destination off its repeat";
      c.params = "u8, swizzle " + std::to_string(span) + "B, box " + std::to_string(span) +
                 " B x " + std::to_string(kSwzRows) + " rows, destination 1024k + " +
                 std::to_string(off);
      c.expected = "ptxgen refuses it (alignment " + std::to_string(repeat) + "): runs or faults?";
      c.run = [m, span, off] {
        const TaggedMap t(m);
        if (!t.error.empty())
          return Observed{t.error, ""};
        const unsigned box = span * kSwzRows;
        LoadArgs a{0, 0, box, kSwzDump, Issue::plain, nullptr, 0};
        a.dst_offset = off;
        const LoadResult r = run_load(t.map, a);
        const auto pos = chunk_positions(r.dump, kSwzRows, span / 16);
        bool by_address = true, by_destination = true;
        for (unsigned row = 0; row < kSwzRows; ++row)
          for (unsigned j = 0; j < span / 16; ++j) {
            const unsigned rel = row * span + 16 * j;
            const auto at = static_cast<unsigned>(pos[row][j]) * 16;
            by_address = by_address && pos[row][j] >= 0 && at == swizzle_addr(off + rel, span);
            by_destination =
                by_destination && pos[row][j] >= 0 && at == off + swizzle_addr(rel, span);
          }
        const std::string model = by_address && by_destination ? "both models agree"
                                  : by_address     ? "chunk at swz(destination + a): address bits"
                                  : by_destination ? "chunk at destination + swz(a)"
                                                   : "neither model";
        return Observed{"runs; " + model + "; tx " + std::to_string(box) + " " + tx_word(r.done),
                        positions_text(pos)};
      };
      out.push_back(std::move(c));
    }
}

/// Probe 7: another warp reads the stored global bytes right after the issuer's
/// wait_group (and wait_group.read), with no barrier between.
inline void add_scope(std::vector<Case>& out) {
  for (const int read_only : {0, 1}) {
    const int blocks = 132, iterations = 512;
    Case c;
    c.probe = "7 bulk wait thread scope";
    c.params = std::string(read_only ? "wait_group.read 0" : "wait_group 0") +
               ", 4096 B store, other warp reads global after a shared flag, " +
               std::to_string(blocks) + " CTAs x " + std::to_string(iterations) + " trials";
    c.expected = read_only ? "stale bytes allowed (.read: source read only)"
                           : "not guaranteed for other threads (issuer's scope); 0 proves nothing";
    c.solo = true;
    c.run = [read_only, blocks, iterations] {
      DevBuf dst(std::size_t(blocks) * kScopeBytes), stale(3 * sizeof(unsigned long long));
      check(cudaMemset(dst.p, 0, std::size_t(blocks) * kScopeBytes));
      check(cudaMemset(stale.p, 0, 3 * sizeof(unsigned long long)));
      scope_probe<<<blocks, kThreads>>>(dst.as<std::uint32_t>(), iterations, read_only,
                                        stale.as<unsigned long long>());
      check(cudaGetLastError());
      check(cudaDeviceSynchronize());
      unsigned long long h[3];
      check(cudaMemcpy(h, stale.p, sizeof h, cudaMemcpyDeviceToHost));
      return Observed{"stale bytes seen in " + std::to_string(h[0]) + " of " +
                          std::to_string(blocks * iterations) + " trials (" + std::to_string(h[1]) +
                          " words)" +
                          (h[2] ? "; flag never came in " + std::to_string(h[2]) + " trials" : ""),
                      ""};
    };
    out.push_back(std::move(c));
  }
}

inline std::vector<Case> all_cases() {
  std::vector<Case> v;
  add_alignment(v);
  add_swizzle(v);
  add_limits(v);
  add_strides(v);
  add_hints(v);
  add_swizzle_offset(v);
  add_scope(v); // the solo cases, last
  // PROBE_ONLY=8 keeps the probes whose number is 8 (the children read it too: they index
  // the same list).
  if (const char* only = std::getenv("PROBE_ONLY"); only != nullptr && *only != '\0') {
    const std::string want = std::string(only) + " ";
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](const Case& c) { return c.probe.rfind(want, 0) != 0; }),
            v.end());
  }
  return v;
}

} // namespace probes
