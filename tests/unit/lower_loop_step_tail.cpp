// A constant loop whose step does not divide its span (start 0, stop 7, step 3: i = 0, 3,
// 6) unrolled runs on the simulator as the reference runs it: its trip count (3) rounds up,
// so neither the fully unrolled copy (unroll 4) nor the unrolled pass and its remainder
// (unroll 2) loses the last iteration. A loop that is not unrolled compares the variable
// with stop and needs no trip count. No corpus spec has such a loop, and the golden check
// only compares text; this runs it (emitter/lower/select_loops.cpp, unroll.cpp).
#include "mutation_harness.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>
#include <unistd.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_lower_loop_step_tail {

namespace {

namespace fs = std::filesystem;
namespace mt = ptxgen::test::mutation;

/// Rows i = 0, 3, 6 of A reach B through shared memory, in two loops over the same range:
/// one unrolled whole, one by 2 with a remainder.
constexpr const char* kSpec = R"([kernel]
name = "loop_step_tail"
grid = 1
block = 32

[tensor.A]
space = "global"
shape = [7, 32, 16]
dtype = "uint8"
init = "arange % 251"

[tensor.B]
space = "global"
shape = [7, 32, 16]
dtype = "uint8"
output = true

[tensor.S]
space = "shared"
shape = [7, 32, 16]
dtype = "uint8"

[[op]]
op = "for"
var = "i"
start = 0
stop = 7
step = 3
unroll = 4

[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = 'S.sub[i, tid, :]'
src = 'A.sub[i, tid, :]'
chunk_bytes = 16

[[op]]
op = "end"

[[op]]
op = "commit_group"

[[op]]
op = "wait_group"
n = 0

[[op]]
op = "for"
var = "i"
start = 0
stop = 7
step = 3
unroll = 2

[[op]]
op = "copy"
dst = 'B.sub[i, tid, :]'
src = 'S.sub[i, tid, :]'

[[op]]
op = "end"
)";

} // namespace

TEST_CASE(
    "lowering: an unrolled constant loop whose step does not divide its span keeps its last pass") {
  const fs::path dir =
      fs::temp_directory_path() / ("ptxgen_loop_step_tail_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path spec = dir / "loop_step_tail.toml";
  std::ofstream(spec) << kSpec;
  const auto c = mt::run_on_sim(spec, mt::emitted_ptx(spec));
  CHECK(c.status == ptxgen::driver::CaseResult::Status::pass);
  fs::remove_all(dir);
}

} // namespace unit_lower_loop_step_tail
