// The simulator's `.im2col` tensor loads (driver/sim/cta_tensor.cpp): a hand-written one-thread
// kernel over a map stated through Launch::tensor_maps. The expected pixels are worked out here
// from the ISA's im2col mode: the walk from the filter base through the bounding box, wrapping
// to its lower corner and into the next image, each pixel read at its place plus the offset.
// And the map handle's rule: an instruction's mode is its map's (`.tile` through an im2col map,
// or `.im2col` through a tile map, is undefined behaviour). Checks key on FaultKind.

#include "driver/sim/simulator.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_im2col_sim {

using namespace ptxgen::sim;
namespace tile = ptxgen::tile;

namespace {

constexpr std::uint64_t tensor_base = 0x10000;
constexpr std::uint64_t out_base = 0x80000;
constexpr std::uint32_t kBytes = 6 * 16; // 6 pixels of 4 uint32 channels

/// One thread: a 3-D tensor load of `mode` (`im2col` with the offset 1, or `tile`) at
/// coordinates {c 0, w 1, n 0}, then the 96 loaded bytes copied to `out`.
std::string kernel_text(const std::string& mode) {
  const bool im2col = mode == "im2col";
  return std::string(".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(\n"
                     "\t.param .align 128 .b8 k_map[128],\n\t.param .u64 k_out\n)\n{\n"
                     "\t.reg .pred %p<4>;\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<32>;\n"
                     "\t.reg .b64 %rd<16>;\n\t.shared .align 1024 .b8 tile[1024];\n"
                     "\t.shared .align 8 .b8 bar[8];\n"
                     "\tmov.b64 %rd1, k_map;\n\tcvta.param.u64 %rd2, %rd1;\n"
                     "\tld.param.u64 %rd3, [k_out];\n\tmov.u32 %r10, tile;\n"
                     "\tmov.u32 %r11, bar;\n\tmov.u32 %r20, 0;\n\tmov.u16 %rs1, 1;\n"
                     "\tmbarrier.init.shared::cta.b64 [%r11], 1;\n"
                     "\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [%r11], ") +
         std::to_string(kBytes) + ";\n\tcp.async.bulk.tensor.3d.shared::cluster.global." + mode +
         ".mbarrier::complete_tx::bytes [%r10], [%rd2, {0, 1, 0}], [%r11]" +
         (im2col ? ", {%rs1}" : "") +
         ";\n$L_wait:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r11], 0;\n"
         "\t@!%p1 bra $L_wait;\n$L_copy:\n\tadd.u32 %r21, %r10, %r20;\n"
         "\tcvt.u64.u32 %rd4, %r20;\n\tadd.s64 %rd5, %rd3, %rd4;\n"
         "\tld.shared.u32 %r22, [%r21];\n\tst.global.u32 [%rd5], %r22;\n"
         "\tadd.u32 %r20, %r20, 4;\n\tsetp.lt.u32 %p2, %r20, " +
         std::to_string(kBytes) + ";\n\t@%p2 bra $L_copy;\n\tret;\n}\n";
}

/// N 2, W 4, C 4 of uint32 (16-byte pixels, 64-byte images); word i holds i * 7 + 1.
tile::TensorMapDesc nwc_map(tile::TensorMapMode mode) {
  tile::TensorMapDesc m;
  m.tensor = "A";
  m.dtype = tile::DType::uint32;
  m.global_dims = {2, 4, 4};
  m.global_strides = {64, 16};
  m.element_strides = {1, 1, 1};
  m.mode = mode;
  if (mode == tile::TensorMapMode::im2col)
    m.im2col = {{-1}, {-1}, 4, 6}; // box w = -1 .. 2; 4 channels, 6 pixels
  else
    m.box_dims = {1, 6, 4};
  return m;
}

struct Run {
  std::vector<std::uint8_t> tensor, out;
  std::vector<GlobalBuffer> mem;
  SimResult result;
};

void launch(Run& r, const std::string& mode, const tile::TensorMapDesc& m) {
  r.tensor.resize(2 * 4 * 4 * 4);
  for (std::uint32_t i = 0; i < 32; ++i) {
    const std::uint32_t w = i * 7 + 1;
    std::memcpy(r.tensor.data() + 4 * i, &w, 4);
  }
  r.out.assign(kBytes, 0xEE);
  r.mem = {{tensor_base, &r.tensor, "A"}, {out_base, &r.out, "out"}};
  Launch l;
  l.params = {0, out_base};
  TensorMapArg arg;
  arg.desc = m;
  arg.global_address = tensor_base;
  arg.param = 0;
  l.tensor_maps = {arg};
  l.max_instructions = 1'000'000;
  r.result = run(kernel_text(mode), "k", l, r.mem);
}

} // namespace

TEST_CASE("an .im2col load walks the box from the filter base, wraps, reads at the offset") {
  Run r;
  launch(r, "im2col", nwc_map(tile::TensorMapMode::im2col));
  INFO((r.result.fault ? r.result.fault->message : std::string()));
  REQUIRE_FALSE(r.result.fault.has_value());
  // Filter bases (n, w): (0, 1) (0, 2), past w = 2 the next image from the lower corner:
  // (1, -1) (1, 0) (1, 1) (1, 2). Offset 1 reads w + 1: pixels (0, 2) (0, 3) (1, 0) .. (1, 3),
  // pixel (n, w) being words n * 16 + w * 4 .. + 3.
  const std::uint32_t pixels[6] = {2, 3, 4, 5, 6, 7};
  for (std::uint32_t p = 0; p < 6; ++p)
    for (std::uint32_t c = 0; c < 4; ++c) {
      std::uint32_t got = 0;
      std::memcpy(&got, r.out.data() + 16 * p + 4 * c, 4);
      CAPTURE(p);
      CAPTURE(c);
      CHECK(got == (pixels[p] * 4 + c) * 7 + 1);
    }
}

TEST_CASE("the instruction's mode is its map's: .tile through an im2col map and back fault") {
  Run tile_through_im2col;
  launch(tile_through_im2col, "tile", nwc_map(tile::TensorMapMode::im2col));
  REQUIRE(tile_through_im2col.result.fault.has_value());
  CHECK(tile_through_im2col.result.fault->kind == FaultKind::undefined_behavior);
  Run im2col_through_tile;
  launch(im2col_through_tile, "im2col", nwc_map(tile::TensorMapMode::tile));
  REQUIRE(im2col_through_tile.result.fault.has_value());
  CHECK(im2col_through_tile.result.fault->kind == FaultKind::undefined_behavior);
}

} // namespace unit_im2col_sim
