// The CPU reference's replay of CTAs (ReferenceInput::replay, driver/reference/cta_trace.hpp)
// against every CTA run with every check (replay = false), one CTA after the other:
//  - on every loadable spec of the corpus (races and faults included) both give the same
//    bytes, definedness and findings, with texts and counts, and the plain copies replay;
//  - a CTA whose shared accesses differ from the recorded CTA's (other bytes, fewer
//    iterations, a chunk its pred leaves out) runs with every check, and its findings are
//    the ones the checks find; the CTAs after it replay against the last CTA that found
//    nothing. The exact replay counts below are the CTAs whose traces match.

#include "driver/reference/reference.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"
#include "reference_difference.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_replay {

namespace {

using namespace ptxgen;
namespace fs = std::filesystem;

driver::ReferenceInput input(const tile::Kernel& k, bool replay) {
  driver::ReferenceInput in;
  in.kernel = &k;
  in.replay = replay;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      in.global[t->tensor.name] = driver::initial_bytes(*t);
  return in;
}

struct Both {
  driver::ReferenceOutput checked; ///< every CTA with every check
  driver::ReferenceOutput replayed;
};

Both both(const tile::Kernel& k) {
  return {driver::evaluate_reference(input(k, false)), driver::evaluate_reference(input(k, true))};
}

std::unique_ptr<tile::Kernel> load(const std::string& toml) {
  auto loaded = driver::load_spec_text(toml, "replay.toml");
  REQUIRE_MESSAGE(loaded, loaded.diagnostics.format_all());
  return std::move(*loaded.value);
}

/// 4 CTAs of 32 threads: A (4, 32, 4) uint32, B the same (the output), S (2, 32, 4) shared
/// (two 16-byte chunks per thread); the ops.
std::string kernel(const std::string& ops) {
  return R"spec([kernel]
name = "k"
grid = 4
block = 32

[tensor.A]
space = "global"
shape = [4, 32, 4]
dtype = "uint32"
init = "random(5)"

[tensor.B]
space = "global"
shape = [4, 32, 4]
dtype = "uint32"
output = true

[tensor.S]
space = "shared"
shape = [2, 32, 4]
dtype = "uint32"
)spec" + ops;
}

/// kernel() with one apply landing A's row bid (16 bytes per thread) in `landing`, guarded by
/// `pred` where given, a wait_all, and a copy of `from` into `into` (views with `tid`).
std::string land_then_copy(const std::string& landing, const std::string& pred,
                           const std::string& into, const std::string& from) {
  return kernel(R"spec(
[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = ")spec" + landing +
                R"spec("
src = "A.sub[bid, tid, :]"
chunk_bytes = 16
)spec" + (pred.empty() ? "" : "pred = \"" + pred + "\"\n") +
                R"spec(
[[op]]
op = "wait_all"

[[op]]
op = "copy"
dst = ")spec" + into +
                R"spec("
src = ")spec" + from +
                "\"\n");
}

} // namespace

TEST_CASE("reference: replayed CTAs == every CTA checked, on the corpus") {
  std::string err;
  std::size_t compared = 0;
  std::size_t replaying = 0;
  std::size_t differ = 0;
  const bool listed =
      reference_test::each_corpus_kernel(err, [&](const fs::path& spec, const tile::Kernel& k) {
        ++compared;
        const Both b = both(k);
        CHECK(b.checked.replayed == 0);
        if (b.replayed.replayed > 0)
          ++replaying;
        const std::string diff = reference_test::difference(b.checked, b.replayed);
        if (!diff.empty()) {
          MESSAGE(spec.string() << ": checked and replayed differ in " << diff);
          ++differ;
        }
      });
  REQUIRE_MESSAGE(listed, err);
  MESSAGE("compared " << compared << " specs, " << replaying << " replayed CTAs");
  CHECK(compared >= 100);
  CHECK(replaying >= 15); // most specs have one CTA, mbarriers or a tensor both read and written
  CHECK(differ == 0);
}

TEST_CASE("reference: the 1024 x 1024 copy replays every CTA but the first") {
  auto loaded = driver::load_spec_file(PTXGEN_SOURCE_DIR "/specs/large/copy_1024x1024_f32.toml");
  REQUIRE(loaded);
  const Both b = both(**loaded.value);
  CHECK(b.replayed.replayed == 31);
  CHECK(reference_test::difference(b.checked, b.replayed).empty());
  CHECK(b.replayed.global.at("B") == b.replayed.global.at("A"));
}

TEST_CASE("reference: a CTA reading other shared bytes runs with every check") {
  // CTA 2 copies the never-written half of S out: its finding; CTA 1 reads what CTA 0 read
  // (replayed); CTA 3 runs checked (CTA 2 found something, so nothing is recorded) and CTAs
  // after it would replay.
  const auto k = load(land_then_copy("S.sub[0, tid, :]", "", "B.sub[bid, tid, :]",
                                     "S.sub[bid / 2 * (1 - bid / 3), tid, :]"));
  const Both b = both(*k);
  CHECK(b.replayed.replayed == 1);
  CHECK(reference_test::difference(b.checked, b.replayed).empty());
  REQUIRE(b.replayed.findings.size() == 1);
  CHECK(b.replayed.findings.front().id == DiagId::check_uninitialised_to_global);
  CHECK(b.replayed.findings.front().message.find("CTA 2 thread 0") != std::string::npos);
  driver::ReferenceInput naive = input(*k, true);
  naive.fast = false; // the oracle
  CHECK(reference_test::difference(driver::evaluate_reference(naive), b.replayed).empty());
}

TEST_CASE("reference: a CTA landing its chunks elsewhere runs with every check") {
  // Odd CTAs land their chunks in S[1] but copy S[0] out, never written in them: only the
  // copies' shared bytes differ from CTA 0's, and each odd CTA runs checked with its finding.
  const auto k =
      load(land_then_copy("S.sub[bid % 2, tid, :]", "", "B.sub[bid, tid, :]", "S.sub[0, tid, :]"));
  const Both b = both(*k);
  CHECK(b.replayed.replayed == 0); // CTA 2 runs checked after CTA 1's finding; CTA 3 is odd
  CHECK(reference_test::difference(b.checked, b.replayed).empty());
  REQUIRE(b.replayed.findings.size() == 1);
  CHECK(b.replayed.findings.front().id == DiagId::check_uninitialised_to_global);
  CHECK(b.replayed.findings.front().message.find("CTA 1 thread 0") != std::string::npos);
}

TEST_CASE("reference: CTAs with fewer iterations run checked, then replay against each other") {
  // t = bid, bid + 4 while t < 6: CTAs 0 and 1 run two iterations, CTAs 2 and 3 one. CTA 1
  // replays CTA 0's trace; CTA 2 leaves it (one iteration) and is recorded; CTA 3 replays it.
  // Each iteration lands chunk t of the thread's row in S and copies it into B.
  const auto k = load(kernel(R"spec(
[[op]]
op = "for"
var = "t"
start = "bid"
stop = 6
step = "nbid"

[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = "S.sub[t / nbid, tid, :]"
src = "A.sub[t % 4, tid, :]"
chunk_bytes = 16

[[op]]
op = "commit_group"

[[op]]
op = "wait_group"
n = 0

[[op]]
op = "copy"
dst = "B.sub[t % 4, tid, :]"
src = "S.sub[t / nbid, tid, :]"

[[op]]
op = "end"
)spec"));
  const Both b = both(*k);
  CHECK(b.replayed.replayed == 2);
  CHECK(reference_test::difference(b.checked, b.replayed).empty());
  CHECK(b.replayed.findings.empty());
  CHECK(b.replayed.global.at("B") == b.replayed.global.at("A"));
}

TEST_CASE("reference: a chunk left out by its pred is a different trace") {
  // CTA 1's pred leaves out thread 5's chunk: the copy then reads bytes nothing wrote (its
  // finding, with CTA 1's count). CTAs 2 and 3 issue every chunk again: CTA 2 runs checked
  // (nothing recorded after CTA 1's finding), CTA 3 replays it.
  const auto k = load(land_then_copy("S.sub[0, tid, :]", "bid != 1 || tid != 5",
                                     "B.sub[bid, tid, :]", "S.sub[0, tid, :]"));
  const Both b = both(*k);
  CHECK(b.replayed.replayed == 1);
  CHECK(reference_test::difference(b.checked, b.replayed).empty());
  REQUIRE(b.replayed.findings.size() == 1);
  CHECK(b.replayed.findings.front().message.find("CTA 1 thread 5") != std::string::npos);
}

TEST_CASE("reference: no replay where the ops keep it from being exact") {
  // A global tensor both read and written: a copy's source could change before its wait.
  const auto k =
      load(land_then_copy("S.sub[0, tid, :]", "", "A.sub[bid, tid, :]", "S.sub[0, tid, :]"));
  const Both b = both(*k);
  CHECK(b.replayed.replayed == 0);
  CHECK(reference_test::difference(b.checked, b.replayed).empty());
}

} // namespace unit_reference_replay
