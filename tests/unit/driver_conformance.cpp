// run_conformance() on the simulator with fake ptxas programs (shell scripts
// written at test time): every backend assembles with ptxas, so a missing or
// broken ptxas stops the run (Setup, exit 3 in `ptxgen run`), PTX that ptxas
// rejects never passes, and the backend description says whose PTX ran.
// Expected values come from the scripts written here, never from a run.

#include "driver/run/conformance.hpp"
#include "driver/run/conformance_setup.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/support/temp_dir.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_driver_conformance {

namespace fs = std::filesystem;
using ptxgen::driver::Backend;
using ptxgen::driver::CaseResult;
using ptxgen::driver::ConformanceOptions;
using ptxgen::driver::ConformanceReport;
using ptxgen::driver::run_conformance;
using ptxgen::driver::TempDir;
using Setup = ConformanceReport::Setup;

namespace {

const fs::path seed_spec = fs::path(PTXGEN_SOURCE_DIR) / "specs/seed/copy_async.toml";

/// A private folder for fake ptxas scripts and what they record.
struct Bin {
  TempDir dir;

  static TempDir make() {
    auto d = TempDir::create("ptxgen-test-conformance-");
    REQUIRE_MESSAGE(d, d.error());
    return std::move(*d);
  }
  Bin() : dir(make()) {}

  /// Writes an executable `#!/bin/sh` script. ptxas's argv without -v is
  /// `-arch=sm_XX -o CUBIN PTX`: $1 the target, $3 the cubin, $4 the PTX.
  fs::path script(const std::string& name, const std::string& body) const {
    fs::path p = dir.path() / name;
    std::ofstream(p) << "#!/bin/sh\n" << body;
    fs::permissions(p, fs::perms::owner_all);
    return p;
  }

  std::string read(const std::string& name) const {
    std::ifstream in(dir.path() / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

/// A ptxas that records each -arch in `log`, accepts an empty kernel, and
/// treats PTX with a cp.async as `cp_async_body` says.
std::string ptxas_body(const Bin& bin, const std::string& cp_async_body) {
  return "echo \"$1\" >> '" + (bin.dir.path() / "log").string() +
         "'\n"
         "if grep -q cp.async \"$4\"; then\n" +
         cp_async_body +
         "\nfi\n"
         "printf CUBIN > \"$3\"\n";
}

ConformanceReport run_sim(const fs::path& ptxas, const std::string& given_ptx = {}) {
  ConformanceOptions o;
  o.backend = Backend::sim;
  o.ptxas = ptxas.string();
  o.jobs = 1;
  if (!given_ptx.empty()) {
    o.ptx_override = given_ptx;
    o.ptx_override_name = "given.ptx";
  }
  return run_conformance({seed_spec}, o, {});
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("sim: a ptxas that cannot assemble an empty kernel stops the run") {
  auto r = run_sim("/bin/false");
  INFO(r.backend_description);
  CHECK(r.setup == Setup::broken_ptxas);
  CHECK(r.environment_failed());
  CHECK_FALSE(r.all_passed());
  REQUIRE(r.cases.size() == 1);
  CHECK(r.cases[0].status == CaseResult::Status::error);
  CHECK(r.cases[0].blame == CaseResult::Blame::environment);
  CHECK(has(r.backend_description, "/bin/false"));
}

TEST_CASE("sim: a ptxas that does not exist stops the run") {
  Bin bin;
  auto r = run_sim(bin.dir.path() / "no-ptxas");
  INFO(r.backend_description);
  CHECK(r.setup == Setup::no_ptxas);
  CHECK(r.environment_failed());
  REQUIRE(r.cases.size() == 1);
  CHECK(r.cases[0].status == CaseResult::Status::error);
}

TEST_CASE("sim: every case is assembled with ptxas, for sm_80 by default") {
  Bin bin;
  auto r = run_sim(bin.script("ptxas", ptxas_body(bin, "sleep 0.02")));
  INFO(r.backend_description);
  REQUIRE(r.setup == Setup::ready);
  REQUIRE(r.cases.size() == 1);
  INFO(r.cases[0].detail);
  CHECK(r.cases[0].status == CaseResult::Status::pass);
  CHECK(r.all_passed());
  CHECK_FALSE(r.environment_failed());
  // The self-test, then the spec: both for sm_80.
  CHECK(bin.read("log") == "-arch=sm_80\n-arch=sm_80\n");
  CHECK(r.cases[0].ptxas_ms >= 20.0);
  CHECK(has(r.backend_description, "ptxgen's PTX"));
  CHECK(has(r.backend_description, "sm_80"));
}

TEST_CASE("sim: --arch is ptxas's target on the simulator too") {
  Bin bin;
  ConformanceOptions o;
  o.backend = Backend::sim;
  o.ptxas = bin.script("ptxas", ptxas_body(bin, ":")).string();
  o.arch = ptxgen::ptx::Target{90, true};
  auto r = run_conformance({seed_spec}, o, {});
  REQUIRE(r.setup == Setup::ready);
  CHECK(r.all_passed());
  CHECK(bin.read("log") == "-arch=sm_90a\n-arch=sm_90a\n");
  CHECK(has(r.backend_description, "sm_90a"));
}

TEST_CASE("sim: PTX that ptxas rejects never passes") {
  Bin bin;
  auto ptxas = bin.script("ptxas", ptxas_body(bin, "echo \"ptxas $4, line 3; error   : no\"\n"
                                                   "exit 255"));
  auto r = run_sim(ptxas);
  REQUIRE(r.setup == Setup::ready);
  REQUIRE(r.cases.size() == 1);
  INFO(r.cases[0].detail);
  CHECK(r.cases[0].status == CaseResult::Status::error);
  CHECK(r.cases[0].blame == CaseResult::Blame::input);
  CHECK_FALSE(r.all_passed());
  CHECK_FALSE(r.environment_failed());
}

TEST_CASE("sim: a ptxas that crashes on a case is the environment's failure") {
  Bin bin;
  auto r = run_sim(bin.script("ptxas", ptxas_body(bin, "kill -SEGV $$")));
  REQUIRE(r.setup == Setup::ready);
  REQUIRE(r.cases.size() == 1);
  CHECK(r.cases[0].status == CaseResult::Status::error);
  CHECK(r.cases[0].blame == CaseResult::Blame::environment);
  CHECK(r.environment_failed());
}

TEST_CASE("sim: --ptx is assembled, and the description names the file") {
  Bin bin;
  auto ptxas = bin.script("ptxas", "cp \"$4\" '" + (bin.dir.path() / "seen.ptx").string() +
                                       "'\nprintf CUBIN > \"$3\"\n");
  // Not a kernel of the spec: ptxas (a fake one) takes it, the simulator finds no entry.
  const std::string given = ".version 7.0\n.target sm_80\n.address_size 64\n"
                            ".visible .entry other()\n{\n\tret;\n}\n";
  auto r = run_sim(ptxas, given);
  REQUIRE(r.setup == Setup::ready);
  CHECK(bin.read("seen.ptx") == given);
  CHECK(has(r.backend_description, "given.ptx"));
  CHECK_FALSE(has(r.backend_description, "ptxgen's PTX"));
  REQUIRE(r.cases.size() == 1);
  // The launch does not fit the PTX (no entry of the spec's name): the input's error.
  CHECK(r.cases[0].status == CaseResult::Status::error);
  CHECK(r.cases[0].blame == CaseResult::Blame::input);
}

TEST_CASE("sim: a fault's detail names its kind once") {
  Bin bin;
  auto ptxas = bin.script("ptxas", "printf CUBIN > \"$3\"\n");
  ConformanceOptions o;
  o.backend = Backend::sim;
  o.ptxas = ptxas.string();
  auto r =
      run_conformance({fs::path(PTXGEN_SOURCE_DIR) / "specs/faults/misaligned_chunk.toml"}, o, {});
  REQUIRE(r.cases.size() == 1);
  const auto& c = r.cases[0];
  INFO(c.detail);
  CHECK(c.status == CaseResult::Status::pass);
  CHECK(c.evidence == CaseResult::Evidence::fault);
  CHECK(has(c.detail, "misaligned address"));
  CHECK_FALSE(has(c.detail, "misaligned address: misaligned address"));
}

TEST_CASE("sim: a faults/ spec whose kernel completes wrongly passes as a wrong result") {
  Bin bin;
  const fs::path spec = fs::path(PTXGEN_SOURCE_DIR) / "specs/faults/misaligned_chunk.toml";
  ptxgen::lower::LowerOptions lo;
  lo.target = ptxgen::driver::emitted_target;
  lo.unchecked = true;
  auto e = ptxgen::driver::emit_spec(spec, lo);
  REQUIRE(e.ok());
  // The spec asks for A.sub[tid, 2:10] (4 bytes into each 32-byte row); read
  // from the row's start instead, the copy is aligned (no fault) and B gets
  // A[tid, 0:8]: exactly the silent wrong result the contract prevents.
  const std::string from = "[%rd3+4], 16;";
  const auto at = e.ptx.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(e.ptx.find(from, at + 1) == std::string::npos);
  std::string ptx = e.ptx;
  ptx.replace(at, from.size(), "[%rd3], 16;");
  ConformanceOptions o;
  o.backend = Backend::sim;
  o.ptxas = bin.script("ptxas", "printf CUBIN > \"$3\"\n").string();
  o.ptx_override = ptx;
  o.ptx_override_name = "aligned.ptx";
  auto r = run_conformance({spec}, o, {});
  REQUIRE(r.cases.size() == 1);
  const auto& c = r.cases[0];
  INFO(c.detail);
  CHECK(c.status == CaseResult::Status::pass);
  CHECK(c.evidence == CaseResult::Evidence::wrong_result);
  // B[0][0] = A[0][0] = 0.0 instead of A[0][2] = 2.0 (float16 0x4000).
  CHECK(has(c.detail, "element 0 (0,0): expected [00 40], got [00 00]"));
}

TEST_CASE("sim: a faults/ spec the simulator cannot run is unsupported, not a fault as expected") {
  Bin bin;
  const fs::path spec = fs::path(PTXGEN_SOURCE_DIR) / "specs/faults/misaligned_chunk.toml";
  ptxgen::lower::LowerOptions lo;
  lo.target = ptxgen::driver::emitted_target;
  lo.unchecked = true;
  auto e = ptxgen::driver::emit_spec(spec, lo);
  REQUIRE(e.ok());
  // An instruction outside the simulated subset before the misaligned copy:
  // the simulator stops with `unsupported`, which says nothing about the kernel.
  const std::string before = "\tcp.async.cg.shared.global";
  const auto at = e.ptx.find(before);
  REQUIRE(at != std::string::npos);
  std::string ptx = e.ptx;
  ptx.insert(at, "\tfrobnicate.u32 %r2, %r2;\n");
  ConformanceOptions o;
  o.backend = Backend::sim;
  o.ptxas = bin.script("ptxas", "printf CUBIN > \"$3\"\n").string(); // takes anything
  o.ptx_override = ptx;
  auto r = run_conformance({spec}, o, {});
  REQUIRE(r.cases.size() == 1);
  const auto& c = r.cases[0];
  INFO(c.detail);
  CHECK(c.status == CaseResult::Status::unsupported);
  CHECK(c.blame == CaseResult::Blame::none);
  CHECK(c.evidence == CaseResult::Evidence::none);
  CHECK(c.sim_fault == ptxgen::sim::FaultKind::unsupported);
  REQUIRE(c.unsupported.size() == 1);
  CHECK(c.unsupported[0].text == "frobnicate.u32 %r2, %r2;");
}

TEST_CASE("sim: the comparison finds every differing element, across and inside 64 KiB blocks") {
  // staged_160k_u8: B is 1024 x 160 uint8 (163840 bytes: two whole 64 KiB blocks of the
  // comparison's memcmp and a partial one). Bytes changed by hand: one in the first block;
  // none in the second but one changed and changed back (equal: skipped whole); the first
  // byte of the third, two neighbours in it and the very last byte.
  Bin bin;
  ConformanceOptions o;
  o.backend = Backend::sim;
  o.ptxas = bin.script("ptxas", "printf CUBIN > \"$3\"\n").string();
  o.tamper_sim_outputs = [](const std::string&,
                            std::map<std::string, std::vector<std::uint8_t>>& outputs) {
    auto& b = outputs.at("B");
    REQUIRE(b.size() == 163840);
    for (std::size_t at : {std::size_t{100}, std::size_t{131072}, std::size_t{140000},
                           std::size_t{140001}, std::size_t{163839}})
      b[at] = static_cast<std::uint8_t>(b[at] ^ 0xff);
    b[70000] = static_cast<std::uint8_t>(b[70000] + 1);
    b[70000] = static_cast<std::uint8_t>(b[70000] - 1);
  };
  auto r = run_conformance(
      {fs::path(PTXGEN_SOURCE_DIR) / "specs/dynamic_shared/staged_160k_u8.toml"}, o, {});
  REQUIRE(r.cases.size() == 1);
  const auto& c = r.cases[0];
  INFO(c.detail);
  CHECK(c.status == CaseResult::Status::mismatch);
  CHECK(has(c.detail, "element 100 (0,100):"));
  CHECK(has(c.detail, "(5 elements of B differ)"));
}

TEST_CASE("an arch-specific kernel is assembled for its own target on a GPU of its number") {
  using ptxgen::driver::assembly_target;
  using ptxgen::driver::Backend;
  const ptxgen::ptx::Target sm80{80, false}, sm90{90, false}, sm90a{90, true};
  // An sm_90 device runs sm_90a code (setmaxnreg, tensormap.replace): ptxas takes sm_90a PTX
  // only for sm_90a.
  CHECK(assembly_target(Backend::cuda, sm90, sm90a) == sm90a);
  // Otherwise the GPU's own target: an sm_80 kernel runs as sm_90 code there.
  CHECK(assembly_target(Backend::cuda, sm90, sm80) == sm90);
  CHECK(assembly_target(Backend::cuda, sm80, sm90a) == sm80); // refused later by ptxas: not run
  // The simulator runs any target: the newer one.
  CHECK(assembly_target(Backend::sim, sm80, sm90a) == sm90a);
  CHECK(assembly_target(Backend::sim, sm90, sm80) == sm90);
}

} // namespace unit_driver_conformance
