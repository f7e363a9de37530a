// The reference without the global tensors' values (ReferenceInput::values = false), as the
// whole-launch checks run a kernel whose global tensors are larger than they hold
// (driver/run/range_proof.hpp): every finding must be what the run with the values finds,
// on every spec of the corpus, and no global tensor's bytes may be held.
#include "driver/reference/reference.hpp"
#include "driver/run/range_proof.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_values {

namespace {

namespace fs = std::filesystem;
using ptxgen::DiagId;
using ptxgen::driver::ReferenceFinding;
using ptxgen::driver::ReferenceInput;
using ptxgen::driver::ReferenceOutput;

ReferenceOutput run(const ptxgen::tile::Kernel& k, bool values) {
  ReferenceInput in;
  in.kernel = &k;
  in.values = values;
  if (values)
    for (const auto& t : k.tensors)
      if (t->tensor.space == ptxgen::tile::Space::global)
        in.global[t->tensor.name] = ptxgen::driver::initial_bytes(*t);
  return ptxgen::driver::evaluate_reference(std::move(in));
}

std::string text(const std::vector<ReferenceFinding>& fs) {
  std::string s;
  for (const ReferenceFinding& f : fs)
    s += std::to_string(static_cast<int>(f.id)) + " op " + std::to_string(f.op) + " " +
         (f.severity == ptxgen::Severity::note ? "note " : "error ") + f.message + "\n";
  return s;
}

} // namespace

TEST_CASE("reference: without the values, every spec of the corpus gives the same findings") {
  std::size_t specs = 0;
  std::size_t with_findings = 0;
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(PTXGEN_SOURCE_DIR) / "specs")) {
    if (entry.path().extension() != ".toml")
      continue;
    auto loaded = ptxgen::driver::load_spec_file(entry.path());
    if (!loaded)
      continue; // invalid specs the loader refuses
    CAPTURE(entry.path().string());
    const ptxgen::tile::Kernel& k = **loaded.value;
    const ReferenceOutput held = run(k, true);
    const ReferenceOutput free = run(k, false);
    CHECK(text(free.findings) == text(held.findings));
    for (const auto& tensor : free.global) // not a structured binding: clang 14 cannot capture one
      CHECK_MESSAGE(tensor.second.empty(), tensor.first);
    ++specs;
    with_findings += held.findings.empty() ? 0 : 1;
  }
  // The corpus: its races and invalid specs find something; enough of it ran.
  CHECK(specs > 300);
  CHECK(with_findings > 50);
}

TEST_CASE("reference: a read of global bytes pending bulk stores write, without the values") {
  // Two stores of one CTA write B row 0 (the second over half of it); a load reads B before
  // any bulk_wait: the race's count is the union of what they cover, its first byte named.
  const std::string spec = R"(
[kernel]
name = "k"
grid = 1
block = 32
[tensor.B]
space = "global"
shape = [4, 64]
dtype = "uint8"
output = true
[tensor.s]
space = "shared"
shape = [64]
dtype = "uint8"
[tensor.t]
space = "shared"
shape = [64]
dtype = "uint8"
[tensor.bar]
space = "shared"
shape = [1]
dtype = "uint64"
[[op]]
op = "fill"
dst = 's.rearrange("(t e) -> t e", e=2).sub[tid, :]'
pattern = [1]
[[op]]
op = "proxy_fence"
[[op]]
op = "cta_sync"
[[op]]
op = "bulk_store"
dst = 'B.sub[0, :]'
src = 's'
pred = "tid == 0"
[[op]]
op = "bulk_store"
dst = 'B.sub[0, 32:64]'
src = 's.sub[0:32]'
pred = "tid == 0"
[[op]]
op = "bulk_commit"
[[op]]
op = "mbarrier_init"
barrier = 'bar.sub[0]'
count = 1
[[op]]
op = "cta_sync"
[[op]]
op = "expect_tx"
barrier = 'bar.sub[0]'
bytes = 64
pred = "tid == 0"
[[op]]
op = "bulk_load"
dst = 't'
src = 'B.sub[0, :]'
barrier = 'bar.sub[0]'
pred = "tid == 0"
[[op]]
op = "mbarrier_wait"
barrier = 'bar.sub[0]'
parity = 0
[[op]]
op = "bulk_wait"
n = 0
)";
  auto loaded = ptxgen::driver::load_spec_text(spec, "pending_writes.toml");
  REQUIRE_MESSAGE(loaded, loaded.diagnostics.format_all());
  for (const bool values : {true, false}) {
    CAPTURE(values);
    const ReferenceOutput out = run(**loaded.value, values);
    const std::string found = text(out.findings);
    CHECK(found.find(std::to_string(static_cast<int>(DiagId::check_bulk_global_race))) !=
          std::string::npos);
    // 64 bytes of B row 0 pending (the union of 64 and 32), from byte 0, the first store's
    // op (the only one covering byte 0).
    CHECK(found.find("reads byte 0 of 'B'") != std::string::npos);
    CHECK(found.find("(64 times in all)") != std::string::npos);
  }
}

} // namespace unit_reference_values
