// The reference names the role of each thread its race findings name (driver/reference/
// roles.hpp): the warps a pred selects and whether they produce or consume, and a ring
// pipeline's part. The kernels are the race corpus's warp-specialized and ring specs, and two
// small ones written here; each expected role is worked out by hand from the spec's block and
// preds in the comment next to it.
#include "driver/reference/reference.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_roles {

namespace {

namespace tile = ptxgen::tile;
using ptxgen::DiagId;
using ptxgen::driver::evaluate_reference;
using ptxgen::driver::ReferenceFinding;
using ptxgen::driver::ReferenceInput;
using ptxgen::driver::ReferenceOutput;

struct Run {
  std::unique_ptr<tile::Kernel> kernel;
  ReferenceOutput out;
};

Run run_loaded(ptxgen::Result<std::unique_ptr<tile::Kernel>> loaded) {
  INFO(loaded.diagnostics.format_all());
  REQUIRE(loaded);
  Run r;
  r.kernel = std::move(*loaded.value);
  ReferenceInput in;
  in.kernel = r.kernel.get();
  for (const auto& t : r.kernel->tensors)
    if (t->tensor.space == tile::Space::global)
      in.global[t->tensor.name] = ptxgen::driver::initial_bytes(*t);
  r.out = evaluate_reference(in);
  return r;
}

Run run_spec(const std::string& path) {
  return run_loaded(ptxgen::driver::load_spec_file(std::string(PTXGEN_SOURCE_DIR) + "/" + path));
}

/// The message of the first finding `id`; fails the test without one.
std::string message(const ReferenceOutput& out, DiagId id) {
  const auto it = std::find_if(out.findings.begin(), out.findings.end(),
                               [&](const ReferenceFinding& f) { return f.id == id; });
  REQUIRE(it != out.findings.end());
  return it->message;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

// Block 96: warp 0 is the producer (its thread 0 waits on empty, expects and loads: pred
// 'tid == 0'), warps 1 and 2 the consumers (pred 'warp >= 1', no thread of the producer's).
// Iteration k=1's copy into X by thread 32 (warp 1) meets thread 64's (warp 2) read of X at
// op 14 in k=0, with no barrier between.
TEST_CASE("reference roles: a refill in the warp-specialized ring names both consumer warps") {
  const Run r = run_spec("specs/races/ws_named_barrier_refill.toml");
  const std::string m = message(r.out, DiagId::check_refill_without_barrier);
  INFO(m);
  CHECK(has(m, "CTA 0 thread 32 (warp 1, the consumer warps 1-2: pred 'warp >= 1'; k=1) writes"));
  CHECK(has(m, "read by thread 64 (warp 2, the consumer warps 1-2: pred 'warp >= 1') at op 14"));
}

// The same kernel without named barrier 1: thread 32 (warp 1) reads the half of X that
// thread 64 (warp 2) wrote in the same iteration.
TEST_CASE("reference roles: a read without a barrier names the reader's and the writer's warps") {
  const Run r = run_spec("specs/races/ws_named_barrier_missing.toml");
  const std::string m = message(r.out, DiagId::check_read_without_sync);
  INFO(m);
  CHECK(has(m, "CTA 0 thread 32 (warp 1, the consumer warps 1-2: pred 'warp >= 1'; k=0) reads"));
  CHECK(has(m, "written by thread 64 (warp 2, the consumer warps 1-2: pred 'warp >= 1')"));
}

// Block 32: thread 0 expects and loads (pred 'tid == 0', and in the loop 'tid == 0 && k + 1 <
// 6', whose guard on the last tile is no part of the role): the producer, one thread. Its
// refill in k=1 meets thread 31's read of the stage, whose copy has no pred (no role).
TEST_CASE("reference roles: a producer's guarded pred names it by its thread part") {
  const Run r = run_spec("specs/races/ring_refill_without_empty_release.toml");
  const std::string m = message(r.out, DiagId::check_refill_without_barrier);
  INFO(m);
  CHECK(has(m, "CTA 0 thread 0 (warp 0, the producer: pred 'tid == 0 && k + 1 < 6'; k=1) issues"));
  CHECK(has(m, "read by thread 31 at op 10"));
}

// The unguarded copy has no pred: every thread runs it, so its thread has no role to name.
TEST_CASE("reference roles: an op without a pred names its thread alone") {
  const Run r = run_spec("specs/races/ws_producer_warp_copies.toml");
  const std::string m = message(r.out, DiagId::check_mbarrier_unwaited_read);
  INFO(m);
  CHECK(has(m, "CTA 0 thread 0 (k=0) reads byte 0 of 'S'"));
}

// A two-stage bulk ring whose consumer reads stage 1 - stage: in k=0 the consumers' stage is
// 0 (full.sub[0]) and they read stage 1, which the producer's refill (thread 0, the steady
// state's load of tile k + 1) is still writing.
TEST_CASE("reference roles: a ring pipeline's threads are named by their part and stage") {
  const Run r = run_spec("specs/races/pipeline_ring_consumer_reads_next_stage.toml");
  const std::string m = message(r.out, DiagId::check_mbarrier_unwaited_read);
  INFO(m);
  CHECK(has(m, "thread 0 (the pipeline's consumer of stage 0; "));
  CHECK(has(m, "by thread 0 (the pipeline's producer's refill) will write"));
}

// Block 256, two warpgroups, no producer: warpgroup 1 copies A into S, warpgroup 0 copies it out
// with no barrier between. Thread 0 (warp 0) reads byte 0, which thread 128 (warp 4) wrote.
TEST_CASE("reference roles: whole warpgroups are named as warpgroups") {
  const std::string spec = R"(
[kernel]
name = "wg"
grid = 1
block = 256

[tensor.A]
space = "global"
shape = [128]
dtype = "uint8"
init = "arange % 251"

[tensor.B]
space = "global"
shape = [128]
dtype = "uint8"
output = true

[tensor.S]
space = "shared"
shape = [128]
dtype = "uint8"

[[op]]
op = "copy"
dst = 'S.sub[tid % 128]'
src = 'A.sub[tid % 128]'
pred = "warp / 4 == 1"

[[op]]
op = "copy"
dst = 'B.sub[tid % 128]'
src = 'S.sub[tid % 128]'
pred = "warp / 4 == 0"
)";
  const Run r = run_loaded(ptxgen::driver::load_spec_text(spec, "wg.toml"));
  const std::string m = message(r.out, DiagId::check_read_without_sync);
  INFO(m);
  CHECK(has(m, "CTA 0 thread 0 (warp 0, warpgroup 0 (warps 0-3): pred 'warp / 4 == 0') reads"));
  CHECK(has(m, "written by thread 128 (warp 4, warpgroup 1 (warps 4-7): pred 'warp / 4 == 1')"));
}

} // namespace unit_reference_roles
