// The lowering of an `.im2col` tensor load (emitter/lower/select_bulk.cpp): the mode
// qualifier, the coordinates innermost first, the offsets operand after the mbarrier
// (`.b16`, innermost first, braced even alone; an immediate as written, a register narrowed
// by cvt.u16.u32), assembled by ptxas for sm_90 where ptxas is found. Expected lines are
// written by hand from the PTX ISA's form of cp.async.bulk.tensor.

#include "lower_harness.hpp"

#include <string>

namespace unit_lower_im2col {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

/// A 4-D NHWC uint8 tensor (2 images of 8 x 8 pixels of 16 channels) with an im2col map,
/// and a shared tile of its 32 pixels; a 3-D NWC one of 4 images of 8 pixels.
constexpr std::string_view kIm2col = R"TOML([kernel]
name = "k"
block = 32

[tensor.A]
space = "global"
shape = [2, 8, 8, 16]
dtype = "uint8"

[tensor.A.map]
mode = "im2col"
lower_corner = [-1, -1]
upper_corner = [-1, -1]
channels = 16
pixels = 32

[tensor.W]
space = "global"
shape = [4, 8, 16]
dtype = "uint8"

[tensor.W.map]
mode = "im2col"
lower_corner = [0]
upper_corner = [0]
channels = 16
pixels = 32

[tensor.S]
space = "shared"
shape = [32, 16]
dtype = "uint8"
align = 128

[tensor.bar]
space = "shared"
shape = [1]
dtype = "uint64"

[[op]]
op = "tensor_load"
tensor = "A"
coords = [1, -1, -1, 0]
offsets = ["tid", 2]
dst = 'S'
barrier = 'bar.sub[0]'
pred = "tid == 0"

[[op]]
op = "tensor_load"
tensor = "W"
coords = [0, 0, 0]
offsets = [3]
dst = 'S'
barrier = 'bar.sub[0]'
pred = "tid == 0"
)TOML";

} // namespace

TEST_CASE("an im2col load: .im2col, coordinates and offsets innermost first" *
          doctest::test_suite("ptxas")) {
  const ptx::Module m = lowered(std::string(kIm2col), unchecked_sm90());
  CHECK(instructions(m) == "mov.u32 %r1, %tid.x;\n"
                           "setp.eq.u32 %p1, %r1, 0;\n"
                           "mov.u32 %r2, smem_S;\n"
                           "mov.b64 %rd1, map_A;\n"
                           "cvta.param.u64 %rd2, %rd1;\n"
                           "mov.u32 %r3, smem_bar;\n"
                           "cvt.u16.u32 %rs1, %r1;\n"
                           "@%p1 cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::"
                           "complete_tx::bytes [%r2], [%rd2, {0, -1, -1, 1}], [%r3], {2, %rs1};\n"
                           "mov.b64 %rd3, map_W;\n"
                           "cvta.param.u64 %rd4, %rd3;\n"
                           "@%p1 cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::"
                           "complete_tx::bytes [%r2], [%rd4, {0, 0, 0}], [%r3], {3};\n"
                           "ret;\n");
  assembles(m);
}

} // namespace unit_lower_im2col
