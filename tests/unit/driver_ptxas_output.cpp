// Parsing ptxas output: hand-written samples in ptxas 13.0's exact format
// (captured formats, hand-made values), and the expected fields worked out by eye.

#include "driver/ptxas/ptxas_output.hpp"

#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_driver_ptxas_output {

using ptxgen::driver::parse_ptxas_messages;
using ptxgen::driver::parse_resource_usage;

namespace {

const char* const kPtx = ".version 8.0\n"
                         ".target sm_80\n"
                         "  cp.async.cg.shared.global [%r3], [%rd4], 8;\n"
                         "\tret;\n";

} // namespace

TEST_CASE("an error naming a line gets that PTX line attached") {
  std::string out = "ptxas /tmp/ptxgen-ptxas-AbC123/kernel.ptx, line 3; error   : Argument 2 of "
                    "instruction 'cp.async': unexpected value '8', expected to be 16\n"
                    "ptxas fatal   : Ptx assembly aborted due to errors\n";
  auto m = parse_ptxas_messages(out, kPtx);
  REQUIRE(m.size() == 2);
  CHECK(m[0].is_error);
  CHECK(m[0].line == 3);
  CHECK(m[0].text ==
        "Argument 2 of instruction 'cp.async': unexpected value '8', expected to be 16");
  CHECK(m[0].ptx_line == "  cp.async.cg.shared.global [%r3], [%rd4], 8;");
  CHECK(m[1].is_error);
  CHECK(m[1].line == 0);
  CHECK(m[1].text == "Ptx assembly aborted due to errors");
  CHECK(m[1].ptx_line.empty());
}

TEST_CASE("fatal with a line, warnings, and lines beyond the PTX") {
  std::string out = "ptxas k.ptx, line 1; fatal   : Unsupported .version 9.9; current version "
                    "is '9.0'\r\n"
                    "ptxas k.ptx, line 4; warning : Unused register\n"
                    "ptxas k.ptx, line 99; error   : Beyond the end\n"
                    "ptxas warning : Global warning\n";
  auto m = parse_ptxas_messages(out, kPtx);
  REQUIRE(m.size() == 4);
  CHECK(m[0].is_error);
  CHECK(m[0].line == 1);
  CHECK(m[0].text == "Unsupported .version 9.9; current version is '9.0'");
  CHECK(m[0].ptx_line == ".version 8.0");
  CHECK_FALSE(m[1].is_error);
  CHECK(m[1].line == 4);
  CHECK(m[1].ptx_line == "\tret;");
  CHECK(m[2].line == 99);
  CHECK(m[2].ptx_line.empty());
  CHECK_FALSE(m[3].is_error);
  CHECK(m[3].line == 0);
  CHECK(m[3].text == "Global warning");
}

TEST_CASE("a file name with spaces, commas and shell characters is skipped over") {
  std::string out = "ptxas /tmp/a b, line x; $(rm -rf)/ptxgen-ptxas-1/kernel.ptx, line 2; error   "
                    ": Unknown symbol 'x'\n";
  auto m = parse_ptxas_messages(out, kPtx);
  REQUIRE(m.size() == 1);
  CHECK(m[0].line == 2);
  CHECK(m[0].text == "Unknown symbol 'x'");
  CHECK(m[0].ptx_line == ".target sm_80");
}

TEST_CASE("info lines and unrelated output are not messages") {
  std::string out = "ptxas info    : 0 bytes gmem\n"
                    "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                    "garbage ptxas error : not at the start\n"
                    "ptxas errors: no colon after a known kind\n"
                    "\n";
  CHECK(parse_ptxas_messages(out, kPtx).empty());
  CHECK(parse_ptxas_messages("", kPtx).empty());
}

TEST_CASE("resource usage of several entries") {
  std::string out = "ptxas info    : 0 bytes gmem\n"
                    "ptxas info    : Compiling entry function 'second' for 'sm_80'\n"
                    "ptxas info    : Function properties for second\n"
                    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                    "ptxas info    : Used 4 registers, used 0 barriers, 352 bytes cmem[0]\n"
                    "ptxas info    : Compile time = 6.506 ms\n"
                    "ptxas info    : Compiling entry function 'copy_async' for 'sm_80'\n"
                    "ptxas info    : Function properties for copy_async\n"
                    "    32 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
                    "ptxas info    : Used 168 registers, used 1 barriers, 4096 bytes smem, 360 "
                    "bytes cmem[0], 24 bytes cmem[2]\n"
                    "ptxas info    : Compile time = 1.499 ms\n";
  auto u = parse_resource_usage(out);
  REQUIRE(u.size() == 2);
  CHECK(u[0].entry == "second");
  CHECK(u[0].registers == 4);
  CHECK(u[0].shared_bytes == 0);
  CHECK(u[0].stack_bytes == 0);
  CHECK(u[0].constant_bytes == 352);
  CHECK(u[1].entry == "copy_async");
  CHECK(u[1].registers == 168);
  CHECK(u[1].shared_bytes == 4096);
  CHECK(u[1].stack_bytes == 32);
  CHECK(u[1].spill_stores == 8);
  CHECK(u[1].spill_loads == 12);
  CHECK(u[1].constant_bytes == 360 + 24);
}

TEST_CASE("properties of a device function do not land on an entry") {
  // sm_90 prints no cmem; a .func gets a properties block but no "Compiling entry".
  std::string out = "ptxas info    : Function properties for helper\n"
                    "    64 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
                    "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                    "ptxas info    : Function properties for k\n"
                    "    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                    "ptxas info    : Used 8 registers, used 1 barriers, 4096 bytes smem\n";
  auto u = parse_resource_usage(out);
  REQUIRE(u.size() == 1);
  CHECK(u[0].entry == "k");
  CHECK(u[0].registers == 8);
  CHECK(u[0].shared_bytes == 4096);
  CHECK(u[0].stack_bytes == 16);
  CHECK(u[0].spill_stores == 0);
  CHECK(u[0].constant_bytes == 0);
}

TEST_CASE("an entry without a properties block or Used line keeps zeros") {
  auto u = parse_resource_usage("ptxas info    : Compiling entry function 'lonely' for 'sm_80'\n"
                                "ptxas fatal   : something broke\n");
  REQUIRE(u.size() == 1);
  CHECK(u[0].entry == "lonely");
  CHECK(u[0].registers == 0);
  CHECK(u[0].stack_bytes == 0);
  CHECK(parse_resource_usage("random text\nUsed 5 registers\n").empty());
}

// issue 13, diagnostics as data: ptxas's messages as Diagnostics (asm, run, the C++ API).
namespace {

ptxgen::driver::AssembleResult rejection(std::string_view output) {
  ptxgen::driver::AssembleResult r;
  r.status = ptxgen::driver::AssembleResult::Status::rejected;
  r.exit_code = 255;
  r.raw_output = std::string(output);
  r.messages = parse_ptxas_messages(output, kPtx);
  return r;
}

constexpr ptxgen::ptx::Target kSm80{80, false};

} // namespace

TEST_CASE("ptxas_diagnostics: an error at its PTX line, caret past the indentation") {
  const auto r = rejection("ptxas k.ptx, line 3; error   : Argument 2 of instruction 'cp.async'\n"
                           "ptxas fatal   : Ptx assembly aborted due to errors\n");
  const auto ds = ptxgen::driver::ptxas_diagnostics(r, {"dir/k.ptx", false}, kSm80);
  // The closing "aborted" line says nothing the error does not: left out.
  REQUIRE(ds.items().size() == 1);
  const auto& d = ds.items()[0];
  CHECK(d.id == ptxgen::DiagId::run_ptxas_rejected);
  CHECK(d.severity == ptxgen::Severity::error);
  CHECK(d.file == "dir/k.ptx");
  CHECK(d.line == 3);
  CHECK(d.column == 3);  // two spaces of indentation
  CHECK(d.length == 43); // "cp.async.cg.shared.global [%r3], [%rd4], 8;"
  CHECK(d.source_line == "  cp.async.cg.shared.global [%r3], [%rd4], 8;");
}

TEST_CASE("ptxas_diagnostics: a warning, and the PTX of a spec has no position in it") {
  auto r = rejection("ptxas k.ptx, line 4; warning : something odd\n");
  r.status = ptxgen::driver::AssembleResult::Status::ok;
  const auto ds = ptxgen::driver::ptxas_diagnostics(r, {"specs/k.toml", true}, kSm80);
  REQUIRE(ds.items().size() == 1);
  CHECK(ds.items()[0].id == ptxgen::DiagId::run_ptxas_warning);
  CHECK(ds.items()[0].severity == ptxgen::Severity::warning);
  CHECK(ds.items()[0].file == "specs/k.toml");
  CHECK(ds.items()[0].line == 0);
  CHECK_FALSE(ds.has_errors());
}

TEST_CASE("ptxas_diagnostics: a rejection without a message ptxgen reads, and a crash") {
  auto r = rejection("qqq garbage zzz\n");
  const auto ds = ptxgen::driver::ptxas_diagnostics(r, {"k.ptx", false}, kSm80);
  REQUIRE(ds.items().size() == 1);
  CHECK(ds.items()[0].id == ptxgen::DiagId::run_ptxas_rejected);
  CHECK(ds.items()[0].line == 0);
  // Only the aborted line: it is all ptxas said, so it stays.
  auto aborted = rejection("ptxas fatal   : Ptx assembly aborted due to errors\n");
  CHECK(ptxgen::driver::ptxas_diagnostics(aborted, {"k.ptx", false}, kSm80).items().size() == 1);
  r.status = ptxgen::driver::AssembleResult::Status::crashed; // the environment's, not the PTX's
  CHECK(ptxgen::driver::ptxas_diagnostics(r, {"k.ptx", false}, kSm80).empty());
}

} // namespace unit_driver_ptxas_output
