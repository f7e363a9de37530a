// compute-sanitizer's logs as ptxgen reads them (driver/cuda/sanitizer.hpp), on
// real logs captured on an H200 (tests/data/sanitizer/, see its README), and
// where ptxgen looks for the tool.

#include "driver/cuda/sanitizer.hpp"
#include "sim_test_data.hpp"

#include <filesystem>
#include <fstream>

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sanitizer_log {

using namespace ptxgen::driver::cuda;
using ptxgen::test::read_test_data;
using Kind = SanitizerFinding::Kind;

namespace {

SanitizerReport parse(SanitizerTool tool, const std::string& file) {
  return parse_sanitizer_log(tool, read_test_data("sanitizer", file));
}

/// How many findings of `kind`.
std::size_t count(const SanitizerReport& r, Kind kind) {
  std::size_t n = 0;
  for (const auto& f : r.findings)
    n += f.kind == kind;
  return n;
}

} // namespace

TEST_CASE("racecheck: the positive control's hazard (analysis report, the default)") {
  const auto r = parse(SanitizerTool::racecheck, "racecheck_hazard.log");
  CHECK(r.checked);
  CHECK(r.errors == 1);
  CHECK(r.warnings == 0);
  CHECK_FALSE(r.clean());
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == Kind::race);
  CHECK(r.findings[0].location == "cross_thread_readback+0x1a0");
  CHECK(r.problem.empty());
}

TEST_CASE("racecheck: the hazard report's counts and its warning-level hazards") {
  const auto all = parse(SanitizerTool::racecheck, "racecheck_hazard_report_all.log");
  CHECK(all.checked);
  CHECK(all.errors == 65);
  CHECK(all.warnings == 1984);
  CHECK(all.findings.size() == 20); // --print-limit 20
  CHECK(count(all, Kind::race_warning) == 20);
  CHECK(all.findings[0].location == "cross_thread_readback+0x1a0");
  const auto one = parse(SanitizerTool::racecheck, "racecheck_hazard_limit1.log");
  CHECK(one.errors == 64);
  CHECK(one.warnings == 1984);
  CHECK(one.findings.size() == 1);
}

TEST_CASE("racecheck: memcpy_async hazards are warnings, and a report with warnings is not clean") {
  // A read of a cp.async destination before its wait: 0 errors, 2 warnings.
  const auto r = parse(SanitizerTool::racecheck, "synthetic_racecheck_memcpy_async.log");
  CHECK(r.checked);
  CHECK(r.errors == 0);
  CHECK(r.warnings == 2);
  CHECK_FALSE(r.clean());
  REQUIRE(r.findings.size() == 2);
  CHECK(count(r, Kind::race_warning) == 2);
  CHECK(r.findings[0].location == "_Z10early_readPKjPj+0x90");
  CHECK(r.summary() == "racecheck: 0 errors, 2 warnings: Warning: Potential RAW hazard detected "
                       "(invalid memcpy_async synchronization) at __shared__ 0x0 in block (0,0,0) "
                       ": (at _Z10early_readPKjPj+0x90)");
}

TEST_CASE("racecheck: a clean run is checked and clean") {
  const auto r = parse(SanitizerTool::racecheck, "racecheck_clean.log");
  CHECK(r.checked);
  CHECK(r.clean());
  CHECK(r.findings.empty());
  CHECK(r.summary() == "racecheck: clean");
}

TEST_CASE("memcheck: out-of-bounds and misaligned reads of the faults/ specs") {
  const auto oob = parse(SanitizerTool::memcheck, "memcheck_out_of_bounds.log");
  CHECK(oob.checked);
  CHECK(oob.errors == 133); // not the "33 errors were not printed" line
  CHECK(oob.findings.size() == 100);
  CHECK(count(oob, Kind::memory_access) == 100);
  CHECK(oob.findings[0].location == "fault_out_of_bounds+0x100");
  CHECK(oob.findings[0].thread == "(1,0,0) in block (0,0,0)");
  const auto mis = parse(SanitizerTool::memcheck, "memcheck_misaligned.log");
  CHECK(mis.errors == 134);
  CHECK(count(mis, Kind::memory_access) == 100);
  CHECK(mis.findings[0].location == "fault_misaligned_chunk+0xf0");
  CHECK(parse(SanitizerTool::memcheck, "memcheck_clean.log").clean());
}

TEST_CASE("synccheck: barrier errors (divergent bar.sync, a bad mask, an mbarrier)") {
  const auto div = parse(SanitizerTool::synccheck, "synccheck_divergent_bar.log");
  CHECK(div.checked); // "Target application returned an error" is no finding
  CHECK(div.errors == 16);
  CHECK(div.findings.size() == 16);
  CHECK(count(div, Kind::barrier) == 16);
  CHECK(div.findings[0].location == "cross_thread_readback+0x240");
  const auto mask = parse(SanitizerTool::synccheck, "synccheck_warp_sync_mask.log");
  CHECK(mask.errors == 128);
  CHECK(count(mask, Kind::barrier) == 100);
  const auto mbar = parse(SanitizerTool::synccheck, "synccheck_mbarrier_block_2d.log");
  CHECK(mbar.errors == 128);
  // issue 12, errclass: "Missing wait" is a kind of its own (a known false positive on
  // cp.async.mbarrier.arrive without .noinc; block_2d's copy_arrive has no noinc).
  CHECK(count(mbar, Kind::barrier_missing_wait) == 100);
  CHECK(count(mbar, Kind::barrier) == 0);
  CHECK(count(div, Kind::barrier_missing_wait) == 0);
  CHECK(count(mask, Kind::barrier_missing_wait) == 0);
  CHECK(mbar.findings[0].location == "mbarrier_block_2d+0x240");
}

TEST_CASE("initcheck: a clean run") {
  const auto r = parse(SanitizerTool::initcheck, "initcheck_clean.log");
  CHECK(r.checked);
  CHECK(r.clean());
}

TEST_CASE("a log without a summary was not checked, never clean") {
  const auto missing = parse(SanitizerTool::memcheck, "missing_program.log");
  CHECK_FALSE(missing.checked);
  CHECK_FALSE(missing.clean());
  CHECK_FALSE(missing.problem.empty());
  const auto early = parse(SanitizerTool::racecheck, "exit3.log");
  CHECK_FALSE(early.checked);
  CHECK_FALSE(early.clean());
  CHECK(parse_sanitizer_log(SanitizerTool::memcheck, "").checked == false);
  // A log cut off before its summary (the tool killed mid-run).
  std::string cut = read_test_data("sanitizer", "memcheck_out_of_bounds.log");
  cut = cut.substr(0, cut.find("========= ERROR SUMMARY"));
  const auto r = parse_sanitizer_log(SanitizerTool::memcheck, cut);
  CHECK_FALSE(r.checked);
  CHECK(r.findings.size() == 100);
}

TEST_CASE("tool names round-trip; others are refused") {
  for (SanitizerTool t : all_sanitizer_tools)
    CHECK(parse_sanitizer_tool(name(t)) == t);
  CHECK_FALSE(parse_sanitizer_tool("leakcheck").has_value());
  CHECK_FALSE(parse_sanitizer_tool("").has_value());
}

TEST_CASE("compute-sanitizer is found beside ptxas first, then on PATH, then the fallback") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("ptxgen-locate-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const char* d : {"a", "b", "c", "plain"})
    fs::create_directories(root / d);
  auto tool = [&](const char* dir, bool executable) {
    const fs::path p = root / dir / "compute-sanitizer";
    std::ofstream(p) << "#!/bin/sh\n";
    ::chmod(p.c_str(), executable ? 0755 : 0644);
    return p;
  };
  const auto a = tool("a", true), b = tool("b", true), c = tool("c", true);
  tool("plain", false); // not executable: skipped
  const fs::path ptxas_in_a = root / "a" / "ptxas";
  const std::string path = (root / "plain").string() + ":" + (root / "b").string();
  CHECK(locate_compute_sanitizer(ptxas_in_a, path, {root / "c"}) == a);
  CHECK(locate_compute_sanitizer(root / "plain" / "ptxas", path, {root / "c"}) == b);
  CHECK(locate_compute_sanitizer("", "", {root / "c"}) == c);
  CHECK_FALSE(locate_compute_sanitizer("", (root / "plain").string(), {}).has_value());
  fs::remove_all(root);
}

} // namespace unit_sanitizer_log
