// Mutation tests of the end-to-end check (issue 5): take the PTX that ptxgen
// emits for a real spec, change ONE thing, run the mutated PTX on the
// simulator against the spec's independent reference, and assert that the
// check notices (a mismatch, a race or a fault). One mutation that is
// semantically neutral (.cg -> .ca on a 16-byte copy) must still pass, so the
// check is shown not to be trigger-happy.
//
// Expected first-difference bytes and difference counts are worked out by
// hand from the spec's init expression (and, for counts, by a naive loop over
// the tensor written here), never copied from a run.

#include "driver/support/temp_dir.hpp"
#include "mutation_harness.hpp"

#include <cstdint>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_mutation_sim {

namespace {

using namespace ptxgen::test::mutation;

/// The mismatch summary names how many elements of tensor B differ.
std::string differ_count(std::size_t n) {
  return "(" + std::to_string(n) + " element" + (n == 1 ? "" : "s") + " of B differ)";
}

/// A spec whose copy-out reads ANOTHER thread's shared row ((tid + 1) % 128):
/// the barrier between the cp.async wait and the copy-out is then essential.
/// In the corpus every thread reads back only bytes it copied itself, so a
/// dropped bar.sync there is harmless (see the test below).
const char* const cross_rows_spec = R"(
[kernel]
name = "cross_rows"
grid = 1
block = 128

[tensor.A]
space = "global"
shape = [128, 32]
dtype = "float16"
init = "arange % 97"

[tensor.B]
space = "global"
shape = [128, 32]
dtype = "float16"
output = true

[tensor.shared]
space = "shared"
shape = [128, 32]
dtype = "float16"

[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = 'shared.rearrange("(w t) (r v) -> w t r v", w=4, t=32, v=8)'
src = 'A.rearrange("(w t) (r v) -> w t r v", w=4, t=32, v=8)'
chunk_bytes = 16
scope = "cta"

[[op]]
op = "commit_group"

[[op]]
op = "wait_group"
n = 0

[[op]]
op = "cta_sync"

[[op]]
op = "copy"
dst = "B.sub[tid, :]"
src = "shared.sub[(tid + 1) % 128, :]"
)";

} // namespace

TEST_CASE("mutation: the unmutated PTX passes through the same override path") {
  // Without this the failures below could come from ptx_override itself.
  for (const char* spec : {"seed/copy_async.toml", "zero_fill/src_size_runtime.toml",
                           "zero_fill/src_size_16.toml", "predication/pred_tid_lt_100.toml",
                           "zero_fill/ignore_src_runtime.toml", "groups/two_groups_wait1.toml"}) {
    CAPTURE(spec);
    auto p = spec_path(spec);
    auto c = run_on_sim(p, emitted_ptx(p));
    CHECK(c.status == CaseResult::Status::pass);
  }
}

TEST_CASE("mutation: a cp.async destination off by one chunk is a race") {
  auto spec = spec_path("seed/copy_async.toml");
  // Repeat 1 now writes shared row bytes 32..47, which repeat 2 of the same
  // thread also writes while both are in flight: the order of the two writes
  // is undefined (and bytes 16..31 would keep their poison).
  auto ptx = mutate(emitted_ptx(spec), "cp.async.cg.shared.global [%r3+16]",
                    "cp.async.cg.shared.global [%r3+32]");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  CHECK(fault_of_kind(c, ptxgen::sim::FaultKind::race));
  REQUIRE(c.sim_race);
  CHECK(c.sim_race->kind == ptxgen::sim::RaceKind::pending_copies);
}

TEST_CASE("mutation: a cp.async source off by one chunk is a mismatch") {
  auto spec = spec_path("seed/copy_async.toml");
  // Repeat 1 reads A's bytes 32..47 of the row (columns 16..23) into columns 8..15.
  auto ptx = mutate(emitted_ptx(spec), "[%r3+16], [%rd3+16], 16;", "[%r3+16], [%rd3+32], 16;");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  REQUIRE(c.status == CaseResult::Status::mismatch);
  // B[0][8] = A[0][16] = 16.0 = float16 0x4c00 instead of 8.0 = 0x4800.
  CHECK(contains(c.detail, "element 8 (0,8): expected [00 48], got [00 4c]"));
  // Naively: B[t][8+j] = A[t][16+j] instead of A[t][8+j]; values (32t+c) % 97.
  std::size_t differ = 0;
  for (int t = 0; t < 128; ++t)
    for (int j = 0; j < 8; ++j)
      differ += (32 * t + 8 + j) % 97 != (32 * t + 16 + j) % 97;
  CHECK(contains(c.detail, differ_count(differ)));
}

TEST_CASE("mutation: a dropped cp.async (one repeat) is a mismatch") {
  auto spec = spec_path("seed/copy_async.toml");
  auto ptx = drop_line(emitted_ptx(spec), "[%r3+32], [%rd3+32], 16; // repeat 2");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  REQUIRE(c.status == CaseResult::Status::mismatch);
  // Columns 16..23 of every row stay poison; B[0][16] should be 16.0 = 0x4c00.
  CHECK(contains(c.detail, "element 16 (0,16): expected [00 4c], got [a5 a5]"));
  // 0xa5a5 is a negative float16, never one of A's values 0..96: all 128 * 8 differ.
  CHECK(contains(c.detail, differ_count(128 * 8)));
}

TEST_CASE("mutation: a misaligned cp.async destination faults") {
  auto spec = spec_path("seed/copy_async.toml");
  // A 16-byte copy to [row + 8] is not 16-byte aligned.
  auto ptx = mutate(emitted_ptx(spec), "cp.async.cg.shared.global [%r3+16]",
                    "cp.async.cg.shared.global [%r3+8]");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  CHECK(fault_of_kind(c, ptxgen::sim::FaultKind::misaligned_address));
}

TEST_CASE("mutation: a cp.async source past the end of A faults") {
  auto spec = spec_path("seed/copy_async.toml");
  // Repeat 3 reads row bytes 64..79: for thread 127 that is past A's 8192 bytes.
  auto ptx = mutate(emitted_ptx(spec), "[%rd3+48], 16;", "[%rd3+64], 16;");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  CHECK(fault_of_kind(c, ptxgen::sim::FaultKind::illegal_address));
}

TEST_CASE("mutation: a dropped cp.async.wait_group is a race") {
  auto spec = spec_path("seed/copy_async.toml");
  // The copy-out then reads the thread's own copies before they are waited for.
  auto ptx = drop_line(emitted_ptx(spec), "cp.async.wait_group 0;");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  CHECK(fault_of_kind(c, ptxgen::sim::FaultKind::race));
}

TEST_CASE("mutation: wait_group 0 -> wait_group 1 with two groups in flight is a race") {
  auto spec = spec_path("groups/two_groups_wait1.toml");
  // The emitted PTX waits with `wait_group 1` then `wait_group 0`; making the
  // second one `wait_group 1` leaves the second group (row bytes 32..63) pending.
  auto ptx = mutate(emitted_ptx(spec), "cp.async.wait_group 0;", "cp.async.wait_group 1;");
  REQUIRE(count_of(ptx, "cp.async.wait_group 1;") == 2);
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  CHECK(fault_of_kind(c, ptxgen::sim::FaultKind::race));
}

TEST_CASE("mutation: a dropped wait_all with three groups is a race") {
  auto spec = spec_path("groups/three_groups_wait_all.toml");
  auto ptx = drop_line(emitted_ptx(spec), "cp.async.wait_all;");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  CHECK(fault_of_kind(c, ptxgen::sim::FaultKind::race));
}

TEST_CASE("mutation: a dropped bar.sync before a cross-thread read is a race") {
  auto dir = ptxgen::driver::TempDir::create("ptxgen-mutation-");
  REQUIRE_MESSAGE(dir, dir.error());
  auto spec = dir->path() / "cross_rows.toml";
  {
    std::ofstream out(spec);
    out << cross_rows_spec;
    REQUIRE(out.good());
  }
  auto ptx = emitted_ptx(spec);
  CHECK(run_on_sim(spec, ptx).status == CaseResult::Status::pass);
  // Thread t reads row t+1, which thread t+1 copies: without the barrier the
  // read and the other thread's copy are in the same phase.
  auto c = run_on_sim(spec, drop_line(ptx, "bar.sync 0;"));
  CHECK(fault_of_kind(c, ptxgen::sim::FaultKind::race));
}

TEST_CASE("mutation: a dropped bar.sync where each thread reads only its own copies passes") {
  // Not a bug: cp.async.wait_group makes a thread's own copies visible to that
  // thread, and in copy_async every thread reads back exactly the row it
  // copied. The check must not call this wrong.
  auto spec = spec_path("seed/copy_async.toml");
  auto c = run_on_sim(spec, drop_line(emitted_ptx(spec), "bar.sync 0;"));
  CHECK(c.status == CaseResult::Status::pass);
}

TEST_CASE("mutation: .cg -> .ca on 16-byte copies is equivalent and still passes") {
  auto spec = spec_path("seed/copy_async.toml");
  // .ca and .cg differ only in caching (L1 or not); with cp-size 16 both are legal.
  auto ptx = mutate(emitted_ptx(spec), "cp.async.cg.", "cp.async.ca.", 4);
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  CHECK(c.status == CaseResult::Status::pass);
}

TEST_CASE("mutation: an inverted runtime guard is a mismatch") {
  auto spec = spec_path("predication/pred_tid_lt_100.toml");
  // Now threads 100..127 copy and 0..99 keep the 0xA5 sentinel.
  auto ptx = mutate(emitted_ptx(spec), "@%p1 cp.async", "@!%p1 cp.async");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  REQUIRE(c.status == CaseResult::Status::mismatch);
  // B[0][0] should be A[0] = 0 % 251 = 0.
  CHECK(contains(c.detail, "element 0 (0,0): expected [00], got [a5]"));
  // Naively: each uint8 element i (thread i / 16) is A = i % 251 on one side
  // and the sentinel 0xA5 = 165 on the other; equal only where A is 165.
  std::size_t differ = 0;
  for (int i = 0; i < 128 * 16; ++i)
    differ += i % 251 != 165;
  CHECK(contains(c.detail, differ_count(differ)));
}

TEST_CASE("mutation: a runtime src_size replaced by the immediate 16 is a mismatch") {
  auto spec = spec_path("zero_fill/src_size_runtime.toml");
  // Every thread now copies its whole row instead of tid % 17 bytes.
  auto ptx = mutate(emitted_ptx(spec), "16, %r4;", "16, 16;");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  REQUIRE(c.status == CaseResult::Status::mismatch);
  // Thread 0 copies 0 bytes: B[0][1] should be 0, now A[1] = 1 (B[0][0] is 0 either way).
  CHECK(contains(c.detail, "element 1 (0,1): expected [00], got [01]"));
  std::size_t differ = 0;
  for (int t = 0; t < 128; ++t)
    for (int b = 0; b < 16; ++b) {
      int a = (16 * t + b) % 251;
      int expected = b < t % 17 ? a : 0;
      differ += expected != a;
    }
  CHECK(contains(c.detail, differ_count(differ)));
}

TEST_CASE("mutation: src_size 16 -> 8 is a mismatch") {
  auto spec = spec_path("zero_fill/src_size_16.toml");
  auto ptx = mutate(emitted_ptx(spec), "], 16, 16;", "], 16, 8;");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  REQUIRE(c.status == CaseResult::Status::mismatch);
  // Bytes 8..15 of each row become zero; B[0][8] should be A[8] = 8 % 249 = 8.
  CHECK(contains(c.detail, "element 8 (0,8): expected [08], got [00]"));
  std::size_t differ = 0;
  for (int t = 0; t < 128; ++t)
    for (int b = 8; b < 16; ++b)
      differ += (16 * t + b) % 249 != 0; // init = "arange % 249"
  CHECK(contains(c.detail, differ_count(differ)));
}

TEST_CASE("mutation: a negated ignore-src predicate is a mismatch") {
  auto spec = spec_path("zero_fill/ignore_src_runtime.toml");
  // Even threads now zero their row, odd threads copy theirs.
  auto ptx = mutate(emitted_ptx(spec), "16, %p1;", "16, !%p1;");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  REQUIRE(c.status == CaseResult::Status::mismatch);
  // B[0][1] should be A[1] = 1.0f = 0x3f800000 (little-endian 00 00 80 3f); now zero.
  CHECK(contains(c.detail, "element 1 (0,1): expected [00 00 80 3f], got [00 00 00 00]"));
  // Naively: element i is (i % 509) on one side and 0.0f on the other.
  std::size_t differ = 0;
  for (int i = 0; i < 128 * 4; ++i)
    differ += i % 509 != 0;
  CHECK(contains(c.detail, differ_count(differ)));
}

} // namespace unit_mutation_sim
