// Binding a foreign kernel (`ptxgen run --ptx`) to its spec: the entry
// (--entry, C++ mangled names), every PTX parameter checked against the spec's
// ABI before anything runs, [kernel] abi's order, dynamic shared memory for an
// `.extern .shared` entry, and the `unsupported` outcome. The kernels are the
// hand-written PTX files of tests/data/run_binding/ (each assembles with ptxas);
// expected values come from those files and the specs, never from a run.

#include "driver/run/binding.hpp"
#include "driver/run/conformance.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/toml/reader_spec.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_run_binding {

namespace fs = std::filesystem;
using ptxgen::DiagId;
using ptxgen::driver::Backend;
using ptxgen::driver::CaseResult;
using ptxgen::driver::ConformanceOptions;
using ptxgen::driver::ConformanceReport;

namespace {

const fs::path data = fs::path(PTXGEN_SOURCE_DIR) / "tests/data/run_binding";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Runs `spec` on the simulator with the PTX of `ptx_file` (real ptxas assembles it).
ConformanceReport run_foreign(const std::string& spec, const std::string& ptx_file,
                              const std::string& entry = {}) {
  ConformanceOptions o;
  o.backend = Backend::sim;
  o.jobs = 1;
  o.ptx_override = read(data / ptx_file);
  REQUIRE_FALSE(o.ptx_override.empty());
  o.ptx_override_name = ptx_file;
  o.entry = entry;
  auto r = ptxgen::driver::run_conformance({data / spec}, o, {});
  REQUIRE(r.setup == ConformanceReport::Setup::ready);
  REQUIRE(r.cases.size() == 1);
  return r;
}

std::unique_ptr<ptxgen::tile::Kernel> load(const std::string& spec) {
  auto k = ptxgen::driver::load_spec_file(data / spec);
  REQUIRE_MESSAGE(k, k.diagnostics.format_all());
  return std::move(*k);
}

ptxgen::sim::Program parse(const std::string& ptx) {
  auto p = ptxgen::sim::Program::parse(ptx);
  REQUIRE_MESSAGE(p, p.diagnostics.format_all());
  return *p;
}

/// The 1-based numbers of the lines of `text` that contain `part`.
std::vector<std::uint32_t> lines_with(const std::string& text, const std::string& part) {
  std::vector<std::uint32_t> out;
  std::istringstream in(text);
  std::string line;
  for (std::uint32_t n = 1; std::getline(in, line); ++n)
    if (has(line, part))
      out.push_back(n);
  return out;
}

} // namespace

TEST_CASE("binding: a .u32 parameter where the spec passes a .u64 pointer is named, nothing runs") {
  // interleaved.ptx declares (p_A .u64, p_n .u32, p_B .u64); rows.toml's default
  // ABI passes (A pointer, B pointer, valid_rows u32).
  auto r = run_foreign("rows.toml", "interleaved.ptx");
  const auto& c = r.cases[0];
  INFO(c.detail);
  CHECK(c.status == CaseResult::Status::error);
  CHECK(c.blame == CaseResult::Blame::input);
  CHECK(c.diagnostics.has(DiagId::run_param_type));
  CHECK_FALSE(c.diagnostics.has(DiagId::run_param_count));
  // Both misplaced parameters are named, with both sides' types.
  CHECK(has(c.detail, "`p_n`"));
  CHECK(has(c.detail, "`p_B`"));
  CHECK(has(c.detail, "tensor 'B'"));
  CHECK(has(c.detail, "parameter 'valid_rows'"));
  CHECK(c.launch_ms == 0);
  CHECK(c.bytes_compared == 0);
}

TEST_CASE("binding: the check is the backends' common one: a u64 in a u32 slot") {
  auto k = load("rows.toml");
  // valid_rows is .u32 in the spec; a .u64 PTX parameter in its place is refused.
  auto program = parse(".version 7.4\n.target sm_80\n.address_size 64\n"
                       ".visible .entry rows(.param .u64 a, .param .u64 b, .param .u64 n)\n"
                       "{\n\tret;\n}\n");
  auto b = ptxgen::driver::bind_foreign(*k, program, "", "x.ptx");
  REQUIRE_FALSE(b);
  CHECK(b.diagnostics.has(DiagId::run_param_type));
  CHECK(has(b.diagnostics.format_all(), "`n`"));
  CHECK(has(b.diagnostics.format_all(), ".u64"));
  CHECK(has(b.diagnostics.format_all(), ".u32"));
  // A float of the right size is not an integer slot either.
  auto f = parse(".version 7.4\n.target sm_80\n.address_size 64\n"
                 ".visible .entry rows(.param .u64 a, .param .u64 b, .param .f32 n)\n"
                 "{\n\tret;\n}\n");
  CHECK(ptxgen::driver::bind_foreign(*k, f, "", "x.ptx").diagnostics.has(DiagId::run_param_type));
  // A pointer into shared memory (`.ptr .shared`) does not take a global tensor.
  auto sh = parse(".version 7.4\n.target sm_80\n.address_size 64\n"
                  ".visible .entry rows(.param .u64 .ptr .shared .align 16 a, .param .u64 b,"
                  " .param .u32 n)\n{\n\tret;\n}\n");
  auto shb = ptxgen::driver::bind_foreign(*k, sh, "", "x.ptx");
  CHECK(shb.diagnostics.has(DiagId::run_param_type));
  CHECK(has(shb.diagnostics.format_all(), "`a`"));
  CHECK(has(shb.diagnostics.format_all(), ".u64 .ptr .shared"));
  // The right types bind, in the spec's order.
  auto ok = parse(".version 7.4\n.target sm_80\n.address_size 64\n"
                  ".visible .entry rows(.param .b64 a, .param .u64 .ptr .global .align 16 b,"
                  " .param .s32 n)\n"
                  "{\n\tret;\n}\n");
  auto good = ptxgen::driver::bind_foreign(*k, ok, "", "x.ptx");
  REQUIRE_MESSAGE(good, good.diagnostics.format_all());
  REQUIRE(good->params.size() == 3);
  CHECK(good->params[0].name == "A");
  CHECK(good->params[1].name == "B");
  CHECK(good->params[2].name == "valid_rows");
}

TEST_CASE("binding: the launch request of ptxgen's own PTX for a spec") {
  auto k = load("rows.toml");
  namespace cuda = ptxgen::driver::cuda;
  // The buffers in an order other than the ABI's: each tensor parameter finds its own.
  std::vector<cuda::HostBuffer> buffers = {{"B", std::vector<std::uint8_t>(512)},
                                           {"A", std::vector<std::uint8_t>(512, 7)}};
  const auto req =
      ptxgen::driver::launch_request(*k, ptxgen::driver::own_binding(*k), std::move(buffers));
  CHECK(req.entry == "rows");
  CHECK(req.grid.x * req.grid.y * req.grid.z == 1);
  CHECK(req.block.x == 32);
  CHECK(req.block.y * req.block.z == 1);
  CHECK(req.dynamic_shared_bytes == 0);
  REQUIRE(req.buffers.size() == 2);
  CHECK(req.buffers[1].name == "A");
  CHECK(req.buffers[1].bytes[0] == 7);
  // rows.toml's default ABI: A, B, valid_rows.
  REQUIRE(req.params.size() == 3);
  CHECK(req.params[0].kind == cuda::KernelParam::Kind::buffer);
  CHECK(req.params[0].buffer_index == 1);
  CHECK(req.params[1].kind == cuda::KernelParam::Kind::buffer);
  CHECK(req.params[1].buffer_index == 0);
  CHECK(req.params[2].kind == cuda::KernelParam::Kind::u32);
  CHECK(req.params[2].value == 20);
}

TEST_CASE("binding: a parameter count that differs from the spec's ABI is an error") {
  auto k = load("rows.toml");
  auto program = parse(".version 7.4\n.target sm_80\n.address_size 64\n"
                       ".visible .entry rows(.param .u64 a, .param .u64 b)\n{\n\tret;\n}\n");
  auto b = ptxgen::driver::bind_foreign(*k, program, "", "x.ptx");
  REQUIRE_FALSE(b);
  CHECK(b.diagnostics.has(DiagId::run_param_count));
  CHECK_FALSE(b.diagnostics.has(DiagId::run_param_type));
  CHECK(has(b.diagnostics.format_all(), "parameter 'valid_rows'"));
  auto more = parse(".version 7.4\n.target sm_80\n.address_size 64\n"
                    ".visible .entry rows(.param .u64 a, .param .u64 b, .param .u32 n, "
                    ".param .u32 extra)\n{\n\tret;\n}\n");
  auto m = ptxgen::driver::bind_foreign(*k, more, "", "x.ptx");
  REQUIRE_FALSE(m);
  CHECK(m.diagnostics.has(DiagId::run_param_count));
  CHECK(has(m.diagnostics.format_all(), "`extra`"));
}

TEST_CASE("binding: [kernel] abi binds interleaved parameters (pointer, scalar, pointer)") {
  auto r = run_foreign("rows_abi.toml", "interleaved.ptx");
  INFO(r.cases[0].detail);
  CHECK(r.cases[0].status == CaseResult::Status::pass);
  CHECK(r.cases[0].bytes_compared == 2 * 32 * 16); // A and B compared whole
}

TEST_CASE("binding: ptxgen's own lowering declares the parameters in abi's order") {
  ptxgen::lower::LowerOptions lo;
  lo.target = ptxgen::driver::emitted_target;
  auto e = ptxgen::driver::emit_spec(data / "rows_abi.toml", lo);
  REQUIRE_MESSAGE(e.ok(), e.diagnostics.format_all());
  const auto a = e.ptx.find(".param .u64 arg_A");
  const auto n = e.ptx.find(".param .u32 arg_valid_rows");
  const auto b = e.ptx.find(".param .u64 arg_B");
  REQUIRE(a != std::string::npos);
  REQUIRE(n != std::string::npos);
  REQUIRE(b != std::string::npos);
  CHECK(a < n);
  CHECK(n < b);
  // And it runs: its own PTX binds to its own spec.
  ConformanceOptions o;
  o.backend = Backend::sim;
  o.jobs = 1;
  auto r = ptxgen::driver::run_conformance({data / "rows_abi.toml"}, o, {});
  REQUIRE(r.cases.size() == 1);
  INFO(r.cases[0].detail);
  CHECK(r.cases[0].status == CaseResult::Status::pass);
}

TEST_CASE("binding: --entry picks one of two entries by its mangled name") {
  const std::string rows = "_Z4rowsPKhPhj", zero = "_Z4zeroPKhPhj";
  SUBCASE("none given: an error naming both") {
    auto r = run_foreign("rows.toml", "two_entries.ptx");
    const auto& c = r.cases[0];
    CHECK(c.status == CaseResult::Status::error);
    CHECK(c.diagnostics.has(DiagId::run_entry));
    CHECK(has(c.detail, rows));
    CHECK(has(c.detail, zero));
  }
  SUBCASE("the one that does the work passes") {
    auto r = run_foreign("rows.toml", "two_entries.ptx", rows);
    INFO(r.cases[0].detail);
    CHECK(r.cases[0].status == CaseResult::Status::pass);
  }
  SUBCASE("the other one runs, and its result is wrong") {
    auto r = run_foreign("rows.toml", "two_entries.ptx", zero);
    INFO(r.cases[0].detail);
    CHECK(r.cases[0].status == CaseResult::Status::mismatch);
  }
  SUBCASE("a name the PTX does not have") {
    auto r = run_foreign("rows.toml", "two_entries.ptx", "rows");
    CHECK(r.cases[0].diagnostics.has(DiagId::run_entry));
  }
  SUBCASE("choose_entry: the only entry without --entry") {
    auto only = ptxgen::driver::choose_entry({rows}, "");
    REQUIRE(only);
    CHECK(*only == rows);
    CHECK_FALSE(ptxgen::driver::choose_entry({rows, zero}, ""));
    CHECK_FALSE(ptxgen::driver::choose_entry({}, ""));
  }
}

TEST_CASE("binding: an .extern .shared entry gets the spec's shared tensors as dynamic shared") {
  SUBCASE("the total of the shared tensors: 32 rows of 16 bytes") {
    auto k = load("rows.toml");
    CHECK(ptxgen::driver::foreign_dynamic_shared_bytes(*k, true) == 32 * 16);
    CHECK(ptxgen::driver::foreign_dynamic_shared_bytes(*k, false) == 0);
    auto r = run_foreign("rows.toml", "extern_shared.ptx");
    INFO(r.cases[0].detail);
    CHECK(r.cases[0].status == CaseResult::Status::pass);
  }
  SUBCASE("the amount the spec states: 256 bytes, too few for rows 16..31") {
    auto k = load("rows_dyn256.toml");
    CHECK(ptxgen::driver::foreign_dynamic_shared_bytes(*k, true) == 256);
    auto r = run_foreign("rows_dyn256.toml", "extern_shared.ptx");
    INFO(r.cases[0].detail);
    CHECK(r.cases[0].status == CaseResult::Status::fault);
    CHECK(r.cases[0].sim_fault == ptxgen::sim::FaultKind::illegal_address);
  }
}

TEST_CASE("binding: a kernel the simulator cannot run is unsupported, every line listed") {
  const std::string ptx = read(data / "unsupported.ptx");
  const auto expected = lines_with(ptx, "\tmma.sync"); // the instructions, not the comment
  REQUIRE(expected.size() == 2);
  auto r = run_foreign("rows.toml", "unsupported.ptx");
  const auto& c = r.cases[0];
  INFO(c.detail);
  CHECK(c.status == CaseResult::Status::unsupported);
  CHECK(c.blame == CaseResult::Blame::none);
  CHECK(c.sim_fault == ptxgen::sim::FaultKind::unsupported);
  REQUIRE(c.unsupported.size() == 2);
  CHECK(c.unsupported[0].line == expected[0]);
  CHECK(c.unsupported[1].line == expected[1]);
  CHECK(has(c.unsupported[0].text, "mma.sync"));
  CHECK_FALSE(c.unsupported[0].reason.empty());
  CHECK(has(c.detail, "line " + std::to_string(expected[1])));
  CHECK(c.launch_ms == 0); // nothing half-ran
  CHECK(r.count(CaseResult::Status::fault) == 0);
  CHECK(r.count(CaseResult::Status::error) == 0);
  // The reports: JSON names the status and the lines, JUnit skips the case.
  const std::string json = ptxgen::driver::to_json(r);
  CHECK(has(json, "\"status\": \"unsupported\""));
  CHECK(has(json, "\"unsupported\": 1"));
  CHECK(has(json, "{\"line\": " + std::to_string(expected[0]) + ", \"text\": \"mma.sync"));
  const std::string xml = ptxgen::driver::to_junit(r);
  CHECK(has(xml, "failures=\"0\""));
  CHECK(has(xml, "skipped=\"1\""));
  CHECK(has(xml, "<skipped message="));
  CHECK_FALSE(has(xml, "<failure"));
}

TEST_CASE("binding: Program::unsupported lists the entry's lines only") {
  const std::string ptx = read(data / "unsupported.ptx");
  auto program = parse(ptx);
  CHECK(program.unsupported("rows").size() == 2);
  CHECK(program.unsupported("no_such_entry").empty());
  auto clean = parse(read(data / "interleaved.ptx"));
  CHECK(clean.unsupported("rows").empty());
}

} // namespace unit_run_binding
