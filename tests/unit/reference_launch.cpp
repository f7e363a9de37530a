// The CPU reference's launch: CTAs one after the other, in order, which defines the result
// where CTAs see each other's global bytes (two CTAs writing the same bytes, a global tensor
// both read and written) or their loops commit different numbers of groups (the note names
// the launch's first iteration); and the input's bytes taken (evaluate_reference(&&)) give
// what copying them gives.

#include "driver/reference/reference.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"
#include "reference_difference.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_launch {

namespace {

using namespace ptxgen;
namespace fs = std::filesystem;

driver::ReferenceInput input(const tile::Kernel& k) {
  driver::ReferenceInput in;
  in.kernel = &k;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      in.global[t->tensor.name] = driver::initial_bytes(*t);
  return in;
}

driver::ReferenceOutput run(const tile::Kernel& k) {
  return driver::evaluate_reference(input(k));
}

std::unique_ptr<tile::Kernel> load(const std::string& toml) {
  auto loaded = driver::load_spec_text(toml, "launch.toml");
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

TEST_CASE("reference: CTAs that write the same global bytes: the last one's stay") {
  // Every CTA writes row bid of A into B: the last CTA's row is what stays.
  const auto k = load(kernel("[32]", R"spec(
[[op]]
op = "copy"
dst = "B.sub[tid]"
src = "A.sub[bid, tid]"
)spec"));
  const driver::ReferenceOutput out = run(*k);
  const auto a = driver::initial_bytes(*k->find_tensor("A"));
  CHECK(out.global.at("B") == std::vector<std::uint8_t>(a.end() - 128, a.end()));
}

TEST_CASE("reference: CTAs that read a global tensor another CTA writes: in CTA order") {
  // CTA bid copies row (bid + 1) % 4 into row bid: CTA 3 reads the row CTA 0 wrote.
  const auto k = load(kernel("[32]", R"spec(
[[op]]
op = "copy"
dst = "A.sub[bid, tid]"
src = "A.sub[(bid + 1) % 4, tid]"
)spec"));
  const driver::ReferenceOutput out = run(*k);
  const auto a = driver::initial_bytes(*k->find_tensor("A"));
  const auto& got = out.global.at("A");
  // Rows 0-2 come from rows 1-3; row 3 from row 0 as CTA 0 left it (row 1).
  CHECK(std::vector<std::uint8_t>(got.begin(), got.begin() + 384) ==
        std::vector<std::uint8_t>(a.begin() + 128, a.end()));
  CHECK(std::vector<std::uint8_t>(got.begin() + 384, got.end()) ==
        std::vector<std::uint8_t>(a.begin() + 128, a.begin() + 256));
}

TEST_CASE("reference: undefined bytes reaching a global tensor") {
  // CTA 2 copies the never-written half of S into its row of B; the other CTAs the half they
  // wrote. Only that row of B is undefined, as the naive path (the oracle) says too.
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
  const driver::ReferenceOutput out = run(*k);
  std::vector<std::uint8_t> want(4 * 32 * 4, 1);
  std::fill(want.begin() + 2 * 128, want.begin() + 3 * 128, 0);
  CHECK(out.defined.at("B") == want);
  driver::ReferenceInput in = input(*k);
  in.fast = false; // the oracle
  CHECK(reference_test::difference(driver::evaluate_reference(in), out).empty());
}

TEST_CASE("reference: loops whose commit counts differ between CTAs") {
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
  const driver::ReferenceOutput out = run(*k);
  REQUIRE(!out.findings.empty());
  CHECK(out.findings.front().id == DiagId::check_loop_commit_count);
  CHECK(out.findings.front().message.find("(i=0) committed 0") != std::string::npos);
}

TEST_CASE("reference: taking the input's bytes (evaluate_reference(&&)) == copying them") {
  std::string err;
  std::size_t differ = 0;
  std::size_t compared = 0;
  const bool listed =
      reference_test::each_corpus_kernel(err, [&](const fs::path& spec, const tile::Kernel& k) {
        driver::ReferenceInput in = input(k);
        const driver::ReferenceOutput copied = driver::evaluate_reference(in);
        const driver::ReferenceOutput taken = driver::evaluate_reference(std::move(in));
        ++compared;
        const std::string diff = reference_test::difference(copied, taken);
        if (!diff.empty()) {
          MESSAGE(spec.string() << ": copied and taken differ in " << diff);
          ++differ;
        }
      });
  REQUIRE_MESSAGE(listed, err);
  CHECK(compared >= 100);
  CHECK(differ == 0);
}

} // namespace unit_reference_launch
