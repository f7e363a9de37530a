// The compute-sanitizer runner (driver/cuda/sanitizer_runner.hpp) end to end
// with a fake sanitizer (tests/fake_sanitizer/compute-sanitizer) that runs the
// real `ptxgen device-worker` and writes a real log captured on an H200; the
// request encoding the worker reads (wire.hpp); and the verdict a report gives
// a case (judge_sanitizer). No GPU: the worker opens a driver library that does
// not exist, so every case it runs comes back `unavailable` through its frame.

#include "driver/cuda/sanitizer_runner.hpp"

#include "driver/cuda/wire.hpp"
#include "driver/run/conformance.hpp"
#include "sim_test_data.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <doctest/doctest.h>
#include <unistd.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sanitizer_runner {

using namespace ptxgen::driver::cuda;
namespace fs = std::filesystem;
using Status = LaunchOutcome::Status;

namespace {

LaunchRequest sample_request(const std::string& name) {
  LaunchRequest q;
  q.case_name = name;
  q.cubin = {0x7f, 'E', 'L', 'F', 0, 255};
  q.ptx = ".version 7.0\n";
  q.entry = "k";
  q.grid = {2, 3, 1};
  q.block = {128, 1, 4};
  q.dynamic_shared_bytes = 49152;
  q.buffers.push_back({"A", {1, 2, 3}});
  q.buffers.push_back({"empty", {}});
  q.params.push_back({KernelParam::Kind::buffer, 1, 0});
  q.params.push_back({KernelParam::Kind::u32, 0, 7});
  q.params.push_back({KernelParam::Kind::u64, 0, 0x1234'5678'9abc'def0ull});
  q.timeout = std::chrono::milliseconds(4321);
  q.guard_bytes = 512;
  return q;
}

/// The test's ptxgen: build/ptxgen beside build/tests/ptxgen_unit.
fs::path ptxgen_binary() {
  const fs::path p = fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "ptxgen";
  REQUIRE_MESSAGE(fs::exists(p), "no ptxgen binary at " << p);
  return p;
}

SanitizeOptions fake_options(SanitizerTool tool) {
  SanitizeOptions o;
  o.tool = tool;
  o.sanitizer = fs::path(PTXGEN_SOURCE_DIR) / "tests/fake_sanitizer/compute-sanitizer";
  o.worker = ptxgen_binary();
  o.jobs = 2;
  o.limit = std::chrono::seconds(60);
  o.driver_library = "libptxgen-no-such-driver.so";
  return o;
}

/// Sets an environment variable for the scope of a test.
struct EnvVar {
  std::string name;
  EnvVar(std::string n, const std::string& value) : name(std::move(n)) {
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~EnvVar() { ::unsetenv(name.c_str()); }
};

std::string data_file(const std::string& name) {
  return std::string(PTXGEN_SOURCE_DIR) + "/tests/data/sanitizer/" + name;
}

} // namespace

TEST_CASE("a launch request survives encoding; every truncation is refused") {
  const LaunchRequest q = sample_request("specs/x.toml");
  const std::string bytes = encode_request(q);
  const auto d = decode_request(bytes);
  REQUIRE(d.has_value());
  CHECK(d->case_name == q.case_name);
  CHECK(d->cubin == q.cubin);
  CHECK(d->ptx == q.ptx);
  CHECK(d->entry == q.entry);
  CHECK(d->grid.str() == q.grid.str());
  CHECK(d->block.str() == q.block.str());
  CHECK(d->dynamic_shared_bytes == q.dynamic_shared_bytes);
  REQUIRE(d->buffers.size() == 2);
  CHECK(d->buffers[0].name == "A");
  CHECK(d->buffers[0].bytes == q.buffers[0].bytes);
  CHECK(d->buffers[1].bytes.empty());
  REQUIRE(d->params.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(d->params[i].kind == q.params[i].kind);
    CHECK(d->params[i].buffer_index == q.params[i].buffer_index);
    CHECK(d->params[i].value == q.params[i].value);
  }
  CHECK(d->timeout == q.timeout);
  CHECK(d->guard_bytes == q.guard_bytes);
  for (std::size_t cut = 0; cut < bytes.size(); ++cut)
    CHECK_FALSE(decode_request(std::string_view(bytes).substr(0, cut)).has_value());
  CHECK_FALSE(decode_request(bytes + "x").has_value());
  std::string bad_kind = bytes; // the first parameter's kind byte, made out of range
  const std::size_t kind_at = bytes.size() - 8 - 8 - 3 * (1 + 8 + 8);
  CHECK(bad_kind[kind_at] == static_cast<char>(KernelParam::Kind::buffer));
  bad_kind[kind_at] = 9;
  CHECK_FALSE(decode_request(bad_kind).has_value());

  const auto many = decode_requests(encode_requests({q, sample_request("second")}));
  REQUIRE(many.has_value());
  REQUIRE(many->size() == 2);
  CHECK((*many)[1].case_name == "second");
  CHECK(decode_requests("")->empty());
  const std::string two = encode_requests({q, q});
  CHECK_FALSE(decode_requests(std::string_view(two).substr(0, two.size() - 1)).has_value());
}

TEST_CASE("the sanitizer's argv: tool, print limit, log, then the worker and its files") {
  SanitizeOptions o = fake_options(SanitizerTool::racecheck);
  o.driver_library.clear();
  o.device = 3;
  o.print_limit = 7;
  const auto args = sanitizer_arguments(o, "/d/log", "/d/req", "/d/out");
  const std::vector<std::string> want = {
      "--tool",     "racecheck",       "--print-limit", "7",        "--log-file",
      "/d/log",     o.worker.string(), "device-worker", "--device", "3",
      "--requests", "/d/req",          "--out",         "/d/out"};
  CHECK(args == want);
}

TEST_CASE("each case runs in the worker under the sanitizer; its log becomes its report") {
  EnvVar log("FAKE_SANITIZER_LOG", data_file("racecheck_hazard.log"));
  const fs::path trace = fs::temp_directory_path() / ("ptxgen-trace-" + std::to_string(::getpid()));
  fs::remove(trace);
  EnvVar tr("FAKE_SANITIZER_TRACE", trace.string());
  std::vector<LaunchRequest> requests = {sample_request("c0"), sample_request("c1"),
                                         sample_request("c2")};
  std::vector<int> seen(3, 0);
  const auto out = run_sanitized(requests, fake_options(SanitizerTool::racecheck),
                                 [&](std::size_t i, const SanitizedOutcome&) { ++seen.at(i); });
  REQUIRE(out.size() == 3);
  CHECK(seen == std::vector<int>{1, 1, 1});
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("case " << i << ": " << out[i].outcome.message);
    // The worker's own answer, through its frame (no driver library here).
    CHECK(out[i].worker_answered);
    CHECK(out[i].outcome.status == Status::unavailable);
    CHECK(out[i].report.tool == SanitizerTool::racecheck);
    CHECK(out[i].report.checked);
    CHECK(out[i].report.errors == 1);
  }
  // One sanitizer process per case.
  std::ifstream in(trace);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);)
    lines += line.find("device-worker") != std::string::npos;
  CHECK(lines == 3);
  fs::remove(trace);
}

TEST_CASE("racecheck's memcpy_async warnings through the worker: counted, and not clean") {
  EnvVar log("FAKE_SANITIZER_LOG", data_file("synthetic_racecheck_memcpy_async.log"));
  const auto out =
      run_sanitized({sample_request("early_read")}, fake_options(SanitizerTool::racecheck));
  REQUIRE(out.size() == 1);
  CHECK(out[0].worker_answered);
  CHECK(out[0].report.checked);
  CHECK(out[0].report.errors == 0);
  CHECK(out[0].report.warnings == 2);
  CHECK_FALSE(out[0].report.clean());
}

TEST_CASE("a sanitizer that hangs is killed at the deadline; one that crashes is unchecked") {
  EnvVar log("FAKE_SANITIZER_LOG", data_file("memcheck_clean.log"));
  SanitizeOptions o = fake_options(SanitizerTool::memcheck);
  {
    EnvVar mode("FAKE_SANITIZER_MODE", "hang");
    o.limit = std::chrono::milliseconds(1500);
    const auto start = std::chrono::steady_clock::now();
    const auto out = run_sanitized({sample_request("h")}, o);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
    REQUIRE(out.size() == 1);
    CHECK(out[0].outcome.status == Status::timed_out);
    CHECK_FALSE(out[0].worker_answered);
    CHECK_FALSE(out[0].report.checked);
    CHECK_FALSE(out[0].report.problem.empty());
  }
  {
    EnvVar mode("FAKE_SANITIZER_MODE", "crash");
    o.limit = std::chrono::seconds(60);
    const auto out = run_sanitized({sample_request("x")}, o);
    REQUIRE(out.size() == 1);
    CHECK(out[0].outcome.status == Status::unavailable); // no frame: an environment failure
    CHECK_FALSE(out[0].worker_answered);
    CHECK_FALSE(out[0].report.checked);
  }
  { // the normal path with a clean log, for contrast
    const auto out = run_sanitized({sample_request("ok")}, o);
    REQUIRE(out.size() == 1);
    CHECK(out[0].worker_answered);
    CHECK(out[0].report.checked);
    CHECK(out[0].report.clean());
  }
}

TEST_CASE("a report's verdict on a case") {
  using ptxgen::driver::CaseResult;
  const auto report = [](const std::string& file, SanitizerTool tool) {
    return parse_sanitizer_log(tool, ptxgen::test::read_test_data("sanitizer", file));
  };
  const auto hazard = report("racecheck_hazard.log", SanitizerTool::racecheck);
  const auto clean = report("racecheck_clean.log", SanitizerTool::racecheck);
  const auto unchecked = report("exit3.log", SanitizerTool::racecheck);
  CaseResult pass;
  pass.status = CaseResult::Status::pass;
  pass.blame = CaseResult::Blame::none;

  CaseResult c = pass;
  ptxgen::driver::judge_sanitizer(c, clean);
  CHECK(c.status == CaseResult::Status::pass);
  REQUIRE(c.sanitizer.has_value());
  CHECK(c.sanitizer->clean());

  c = pass;
  ptxgen::driver::judge_sanitizer(c, hazard);
  CHECK(c.status == CaseResult::Status::fault);
  CHECK(c.sanitizer->errors == 1);

  c = pass; // racecheck's warnings (a cp.async destination read before its wait) are findings
  ptxgen::driver::judge_sanitizer(
      c, report("synthetic_racecheck_memcpy_async.log", SanitizerTool::racecheck));
  CHECK(c.status == CaseResult::Status::fault);
  CHECK(c.stage == CaseResult::Stage::sanitizer);
  CHECK(c.sanitizer->warnings == 2);
  CHECK(c.detail.find("0 errors, 2 warnings") != std::string::npos);

  c = pass;
  ptxgen::driver::judge_sanitizer(c, unchecked);
  CHECK(c.status == CaseResult::Status::error);
  CHECK(c.blame == CaseResult::Blame::environment);

  c = pass; // a faults/ spec that faulted: the findings are its evidence
  c.expect_fault = true;
  c.evidence = CaseResult::Evidence::fault;
  ptxgen::driver::judge_sanitizer(c, report("memcheck_out_of_bounds.log", SanitizerTool::memcheck));
  CHECK(c.status == CaseResult::Status::pass);
  CHECK(c.sanitizer->errors == 133);

  c = pass; // a mismatch stays a mismatch, the report attached
  c.status = CaseResult::Status::mismatch;
  ptxgen::driver::judge_sanitizer(c, hazard);
  CHECK(c.status == CaseResult::Status::mismatch);
  CHECK(c.sanitizer->errors == 1);
}

TEST_CASE("the report carries the sanitizer's findings into JSON and JUnit") {
  using ptxgen::driver::CaseResult;
  ptxgen::driver::ConformanceReport r;
  CaseResult c;
  c.spec = "specs/x.toml";
  c.status = CaseResult::Status::pass;
  ptxgen::driver::judge_sanitizer(
      c, parse_sanitizer_log(SanitizerTool::racecheck,
                             ptxgen::test::read_test_data("sanitizer", "racecheck_hazard.log")));
  r.cases.push_back(c);
  CaseResult plain;
  plain.spec = "specs/y.toml";
  plain.status = CaseResult::Status::pass;
  r.cases.push_back(plain);
  const std::string json = ptxgen::driver::to_json(r);
  // tools/sanitize_corpus_device.sh greps for this shape.
  CHECK(json.find("\"sanitizer\": {\"tool\": \"racecheck\", \"checked\": true, \"errors\": 1, "
                  "\"warnings\": 0") != std::string::npos);
  CHECK(json.find("\"kind\": \"race\", ") != std::string::npos);
  CHECK(json.find("\"location\": \"cross_thread_readback+0x1a0\"") != std::string::npos);
  CHECK(json.find("\"sanitizer\": null") != std::string::npos);
  const std::string xml = ptxgen::driver::to_junit(r);
  CHECK(xml.find("<failure type=\"fault\"") != std::string::npos);
  CHECK(xml.find("<system-out>racecheck: 1 error, 0 warnings") != std::string::npos);
}

} // namespace unit_sanitizer_runner
