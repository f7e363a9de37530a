// The reference's hazard findings and notes (driver/reference/hazards, evaluator_shared.cpp), keyed
// on their IDs: kernels are written as spec text (loops, stages), loaded, and run on the
// reference with their tensors' initial bytes. Each expected finding is worked out by hand
// from the pipeline's group accounting in the comment next to it.
#include "driver/reference/reference.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_hazards {

namespace {

namespace tile = ptxgen::tile;
using ptxgen::DiagId;
using ptxgen::Severity;
using ptxgen::driver::evaluate_reference;
using ptxgen::driver::ReferenceFinding;
using ptxgen::driver::ReferenceInput;
using ptxgen::driver::ReferenceOutput;

/// 128 threads in 2 CTAs, A and B global (2, 16, 128, 16) uint8, sA shared (STAGES, 128, 16),
/// a runtime trip count k_tiles = 8; then the ops.
std::string spec(int stages, const std::string& ops) {
  return R"(
[kernel]
name = "k"
grid = [2, 1]
block = [32, 4]

[param.k_tiles]
dtype = "u32"
value = 8
range = [1, 16]

[tensor.A]
space = "global"
shape = [2, 16, 128, 16]
dtype = "uint8"
init = "arange % 251"

[tensor.B]
space = "global"
shape = [2, 16, 128, 16]
dtype = "uint8"
output = true

[tensor.sA]
space = "shared"
shape = [)" +
         std::to_string(stages) +
         R"(, 128, 16]
dtype = "uint8"
)" + ops;
}

std::string op(const std::string& body) {
  return "\n[[op]]\n" + body + "\n";
}
std::string for_op(const std::string& var, const std::string& start, const std::string& stop) {
  return op("op = \"for\"\nvar = \"" + var + "\"\nstart = " + start + "\nstop = " + stop);
}
std::string end_op() {
  return op("op = \"end\"");
}
std::string commit() {
  return op("op = \"commit_group\"");
}
std::string wait(int n) {
  return op("op = \"wait_group\"\nn = " + std::to_string(n));
}
std::string sync() {
  return op("op = \"cta_sync\"");
}
/// A cp.async of this thread's 16-byte row of tile `tile` into `stage`, when `pred` holds.
std::string load(const std::string& stage, const std::string& tile_index,
                 const std::string& pred = "") {
  std::string s = "op = \"apply\"\nopcode = \"cp.async.cg.shared.global\"\ndst = \"sA.sub[" +
                  stage + ", tid, :]\"\nsrc = \"A.sub[bid, " + tile_index +
                  ", tid, :]\"\nchunk_bytes = 16";
  if (!pred.empty()) {
    s += "\npred = \"" + pred + "\"";
  }
  return op(s);
}
/// B's row of tile k <- the next thread's row of `stage` (a read of another thread's bytes).
std::string consume(const std::string& stage) {
  return op("op = \"copy\"\ndst = \"B.sub[bid, k, tid, :]\"\nsrc = \"sA.sub[" + stage +
            ", (tid + 1) % 128, :]\"");
}

/// The 3-stage, prefetch-distance-2 pipeline with one barrier per iteration; the steady
/// state's wait is `wait_group n`.
std::string pipeline3(int n) {
  return spec(3, for_op("s", "0", "2") + load("s", "s", "s < k_tiles") + commit() + end_op() +
                     for_op("k", "0", "\"k_tiles\"") + wait(n) + sync() + consume("k % 3") +
                     load("(k + 2) % 3", "min(k + 2, 15)", "k + 2 < k_tiles") + commit() +
                     end_op() + wait(0));
}

/// The 3-stage pipeline that refills the stage it has just read (tile k+3 into k % 3), with
/// or without the barrier between the read and the refill.
std::string refill3(bool barrier) {
  return spec(3, for_op("s", "0", "3") + load("s", "s", "s < k_tiles") + commit() + end_op() +
                     for_op("k", "0", "\"k_tiles\"") + wait(2) + sync() + consume("k % 3") +
                     (barrier ? sync() : "") + load("k % 3", "min(k + 3, 15)", "k + 3 < k_tiles") +
                     commit() + end_op() + wait(0));
}

struct Run {
  std::unique_ptr<tile::Kernel> kernel;
  ReferenceOutput out;
};

Run run_text(const std::string& text) {
  auto loaded = ptxgen::driver::load_spec_text(text, "hazard.toml");
  INFO(loaded.diagnostics.format_all());
  REQUIRE(loaded);
  Run r;
  r.kernel = std::move(*loaded.value);
  ReferenceInput in;
  in.kernel = r.kernel.get();
  for (const auto& t : r.kernel->tensors) {
    if (t->tensor.space == tile::Space::global) {
      in.global[t->tensor.name] = ptxgen::driver::initial_bytes(*t);
    }
  }
  r.out = evaluate_reference(in);
  return r;
}

std::string all_findings(const ReferenceOutput& out) {
  std::string s;
  for (const auto& f : out.findings) {
    s += "[" + std::string(ptxgen::name(f.id)) + "] op " + std::to_string(f.op) + ": " + f.message +
         "\n";
  }
  return s;
}

std::vector<DiagId> ids(const ReferenceOutput& out) {
  std::vector<DiagId> v;
  for (const auto& f : out.findings) {
    v.push_back(f.id);
  }
  return v;
}

const ReferenceFinding* find(const ReferenceOutput& out, DiagId id) {
  auto it = std::find_if(out.findings.begin(), out.findings.end(),
                         [&](const ReferenceFinding& f) { return f.id == id; });
  return it == out.findings.end() ? nullptr : &*it;
}

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

/// The index of the n-th (0-based) op of `Body` in the kernel.
template <class Body>
std::size_t op_index(const tile::Kernel& k, int n = 0) {
  for (std::size_t i = 0; i < k.ops.size(); ++i) {
    if (std::holds_alternative<Body>(k.ops[i].body) && n-- == 0) {
      return i;
    }
  }
  return k.ops.size();
}

TEST_CASE("hazards: a 3-stage pipeline with wait_group 1 (S-2) is clean, no note either") {
  const Run r = run_text(pipeline3(1));
  INFO(all_findings(r.out));
  CHECK(r.out.findings.empty());
}

TEST_CASE("hazards: wait_group 2 (S-1) in a 3-stage pipeline reads a pending stage") {
  const Run r = run_text(pipeline3(2));
  INFO(all_findings(r.out));
  const ReferenceFinding* f = find(r.out, DiagId::check_read_pending);
  REQUIRE(f != nullptr);
  CHECK(f->op == op_index<tile::CopyOp>(*r.kernel));
  CHECK(f->severity == Severity::error);
  // The first instance: CTA 0, thread 0 in iteration k=0 reads thread 1's row of stage 0
  // (bytes 16.. of sA, element (0,1,0)), which the prologue's copy by thread 1 will write.
  CHECK(has(f->message, "CTA 0 thread 0 (k=0)"));
  CHECK(has(f->message, "byte 16 of 'sA' (element (0,1,0))"));
  CHECK(has(f->message, "op " + std::to_string(op_index<tile::ApplyOp>(*r.kernel) + 1) +
                            "'s copy by thread 1"));
  // Thread 1's wait_group 2 ran with 2 groups committed (tiles 0 and 1): the count that
  // completes tile 0's group there is 1.
  CHECK(has(f->message, "(wait_group 2), left its newest 2 groups pending: wait_group 1 there"));
}

TEST_CASE("hazards: a refill without the barrier after the read is a write after read") {
  {
    const Run r = run_text(refill3(true));
    INFO(all_findings(r.out));
    CHECK(r.out.findings.empty());
  }
  const Run r = run_text(refill3(false));
  INFO(all_findings(r.out));
  // Only the refill: the read itself follows the wait and the barrier.
  REQUIRE(ids(r.out) == std::vector<DiagId>{DiagId::check_refill_without_barrier});
  const ReferenceFinding& f = r.out.findings[0];
  CHECK(f.op == op_index<tile::ApplyOp>(*r.kernel, 1));
  // Thread 0's refill of its row of stage 0 (bytes 0..15) in iteration k=0: thread 127 read
  // that row (its (tid + 1) % 128 is 0) at the copy, and no cta_sync came since.
  CHECK(has(f.message, "CTA 0 thread 0 (k=0) issues a copy into byte 0 of 'sA' (element (0,0,0))"));
  CHECK(has(f.message,
            "read by thread 127 at op " + std::to_string(op_index<tile::CopyOp>(*r.kernel) + 1)));
}

TEST_CASE("hazards: a store into bytes another thread read in the same phase is a refill too") {
  // Thread t reads row t+1 of stage 0, then fills its own row: thread t-1 read it.
  const std::string ops = op("op = \"fill\"\ndst = \"sA.sub[0, tid, :]\"\npattern = [1]") + sync() +
                          for_op("k", "0", "1") + consume("0") +
                          op("op = \"fill\"\ndst = \"sA.sub[0, tid, :]\"\npattern = [2]") +
                          end_op();
  const Run r = run_text(spec(1, ops));
  INFO(all_findings(r.out));
  REQUIRE(ids(r.out) == std::vector<DiagId>{DiagId::check_refill_without_barrier});
  CHECK(r.out.findings[0].op == op_index<tile::FillOp>(*r.kernel, 1));
  CHECK(has(r.out.findings[0].message, "CTA 0 thread 0 (k=0) writes byte 0 of 'sA'"));
}

TEST_CASE("hazards: two pending copies into the same stage are found at the second issue") {
  // Three tiles prefetched into a ring of two stages: tile 2 goes into stage 0 while tile 0's
  // copy into it is pending.
  const std::string ops =
      for_op("s", "0", "3") + load("s % 2", "s") + commit() + end_op() + op("op = \"wait_all\"");
  const Run r = run_text(spec(2, ops));
  INFO(all_findings(r.out));
  REQUIRE(ids(r.out) == std::vector<DiagId>{DiagId::check_pending_overlap});
  CHECK(r.out.findings[0].op == op_index<tile::ApplyOp>(*r.kernel));
  CHECK(has(r.out.findings[0].message,
            "CTA 0 thread 0 (s=2) issues a copy into byte 0 of 'sA' (element (0,0,0))"));
  // One copy per stage is fine.
  const Run ok = run_text(spec(3, for_op("s", "0", "3") + load("s", "s") + commit() + end_op() +
                                      op("op = \"wait_all\"")));
  INFO(all_findings(ok.out));
  CHECK(ok.out.findings.empty());
}

TEST_CASE("hazards: a wait stricter than needed is a note naming the count that would do") {
  const std::string path = PTXGEN_SOURCE_DIR "/tests/data/reference/pipeline3_wait_stricter.toml";
  auto loaded = ptxgen::driver::load_spec_file(path);
  INFO(loaded.diagnostics.format_all());
  REQUIRE(loaded);
  const tile::Kernel& k = **loaded.value;
  ReferenceInput in;
  in.kernel = &k;
  for (const auto& t : k.tensors) {
    if (t->tensor.space == tile::Space::global) {
      in.global[t->tensor.name] = ptxgen::driver::initial_bytes(*t);
    }
  }
  const ReferenceOutput out = evaluate_reference(in);
  INFO(all_findings(out));
  // Valid: no problem; one note, at the loop's wait_group 0 (not at the drain after it).
  CHECK(out.problems.empty());
  REQUIRE(ids(out) == std::vector<DiagId>{DiagId::check_wait_stricter});
  CHECK(out.findings[0].severity == Severity::note);
  CHECK(out.findings[0].op == op_index<tile::WaitGroupOp>(k, 0));
  CHECK(has(out.findings[0].message, "wait_group 1 would do"));
  // Through findings_as_diagnostics: a note, which does not make the spec invalid.
  const auto ds = ptxgen::driver::findings_as_diagnostics(k, out);
  CHECK(ds.has(DiagId::check_wait_stricter));
  CHECK_FALSE(ds.has_errors());
}

TEST_CASE("hazards: an empty commit is a group of its own in the wait note's accounting") {
  // One copy in group 0, then an empty group 1; the read needs group 0 only, so wait_group 1
  // (all but the newest, empty, group) would do. Were the empty commit no group, group 0
  // would be the newest and wait_group 0 the only wait that does.
  const std::string read_back = op("op = \"copy\"\ndst = \"B.sub[bid, 0, tid, :]\"\n"
                                   "src = \"sA.sub[0, tid, :]\"");
  const Run r = run_text(spec(1, load("0", "0") + commit() + commit() + wait(0) + read_back));
  INFO(all_findings(r.out));
  REQUIRE(ids(r.out) == std::vector<DiagId>{DiagId::check_wait_stricter});
  CHECK(has(r.out.findings[0].message, "wait_group 1 would do"));
  // No wait follows: the note names the end of the kernel, and promises no next wait.
  CHECK(has(r.out.findings[0].message, "before the end of the kernel"));
  CHECK_FALSE(has(r.out.findings[0].message, "next wait"));
  // Without the empty commit the wait is exactly right.
  const Run exact = run_text(spec(1, load("0", "0") + commit() + wait(0) + read_back));
  INFO(all_findings(exact.out));
  CHECK(exact.out.findings.empty());
}

TEST_CASE("hazards: a wait whose groups are read after a looser next wait must stay") {
  // wait_group 0 completes group 0; the next wait is wait_group 1 with group 1 newer, so it
  // would complete group 0 too: the first wait could leave it (wait_group 1 would do) only if
  // nothing reads it in between. Here the read comes after the second wait: a note.
  const std::string read_back = op("op = \"copy\"\ndst = \"B.sub[bid, 0, tid, :]\"\n"
                                   "src = \"sA.sub[0, tid, :]\"");
  const Run r = run_text(spec(2, load("0", "0") + commit() + wait(0) + load("1", "1") + commit() +
                                     wait(1) + read_back + wait(0)));
  INFO(all_findings(r.out));
  REQUIRE(ids(r.out) == std::vector<DiagId>{DiagId::check_wait_stricter});
  CHECK(r.out.findings[0].op == op_index<tile::WaitGroupOp>(*r.kernel, 0));
  // wait_group 1 completes nothing there (1 group committed): the wait can go.
  CHECK(has(r.out.findings[0].message, "wait_group 1 would do: it would complete nothing"));
  CHECK(has(r.out.findings[0].message, "the next wait completes the rest"));
  // The same with the read before the second wait: the first wait is needed as it is.
  const Run exact = run_text(spec(2, load("0", "0") + commit() + wait(0) + read_back +
                                         load("1", "1") + commit() + wait(1) + wait(0)));
  INFO(all_findings(exact.out));
  CHECK(exact.out.findings.empty());
}

TEST_CASE("hazards: what the next wait would leave pending must stay completed") {
  const std::string read_back = op("op = \"copy\"\ndst = \"B.sub[bid, 0, tid, :]\"\n"
                                   "src = \"sA.sub[0, tid, :]\"");
  // Nothing reads the bytes of group 0, but the end of the kernel completes nothing: the
  // only wait must complete it (wait_group 1 would leave it pending to the end).
  const Run end = run_text(spec(1, load("0", "0") + commit() + wait(0)));
  INFO(all_findings(end.out));
  CHECK(end.out.findings.empty());
  // The read of group 0 comes after the second wait, wait_group 2, which completes nothing
  // (2 groups committed): the first wait must complete group 0 itself.
  const Run next = run_text(spec(2, load("0", "0") + commit() + wait(0) + load("1", "1") +
                                        commit() + wait(2) + read_back + wait(0)));
  INFO(all_findings(next.out));
  CHECK(next.out.findings.empty());
}

TEST_CASE("hazards: iterations committing different numbers of groups are a note") {
  // Iteration i of the outer loop commits i groups (the inner loop runs i times).
  const std::string ops = for_op("i", "0", "3") + for_op("j", "0", "\"i\"") + commit() + end_op() +
                          end_op() + op("op = \"wait_all\"");
  const Run r = run_text(spec(1, ops));
  INFO(all_findings(r.out));
  REQUIRE(ids(r.out) == std::vector<DiagId>{DiagId::check_loop_commit_count});
  CHECK(r.out.findings[0].severity == Severity::note);
  CHECK(r.out.findings[0].op == 0);
  CHECK(has(r.out.findings[0].message, "(i=1) commits 1, (i=0) committed 0"));
  CHECK(r.out.problems.empty());
  // A fixed inner trip count: every iteration commits the same.
  const Run same = run_text(spec(1, for_op("i", "0", "3") + for_op("j", "0", "2") + commit() +
                                        end_op() + end_op() + op("op = \"wait_all\"")));
  INFO(all_findings(same.out));
  CHECK(same.out.findings.empty());
}

} // namespace

} // namespace unit_reference_hazards
