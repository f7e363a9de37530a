// The ptxas runner against the real ptxas: valid and invalid hand-written PTX
// (tests/data/asm/), every target the project supports, and temporaries under
// a directory whose name has spaces and shell metacharacters. Exits 77 (CTest's
// skip) when no ptxas is found. Registered by tests/ptxas_runner.cmake.

#define DOCTEST_CONFIG_IMPLEMENT
#include "driver/ptxas/assemble_all.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/support/temp_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using namespace ptxgen::driver;

namespace {

std::optional<PtxasLocation> g_ptxas;
fs::path g_tmp; // $TMPDIR for the whole run: spaces and metacharacters

std::string data(const char* name) {
  auto text = read_file(fs::path(PTXGEN_SOURCE_DIR) / "tests/data/asm" / name);
  REQUIRE_MESSAGE(text, text.error());
  return *text;
}

/// 1-based number of the first line of `text` containing `needle`, 0 if none.
std::uint32_t line_of(const std::string& text, const std::string& needle) {
  std::uint32_t line = 1;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (text.substr(start, end - start).find(needle) != std::string::npos)
      return line;
    if (end == std::string::npos)
      break;
    start = end + 1;
    ++line;
  }
  return 0;
}

AssembleOptions for_target(const char* t) {
  AssembleOptions o;
  o.target = *ptxgen::ptx::Target::parse(t);
  return o;
}

} // namespace

TEST_CASE("a valid cp.async kernel assembles, with its resource usage") {
  const std::string ptx = data("copy_async.ptx");
  for (const char* t : {"sm_80", "sm_90"}) {
    auto r = assemble(g_ptxas->path, ptx, for_target(t));
    INFO(t << ": " << r.describe() << "\n" << r.raw_output);
    REQUIRE(r.status == AssembleResult::Status::ok);
    REQUIRE(r.cubin.size() > 4);
    CHECK(r.cubin[0] == 0x7f); // an ELF file
    CHECK(r.cubin[1] == 'E');
    CHECK(r.cubin[2] == 'L');
    CHECK(r.cubin[3] == 'F');
    REQUIRE(r.usage.size() == 1);
    CHECK(r.usage[0].entry == "copy_async");
    CHECK(r.usage[0].registers > 0);
    CHECK(r.usage[0].shared_bytes == 4096); // `.shared .b8 smem[4096]` in the file
    CHECK(r.usage[0].stack_bytes == 0);
    CHECK(r.usage[0].spill_stores == 0);
  }
  CHECK(fs::is_empty(g_tmp));
}

TEST_CASE("an 8-byte .cg copy is rejected at its line") {
  const std::string ptx = data("bad_chunk.ptx");
  const std::uint32_t line = line_of(ptx, "cp.async.cg");
  REQUIRE(line > 0);
  auto r = assemble(g_ptxas->path, ptx, for_target("sm_80"));
  INFO(r.describe());
  CHECK(r.status == AssembleResult::Status::rejected);
  CHECK(r.exit_code != 0);
  REQUIRE_FALSE(r.messages.empty());
  CHECK(r.messages[0].is_error);
  CHECK(r.messages[0].line == line);
  CHECK(r.messages[0].text.find("cp.async") != std::string::npos);
  CHECK(r.messages[0].ptx_line.find("cp.async.cg.shared.global") != std::string::npos);
  CHECK(r.describe().find("line " + std::to_string(line) + ":") != std::string::npos);
  CHECK(fs::is_empty(g_tmp));
}

TEST_CASE("every supported target, in parallel, in order") {
  const std::string ptx = data("copy_async.ptx");
  const std::vector<const char*> targets = {"sm_80",  "sm_86",  "sm_89", "sm_90",
                                            "sm_90a", "sm_100", "sm_120"};
  std::vector<AssembleJob> jobs;
  for (const char* t : targets)
    jobs.push_back({ptx, for_target(t)});
  jobs.push_back({data("bad_chunk.ptx"), for_target("sm_90")});
  auto results = assemble_all(g_ptxas->path, jobs, 4);
  REQUIRE(results.size() == jobs.size());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    INFO(targets[i] << ": " << results[i].describe());
    CHECK(results[i].ok());
    CHECK(results[i].raw_output.find(std::string("for '") + targets[i] + "'") != std::string::npos);
  }
  CHECK(results.back().status == AssembleResult::Status::rejected);
  CHECK(fs::is_empty(g_tmp));
}

TEST_CASE("the self-test: an sm_80 empty kernel assembles for every target from sm_80 on") {
  const auto sm80 = *ptxgen::ptx::Target::parse("sm_80");
  for (const char* t : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120"}) {
    auto r = self_test(g_ptxas->path, sm80, *ptxgen::ptx::Target::parse(t));
    INFO(t << ": " << r.describe());
    CHECK(r.ok());
  }
  // Below the PTX's own target, ptxas refuses it: the self-test must see that.
  auto old = self_test(g_ptxas->path, sm80, *ptxgen::ptx::Target::parse("sm_75"));
  CHECK(old.status == AssembleResult::Status::rejected);
  CHECK(fs::is_empty(g_tmp));
}

int main(int argc, char** argv) {
  auto ptxas = locate_ptxas("");
  if (!ptxas) {
    std::cout << "skipped: " << ptxas.error() << '\n';
    return 77;
  }
  g_ptxas = *ptxas;
  std::cout << "ptxas: " << g_ptxas->path << " (found by " << g_ptxas->found_by << ")\n";
  auto base = TempDir::create("ptxgen-real-ptxas-");
  if (!base) {
    std::cerr << base.error() << '\n';
    return 1;
  }
  g_tmp = base->path() / "dir with spaces;$(touch pwned)&`x` 'q\"";
  fs::create_directories(g_tmp);
  ::setenv("TMPDIR", g_tmp.c_str(), 1); // before any thread exists
  doctest::Context context(argc, argv);
  int rc = context.run();
  if (fs::exists(base->path() / "pwned") || fs::exists("pwned")) {
    std::cerr << "a shell interpreted a path\n";
    rc = 1;
  }
  return rc;
}
