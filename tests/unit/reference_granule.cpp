// The CPU reference's hazard state per granule of a shared tensor (driver/reference/
// ref_state.hpp, Buffer::shift) and its rows moved whole, against the naive path (one byte
// per granule, element by element), which stays the oracle. The corpus comparison is in
// reference_affine.cpp; these kernels aim at the two places where exactness takes care:
//  - a shared tensor written by 16-byte chunks and read element by element through a
//    transposed view: the reads do not cover whole 16-byte granules, so they split into
//    4-byte ones, each with the state of the one it was part of; counts are per byte;
//  - a row copied from shared to global as one batch (all reads, then all writes), where the
//    naive order alternates: an undefined byte written out at element 0 is found before a
//    read without a barrier at element 1.

#include "driver/reference/reference.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"
#include "reference_difference.hpp"

#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_granule {

namespace {

using namespace ptxgen;

/// Both paths on the spec; their difference ("" when none) and the fast path's output.
std::string fast_vs_naive(const std::string& toml, driver::ReferenceOutput& fast) {
  auto loaded = driver::load_spec_text(toml, "granule.toml");
  REQUIRE_MESSAGE(loaded, loaded.diagnostics.format_all());
  const tile::Kernel& k = **loaded.value;
  driver::ReferenceInput in;
  in.kernel = &k;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      in.global[t->tensor.name] = driver::initial_bytes(*t);
  fast = driver::evaluate_reference(in);
  in.fast = false;
  return reference_test::difference(fast, driver::evaluate_reference(in));
}

bool has(const driver::ReferenceOutput& out, DiagId id, const std::string& text) {
  for (const auto& f : out.findings)
    if (f.id == id && f.message.find(text) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST_CASE("reference granules: chunks written, elements read transposed without a barrier") {
  // 8 threads each land one 32-byte row of S (two 16-byte chunks) and, with no cta_sync,
  // read column tid: 7 of its 8 elements were written by other threads.
  driver::ReferenceOutput fast;
  const std::string diff = fast_vs_naive(R"spec([kernel]
name = "k"
grid = 2
block = 8

[tensor.A]
space = "global"
shape = [8, 8]
dtype = "float32"
init = "random(5)"

[tensor.B]
space = "global"
shape = [8, 8]
dtype = "float32"
output = true

[tensor.S]
space = "shared"
shape = [8, 8]
dtype = "float32"

[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = 'S.rearrange("r (c v) -> r c v", v=4).sub[tid, :, :]'
src = 'A.rearrange("r (c v) -> r c v", v=4).sub[tid, :, :]'
chunk_bytes = 16

[[op]]
op = "wait_all"

[[op]]
op = "copy"
dst = 'B.sub[tid, :]'
src = 'S.rearrange("r c -> c r").sub[tid, :]'

)spec",
                                         fast);
  CHECK_MESSAGE(diff.empty(), "fast and naive differ in " << diff);
  // 2 CTAs x 8 threads x 7 elements x 4 bytes.
  CHECK(has(fast, DiagId::check_read_without_sync, "(448 times in all)"));
}

TEST_CASE("reference granules: a row's undefined byte out before a later element's race") {
  // Thread 1 (the last) writes element 1 of S; thread 0 then copies all of S to B: element 0
  // is undefined (written out first), element 1 is read without a barrier.
  driver::ReferenceOutput fast;
  const std::string diff = fast_vs_naive(R"spec([kernel]
name = "k"
grid = 1
block = 2

[tensor.B]
space = "global"
shape = [2, 4]
dtype = "float32"
output = true

[tensor.S]
space = "shared"
shape = [4]
dtype = "float32"

[[op]]
op = "fill"
dst = "S.sub[1:2]"
pattern = "0x11"

[[op]]
op = "copy"
dst = "B.sub[tid, :]"
src = "S"

)spec",
                                         fast);
  CHECK_MESSAGE(diff.empty(), "fast and naive differ in " << diff);
  REQUIRE(fast.findings.size() >= 2);
  CHECK(fast.findings[0].id == DiagId::check_uninitialised_to_global);
  CHECK(fast.findings[1].id == DiagId::check_read_without_sync);
}

} // namespace unit_reference_granule
