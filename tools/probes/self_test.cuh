// `probe --self-test`: the host-side analysis checked on dumps synthesized from
// known layouts, so a wrong decoder is found here, not in a device run.
#pragma once
#include "cases_swizzle.cuh"

#include <cstdio>
#include <string>
#include <vector>

namespace probes {

/// A dump in which chunk (r, j) of a box of `rows` x `inner` bytes sits at
/// byte `at(r, j)`, the rest sentinel.
template <class At>
std::vector<std::uint8_t> synth_dump(unsigned rows, unsigned inner, At at) {
  std::vector<std::uint8_t> d(kSwzDump, kSentinelByte);
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned j = 0; j < inner / 16; ++j)
      for (unsigned w = 0; w < 4; ++w) {
        const std::uint32_t t = tag(r, 4 * j + w);
        std::memcpy(&d[at(r, j) + 4 * w], &t, 4);
      }
  return d;
}

inline int self_test() {
  int failures = 0;
  auto expect = [&](const std::string& what, const std::string& got, const std::string& want) {
    if (got == want)
      return;
    ++failures;
    std::printf("self-test FAIL %s:\n  got  %s\n  want %s\n", what.c_str(), got.c_str(),
                want.c_str());
  };
  const std::string pad_swz = "padded rows, chunk at swz(r*span+16j)";
  const std::string pad_xor = "padded rows, chunk j^(r%(span/16))";
  const std::string pack_swz = "packed rows, chunk at swz(r*inner+16j)";
  const std::string pack = "packed rows, unswizzled";

  // 128B swizzle, 64-byte rows padded to 128: both padded models agree.
  auto d =
      synth_dump(kSwzRows, 64, [](unsigned r, unsigned j) { return r * 128 + 16 * (j ^ (r % 8)); });
  expect("128B narrow padded", matching_models(chunk_positions(d, kSwzRows, 4), 128, 64),
         pad_swz + " = " + pad_xor);
  expect("128B narrow extent", std::to_string(written_extent(d)),
         std::to_string(15 * 128 + 16 * 7 + 16));
  // 64B swizzle, 32-byte rows padded to 64, XOR from address bits 7-8 (r / 2).
  d = synth_dump(kSwzRows, 32,
                 [](unsigned r, unsigned j) { return r * 64 + 16 * (j ^ (r / 2 % 4)); });
  expect("64B narrow, address swizzle", matching_models(chunk_positions(d, kSwzRows, 2), 64, 32),
         pad_swz);
  // The same box packed (32-byte rows) and swizzled by address.
  d = synth_dump(kSwzRows, 32,
                 [](unsigned r, unsigned j) { return swizzle_addr(r * 32 + 16 * j, 64); });
  expect("64B narrow packed", matching_models(chunk_positions(d, kSwzRows, 2), 64, 32), pack_swz);
  // Unswizzled control.
  d = synth_dump(kSwzRows, 128, [](unsigned r, unsigned j) { return r * 128 + 16 * j; });
  expect("no swizzle", matching_models(chunk_positions(d, kSwzRows, 8), 0, 128),
         pack_swz + " = " + pack);
  // A chunk missing and one landed twice.
  d = synth_dump(2, 32, [](unsigned r, unsigned j) { return r * 32 + 16 * j; });
  std::memcpy(&d[4096], &d[16], 16);
  std::memset(&d[32], kSentinelByte, 16);
  const auto pos = chunk_positions(d, 2, 2);
  expect("missing/twice", std::to_string(pos[0][1]) + "," + std::to_string(pos[1][0]), "-2,-1");
  expect("swizzle_addr 128B", std::to_string(swizzle_addr(3 * 128 + 16, 128)),
         std::to_string(3 * 128 + 16 * (1 ^ 3)));

  // The unswizzled rule and the word description: a box across the corner.
  Map2d m = small_u32(16, 8, 4, 4);
  const auto g = tagged_image(m.h, m.pitch);
  auto want = expect_load(m, g, 14, 6);
  expect("corner box", describe_words(want, want.size() / 4), "r6:c14..15 Zx2 r7:c14..15 Zx10");
  want = expect_load(m, g, 0, -2);
  want.resize(want.size() + 8, kSentinelByte);
  expect("rows above", describe_words(want, want.size() / 4), "Zx8 r0:c0..3 r1:c0..3 Sx2");
  std::vector<std::uint8_t> strided(16, 0);
  for (unsigned i = 0; i < 4; ++i) {
    const std::uint32_t t = tag(14, 32 + 2 * i);
    std::memcpy(&strided[4 * i], &t, 4);
  }
  expect("stride 2", describe_words(strided, 4), "r14:c32..38/2");

  // A store across the corner writes only the in-bounds elements.
  std::vector<std::uint8_t> src(m.box0 * m.box1 * 4, 0x11);
  const auto img = expect_store(m, g, src, 14, 6);
  int changed = 0;
  for (std::size_t k = 0; k < img.size(); ++k)
    changed += img[k] != g[k];
  expect("corner store bytes", std::to_string(changed), std::to_string(2 * 2 * 4));
  expect("compare equal", compare(g, g, false), "bytes as rule");

  std::printf("self-test: %s (%d failure%s)\n", failures ? "FAILED" : "ok", failures,
              failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}

} // namespace probes
