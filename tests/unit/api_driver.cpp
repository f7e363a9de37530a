// The driver's assemble and run through the C++ API (driver/api/driver.hpp):
// ptxas's verdicts become cubins or DiagIds at PTX lines. Fake ptxas scripts
// written here give the verdicts; where a real ptxas exists, the seed kernel
// built in C++ is assembled and the seed spec run on the simulator.

#include "driver/api/driver.hpp"
#include "driver/support/temp_dir.hpp"
#include "emitter/api/api.hpp"

#include <filesystem>
#include <fstream>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_driver {

namespace fs = std::filesystem;
using ptxgen::DiagId;

namespace {

/// A private folder with executable `#!/bin/sh` scripts. With -v, ptxas's argv is
/// `-arch=sm_XX -v -o CUBIN PTX`: $4 the cubin, $5 the PTX.
struct Bin {
  ptxgen::driver::TempDir dir = make();
  static ptxgen::driver::TempDir make() {
    std::string error;
    auto d = ptxgen::driver::TempDir::create("ptxgen-test-api-");
    REQUIRE_MESSAGE(d, d.error());
    return std::move(*d);
  }
  std::string script(const std::string& body) const {
    fs::path p = dir.path() / "ptxas";
    std::ofstream(p) << "#!/bin/sh\n" << body;
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
};

const std::string kPtx = ".version 7.0\n.target sm_80\n.address_size 64\n"
                         ".visible .entry k()\n{\n\tbogus;\n\tret;\n}\n";

} // namespace

TEST_CASE("api: assemble returns ptxas's cubin") {
  Bin bin;
  ptxgen::api::AssembleOptions o;
  o.ptxas = bin.script("printf 'CUBIN' > \"$4\"\n");
  const auto r = ptxgen::api::assemble(kPtx, ptxgen::ptx::Target{80, false}, o);
  REQUIRE(r.cubin.has_value());
  CHECK(std::string(r.cubin->begin(), r.cubin->end()) == "CUBIN");
  CHECK(r.diagnostics.empty());
}

TEST_CASE("api: a rejection is a run_ptxas_rejected diagnostic at the PTX line") {
  Bin bin;
  ptxgen::api::AssembleOptions o;
  o.ptx_name = "kernel.ptx";
  o.ptxas = bin.script("echo \"ptxas $5, line 6; error   : Unknown instruction\"\n"
                       "echo 'ptxas fatal   : Ptx assembly aborted due to errors'\nexit 255\n");
  const auto r = ptxgen::api::assemble(kPtx, ptxgen::ptx::Target{80, false}, o);
  CHECK_FALSE(r.cubin.has_value());
  REQUIRE_FALSE(r.diagnostics.empty());
  const auto& d = r.diagnostics.front();
  CHECK(d.id == DiagId::run_ptxas_rejected);
  CHECK(d.file == "kernel.ptx");
  CHECK(d.line == 6);
  CHECK(d.source_line == "\tbogus;");
}

TEST_CASE("api: no ptxas is run_ptxas_unavailable") {
  ptxgen::api::AssembleOptions o;
  o.ptxas = "/nonexistent/ptxgen-test/ptxas";
  const auto r = ptxgen::api::assemble(kPtx, ptxgen::ptx::Target{80, false}, o);
  CHECK_FALSE(r.cubin.has_value());
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].id == DiagId::run_ptxas_unavailable);
}

TEST_CASE("api: with a real ptxas, the C++ seed kernel assembles and the seed spec runs" *
          doctest::test_suite("ptxas")) {
  using namespace ptxgen::api;
  KernelBuilder k("copy_async");
  k.launch({1}, {128});
  Tensor A = k.global("A", {128, 32}, DType::float16, {.init = arange_mod(97)});
  Tensor S = k.shared("shared", {128, 32}, DType::float16);
  k.apply(cp_async(CacheOp::cg), S.sub({tid(), all}).rearrange("(r v) -> r v", {{"v", 8}}),
          A.sub({tid(), all}).rearrange("(r v) -> r v", {{"v", 8}}), 16);
  k.commit_group();
  k.wait_all();
  const EmitResult e = emit_contract_only(k);
  REQUIRE(e.ok());
  const auto a = assemble(*e.ptx, ptxgen::ptx::Target{80, false});
  CHECK(a.cubin.has_value());
  CHECK(a.usage.size() == 1);

  const auto report = run_conformance({fs::path(PTXGEN_SOURCE_DIR) / "specs/seed/copy_async.toml"},
                                      ptxgen::driver::Backend::sim);
  REQUIRE(report.cases.size() == 1);
  CHECK(report.cases[0].status == ptxgen::driver::CaseResult::Status::pass);
  // A path that does not exist is one case in error, not an exception.
  const auto missing = run_conformance({"/nonexistent/ptxgen-test.toml"});
  REQUIRE(missing.cases.size() == 1);
  CHECK(missing.cases[0].status == ptxgen::driver::CaseResult::Status::error);
}

} // namespace unit_api_driver
