// to_spec_toml writes a kernel back as a spec the loader reads to the same
// kernel: every spec of the corpus, loaded, written and loaded again, emits the
// same PTX (or fails with the same DiagIds) and states the same expectations. A kernel
// built in C++ runs through run_conformance that way.

#include "driver/api/driver.hpp"
#include "driver/run/range_proof.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/run/to_toml.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/api/api.hpp"

#include <filesystem>
#include <set>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_to_spec {

namespace fs = std::filesystem;

namespace {

/// The PTX of `k`, or the DiagIds of its errors spelled as names.
std::string outcome(const ptxgen::tile::Kernel& k) {
  const auto r = ptxgen::api::emit_contract_only(k);
  if (r.ptx)
    return *r.ptx;
  std::set<std::string> ids;
  for (const auto& d : r.diagnostics)
    ids.insert(std::string(ptxgen::name(d.id)));
  std::string out = "failed:";
  for (const auto& id : ids)
    out += " " + id;
  return out;
}

} // namespace

TEST_CASE("api: every corpus spec written back by to_spec_toml emits the same PTX") {
  auto found = ptxgen::driver::expand_spec_arguments({std::string(PTXGEN_SOURCE_DIR) + "/specs"});
  REQUIRE_MESSAGE(found, found.error());
  const std::vector<fs::path>& specs = *found;
  REQUIRE(specs.size() > 50);
  std::size_t emitted = 0;
  for (const fs::path& spec : specs) {
    CAPTURE(spec.string());
    auto loaded = ptxgen::driver::load_spec_file(spec);
    REQUIRE(loaded);
    const std::string text = ptxgen::api::to_spec_toml(**loaded);
    CAPTURE(text);
    auto again = ptxgen::driver::load_spec_text(text, "written.toml");
    REQUIRE_MESSAGE(again, again.diagnostics.format_all());
    const std::string want = outcome(**loaded);
    CHECK(outcome(**again) == want);
    REQUIRE((*again)->expectations.size() == (*loaded)->expectations.size());
    for (std::size_t i = 0; i < (*loaded)->expectations.size(); ++i)
      CHECK((*again)->expectations[i].that.value == (*loaded)->expectations[i].that.value);
    emitted += want.rfind("failed:", 0) != 0;
  }
  CHECK(emitted > 50);
}

TEST_CASE("api: an expectation over a rearranged view is checked and written back as it was") {
  using namespace ptxgen::api;
  // B's row t is A's column t: B == A transposed, and not B == A.
  auto mirror = [](KernelBuilder& k, bool transposed) {
    k.launch({1}, {4});
    Tensor A = k.global("A", {4, 4}, DType::uint8, {.init = random_init(5)});
    Tensor B = k.global("B", {4, 4}, DType::uint8, {.output = true});
    k.copy(B.sub({tid(), all}), A.rearrange("a b -> b a", {}).sub({tid(), all}));
    k.expect_equal(B, transposed ? A.rearrange("a b -> b a", {}) : A.view());
  };
  auto failed = [](const ptxgen::tile::Kernel& k) {
    return ptxgen::driver::reference_findings(k).has_errors();
  };
  KernelBuilder right("mirror");
  mirror(right, true);
  REQUIRE_MESSAGE(!right.diagnostics().has_errors(), right.diagnostics().format_all());
  CHECK_FALSE(failed(right.kernel()));
  KernelBuilder wrong("mirror");
  mirror(wrong, false);
  CHECK(failed(wrong.kernel()));

  const std::string text = to_spec_toml(right.kernel());
  CAPTURE(text);
  auto again = ptxgen::driver::load_spec_text(text, "written.toml");
  REQUIRE_MESSAGE(again, again.diagnostics.format_all());
  REQUIRE((*again)->expectations.size() == 1);
  CHECK((*again)->expectations[0].that.value == "B == A.rearrange(\"a b -> b a\")");
  CHECK_FALSE(failed(**again));

  // Sides of other shapes: refused at the call, with both shapes.
  KernelBuilder k("shapes");
  k.launch({1}, {4});
  Tensor A = k.global("A", {4, 4}, DType::uint8);
  Tensor B = k.global("B", {4, 4}, DType::uint8, {.output = true});
  k.expect_equal(B.sub({slice(0, 2), all}), A.rearrange("a b -> b a", {}).sub({slice(0, 2)}));
  k.expect_equal(B.sub({slice(0, 2), all}), A.sub({all, slice(0, 2)}));
  const Diagnostics ds = k.diagnostics();
  REQUIRE(ds.items().size() == 1);
  CHECK(ds.items()[0].id == ptxgen::DiagId::spec_expect_shape_mismatch);
  CHECK(ds.items()[0].message.find("is [4, 2] of uint8 but B.sub[0:2, :] is [2, 4] of uint8") !=
        std::string::npos);
}

TEST_CASE("api: a kernel built in C++ runs on the simulator against the reference" *
          doctest::test_suite("ptxas")) {
  using namespace ptxgen::api;
  KernelBuilder k("rows");
  k.launch({2}, {32, 2});
  // Rows 0..49 hold A's at every n of the range (the expectation is checked at each).
  Expr n = k.param_u32("n", 50, ptxgen::tile::Interval{50, 64});
  Tensor A = k.global("A", {2, 64, 16}, DType::uint8, {.init = random_init(3)});
  Tensor B = k.global("B", {2, 64, 16}, DType::uint8, {.output = true});
  Tensor S = k.shared("S", {64, 16}, DType::uint8);
  k.apply(cp_async(CacheOp::cg), S.sub({tid(), all}), A.sub({bid(), tid(), all}), 16,
          {.src_size = select(tid() < n, 16, 0)});
  k.commit_group();
  k.wait_all();
  k.copy(B.sub({bid(), tid(), all}), S.sub({tid(), all}));
  k.expect_equal(B.sub({0, slice(0, 50), all}), A.sub({0, slice(0, 50), all}));
  REQUIRE(emit_contract_only(k).ok());
  const auto report = run_kernel(k.kernel(), ptxgen::driver::Backend::sim);
  REQUIRE(report.cases.size() == 1);
  CHECK_MESSAGE(report.cases[0].status == ptxgen::driver::CaseResult::Status::pass,
                report.cases[0].detail);
  CHECK(report.cases[0].expectations == 1);
}

} // namespace unit_api_to_spec
