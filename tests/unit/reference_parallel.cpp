// The CPU reference with CTAs side by side (ReferenceInput::workers > 1) against one CTA after
// the other (workers = 1), which stays the order that defines the result:
//  - on every loadable spec of the corpus (races and faults included) both give the same
//    bytes, definedness and findings, with texts and counts, and those with several CTAs and no
//    global tensor both read and written run side by side;
//  - where CTAs could see each other's global bytes (two CTAs writing the same bytes, a
//    global tensor both read and written) or their loops commit different numbers of groups
//    (the note names the launch's first iteration), the launch runs one CTA after the other.

#include "driver/reference/reference.hpp"
#include "driver/run/pipeline.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/toml_spec.hpp"
#include "reference_difference.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace {

using namespace ptxgen;
namespace fs = std::filesystem;

driver::ReferenceInput input(const tile::Kernel& k) {
  driver::ReferenceInput in;
  in.kernel = &k;
  in.parallel_min_bytes = 0; // small specs too, and few workers with the input taken
  in.taken_parallel_min_bytes = 0;
  in.taken_parallel_min_workers = 0;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      in.global[t->tensor.name] = driver::initial_bytes(*t);
  return in;
}

/// The reference on k one CTA after the other, and with `workers` threads.
struct Both {
  driver::ReferenceOutput serial;
  driver::ReferenceOutput parallel;
};

Both both(const tile::Kernel& k, unsigned workers) {
  driver::ReferenceInput in = input(k);
  in.workers = 1;
  Both b{driver::evaluate_reference(in), {}};
  in.workers = workers;
  b.parallel = driver::evaluate_reference(in);
  return b;
}

std::unique_ptr<tile::Kernel> load(const std::string& toml) {
  auto loaded = driver::load_spec_text(toml, "parallel.toml");
  REQUIRE_MESSAGE(loaded, loaded.diagnostics.format_all());
  return std::move(*loaded.value);
}

/// 4 CTAs of 32 threads; A (4, 32) uint32, B (32) uint32 (or as `b_shape` says); the ops.
std::string kernel(const std::string& b_shape, const std::string& ops) {
  return R"spec([kernel]
name = "k"
grid = 4
block = 32

[tensor.A]
space = "global"
shape = [4, 32]
dtype = "uint32"
init = "random(3)"
output = true

[tensor.B]
space = "global"
shape = )spec" +
         b_shape +
         R"spec(
dtype = "uint32"
output = true
)spec" + ops;
}

} // namespace

TEST_CASE("reference: CTAs side by side == one after the other on the corpus") {
  std::string err;
  std::size_t compared = 0;
  std::size_t side_by_side = 0;
  std::size_t differ = 0;
  const bool listed =
      reference_test::each_corpus_kernel(err, [&](const fs::path& spec, const tile::Kernel& k) {
        ++compared;
        const Both b = both(k, 4);
        CHECK(b.serial.workers == 1);
        if (b.parallel.workers > 1)
          ++side_by_side;
        const std::string diff = reference_test::difference(b.serial, b.parallel);
        if (!diff.empty()) {
          MESSAGE(spec.string() << ": one after the other and side by side differ in " << diff);
          ++differ;
        }
      });
  REQUIRE_MESSAGE(listed, err);
  MESSAGE("compared " << compared << " specs, " << side_by_side << " ran side by side");
  CHECK(compared >= 100);
  CHECK(side_by_side >= 20); // most specs have one CTA or read a tensor they write
  CHECK(differ == 0);
}

TEST_CASE("reference: CTAs that write the same global bytes run one after the other") {
  // Every CTA writes row bid of A into B: the last CTA's row is what stays.
  const auto k = load(kernel("[32]", R"spec(
[[op]]
op = "copy"
dst = "B.sub[tid]"
src = "A.sub[bid, tid]"
)spec"));
  const Both b = both(*k, 4);
  CHECK(b.parallel.workers == 1);
  CHECK(reference_test::difference(b.serial, b.parallel).empty());
  const auto a = driver::initial_bytes(*k->find_tensor("A"));
  CHECK(b.parallel.global.at("B") == std::vector<std::uint8_t>(a.end() - 128, a.end()));
}

TEST_CASE("reference: CTAs that read a global tensor another CTA writes run one after the other") {
  // CTA bid copies row (bid + 1) % 4 into row bid: CTA 3 reads the row CTA 0 wrote.
  const auto k = load(kernel("[32]", R"spec(
[[op]]
op = "copy"
dst = "A.sub[bid, tid]"
src = "A.sub[(bid + 1) % 4, tid]"
)spec"));
  const Both b = both(*k, 4);
  CHECK(b.parallel.workers == 1);
  CHECK(reference_test::difference(b.serial, b.parallel).empty());
  const auto a = driver::initial_bytes(*k->find_tensor("A"));
  const auto& got = b.parallel.global.at("A");
  // Rows 0-2 come from rows 1-3; row 3 from row 0 as CTA 0 left it (row 1).
  CHECK(std::vector<std::uint8_t>(got.begin(), got.begin() + 384) ==
        std::vector<std::uint8_t>(a.begin() + 128, a.end()));
  CHECK(std::vector<std::uint8_t>(got.begin() + 384, got.end()) ==
        std::vector<std::uint8_t>(a.begin() + 128, a.begin() + 256));
}

TEST_CASE("reference: CTAs side by side, each row of B written by one CTA") {
  const auto k = load(kernel("[4, 32]", R"spec(
[[op]]
op = "copy"
dst = "B.sub[bid, tid]"
src = "A.sub[bid, tid]"
)spec"));
  const Both b = both(*k, 4);
  CHECK(b.parallel.workers == 4);
  CHECK(reference_test::difference(b.serial, b.parallel).empty());
  CHECK(b.parallel.global.at("B") == driver::initial_bytes(*k->find_tensor("A")));
  CHECK(b.parallel.defined.at("B").empty()); // every byte defined: no per-byte vector
}

TEST_CASE("reference: undefined bytes reaching a global tensor: one CTA after the other") {
  // CTA 2 copies the never-written half of S into its row of B; the other CTAs the half they
  // wrote. Only that row of B is undefined, and filling in B's definedness in a worker (the
  // workers share B) makes the launch run one CTA after the other.
  const auto k = load(kernel("[4, 32]", R"spec(
[tensor.S]
space = "shared"
shape = [64]
dtype = "uint32"

[[op]]
op = "copy"
dst = "S.sub[tid]"
src = "A.sub[bid, tid]"

[[op]]
op = "copy"
dst = "B.sub[bid, tid]"
src = "S.sub[tid + 32 * (bid / 2) * (1 - bid / 3)]"
)spec"));
  const Both b = both(*k, 4);
  CHECK(b.parallel.workers == 1);
  CHECK(reference_test::difference(b.serial, b.parallel).empty());
  std::vector<std::uint8_t> want(4 * 32 * 4, 1);
  std::fill(want.begin() + 2 * 128, want.begin() + 3 * 128, 0);
  CHECK(b.parallel.defined.at("B") == want);
  driver::ReferenceInput in = input(*k);
  in.fast = false; // the oracle
  CHECK(reference_test::difference(driver::evaluate_reference(in), b.parallel).empty());
}

TEST_CASE("reference: loops whose commit counts differ between CTAs run one after the other") {
  // CTA bid commits bid groups per iteration: the note compares with CTA 0's first iteration.
  const auto k = load(kernel("[4, 32]", R"spec(
[[op]]
op = "for"
var = "i"
start = 0
stop = 2

[[op]]
op = "for"
var = "j"
start = 0
stop = "bid"

[[op]]
op = "commit_group"

[[op]]
op = "end"

[[op]]
op = "end"

[[op]]
op = "copy"
dst = "B.sub[bid, tid]"
src = "A.sub[bid, tid]"
)spec"));
  const Both b = both(*k, 4); // a worker per CTA: each sees one commit count only
  CHECK(b.parallel.workers == 1);
  CHECK(reference_test::difference(b.serial, b.parallel).empty());
  REQUIRE(!b.serial.findings.empty());
  CHECK(b.serial.findings.front().id == DiagId::check_loop_commit_count);
  CHECK(b.serial.findings.front().message.find("(i=0) committed 0") != std::string::npos);
}

TEST_CASE("reference: taking the input's bytes (evaluate_reference(&&)) == copying them") {
  // One CTA after the other takes every tensor's bytes; side by side only those no op writes,
  // given back where the launch falls back to one CTA after the other (the corpus's races and
  // the specs whose CTAs write the same bytes).
  std::string err;
  std::size_t differ = 0;
  std::size_t compared = 0;
  const bool listed =
      reference_test::each_corpus_kernel(err, [&](const fs::path& spec, const tile::Kernel& k) {
        for (unsigned workers : {1u, 4u}) {
          driver::ReferenceInput in = input(k);
          in.workers = workers;
          const driver::ReferenceOutput copied = driver::evaluate_reference(in);
          const driver::ReferenceOutput taken = driver::evaluate_reference(std::move(in));
          ++compared;
          const std::string diff = reference_test::difference(copied, taken);
          if (!diff.empty()) {
            MESSAGE(spec.string() << " (workers " << workers << "): copied and taken differ in "
                                  << diff);
            ++differ;
          }
        }
      });
  REQUIRE_MESSAGE(listed, err);
  CHECK(compared >= 200);
  CHECK(differ == 0);
  // Side by side, then one after the other: the tensors no op writes come back whole.
  const auto k = load(kernel("[32]", R"spec(
[[op]]
op = "copy"
dst = "B.sub[tid]"
src = "A.sub[bid, tid]"
)spec"));
  driver::ReferenceInput in = input(*k);
  in.workers = 4;
  const driver::ReferenceOutput taken = driver::evaluate_reference(std::move(in));
  CHECK(taken.workers == 1);
  CHECK(taken.global.at("A") == driver::initial_bytes(*k->find_tensor("A")));
}

TEST_CASE(
    "reference: with the input taken, few workers or a small launch run one CTA after the other") {
  // Side by side would copy the tensors the ops write, about what the workers save: only
  // taken_parallel_min_workers workers on taken_parallel_min_bytes go side by side.
  const auto k = load(kernel("[4, 32]", R"spec(
[[op]]
op = "copy"
dst = "B.sub[bid, tid]"
src = "A.sub[bid, tid]"
)spec"));
  auto run = [&](unsigned workers, unsigned min_workers, std::size_t min_bytes) {
    driver::ReferenceInput in = input(*k);
    in.workers = workers;
    in.taken_parallel_min_workers = min_workers;
    in.taken_parallel_min_bytes = min_bytes;
    return driver::evaluate_reference(std::move(in)).workers;
  };
  CHECK(run(4, 0, 0) == 4);
  CHECK(run(4, 8, 0) == 1);    // too few workers
  CHECK(run(4, 0, 1025) == 1); // 1 KiB of global tensors: too small
  CHECK(run(8, 8, 1024) == 4); // enough of both (a worker per CTA at most)
  driver::ReferenceInput copied = input(*k);
  copied.workers = 4;
  copied.taken_parallel_min_workers = 8;
  CHECK(driver::evaluate_reference(copied).workers == 4); // copying: the rule does not apply
}
