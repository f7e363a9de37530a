// A 3-D launch end to end on the simulator: a spec with grid [2, 1, 3] and
// block [16, 4, 2] goes through the conformance run (emit, ptxas, simulator
// with the kernel's grid_dim and block_dim, reference, byte comparison). The
// lowering forms tid and bid from %tid.x/y/z and %ctaid.x/y/z, and the
// copy-out transposes the block (row tid.x * 8 + tid.y * 2 + tid.z), so a
// simulator that got any axis or the linear order wrong, or a launch
// flattened to x, fails the comparison.

#include "driver/support/temp_dir.hpp"
#include "mutation_harness.hpp"

#include <fstream>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_launch_3d {

namespace {

using namespace ptxgen::test::mutation;

const char* const block_3d_spec = R"(
[kernel]
name = "block3d"
grid = [2, 1, 3]
block = [16, 4, 2]

[tensor.A]
space = "global"
shape = [6, 128, 16]
dtype = "uint8"
init = "arange % 251"

[tensor.B]
space = "global"
shape = [6, 128, 16]
dtype = "uint8"
output = true

[tensor.s]
space = "shared"
shape = [128, 16]
dtype = "uint8"

[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = "s.sub[tid, :]"
src = "A.sub[bid, tid, :]"
chunk_bytes = 16

[[op]]
op = "commit_group"

[[op]]
op = "wait_group"
n = 0

[[op]]
op = "cta_sync"

[[op]]
op = "copy"
dst = "B.sub[bid, tid.x * 8 + tid.y * 2 + tid.z, :]"
src = "s.sub[(tid + 1) % 128, :]"
)";

} // namespace

TEST_CASE("a 3-D grid and block run on the simulator and equal the reference") {
  auto dir = ptxgen::driver::TempDir::create("ptxgen-sim3d-");
  REQUIRE_MESSAGE(dir, dir.error());
  auto spec = dir->path() / "block3d.toml";
  {
    std::ofstream out(spec);
    out << block_3d_spec;
    REQUIRE(out.good());
  }
  const std::string ptx = emitted_ptx(spec);
  // A launch of another shape fails on the GPU, so the entry states all three.
  CHECK(count_of(ptx, "\n.reqntid 16, 4, 2\n") == 1);
  auto c = run_on_sim(spec, ptx);
  CHECK(c.status == CaseResult::Status::pass);
}

} // namespace unit_sim_launch_3d
