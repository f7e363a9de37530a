// The reference's check that no copy is left in flight at the end of the kernel
// (check_never_waited, driver/reference/evaluator_launch.cpp), down to its smallest case:
// one thread, one 16-byte chunk (specs/invalid/never_waited_one_chunk.toml pins its
// position: the copy left pending).
#include "driver/run/range_proof.hpp"
#include "driver/toml/reader_spec.hpp"

#include <memory>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_never_waited {

namespace {

using ptxgen::DiagId;

/// One thread copies `chunks` 16-byte chunks of A into shared memory with cp.async and
/// commits them; `tail` follows (a wait, or nothing); B gets A by a plain copy.
std::string spec(int chunks, const std::string& tail) {
  const std::string n = std::to_string(chunks);
  return "[kernel]\nname = \"k\"\ngrid = 1\nblock = 1\n"
         "[tensor.A]\nspace = \"global\"\nshape = [" +
         n + ", 16]\ndtype = \"uint8\"\ninit = \"arange % 251\"\n" +
         "[tensor.B]\nspace = \"global\"\nshape = [" + n +
         ", 16]\ndtype = \"uint8\"\noutput = true\n"
         "[tensor.s]\nspace = \"shared\"\nshape = [" +
         n + ", 16]\ndtype = \"uint8\"\n" +
         "[[op]]\nop = \"apply\"\nopcode = \"cp.async.cg.shared.global\"\n"
         "dst = 's'\nsrc = 'A'\nchunk_bytes = 16\n"
         "[[op]]\nop = \"commit_group\"\n" +
         tail + "[[op]]\nop = \"copy\"\ndst = 'B'\nsrc = 'A'\n";
}

ptxgen::Diagnostics findings(const std::string& text) {
  auto loaded = ptxgen::driver::load_spec_text(text, "never_waited.toml");
  REQUIRE_MESSAGE(loaded, loaded.diagnostics.format_all());
  return ptxgen::driver::reference_findings(**loaded.value);
}

} // namespace

TEST_CASE("reference: a thread ending with one chunk never waited for is refused") {
  const auto found = findings(spec(1, ""));
  CHECK(found.has(DiagId::check_never_waited));
  CHECK(found.format_all().find("ends with 1 chunks pending") != std::string::npos);
}

TEST_CASE("reference: two chunks never waited for are refused too") {
  CHECK(findings(spec(2, "")).has(DiagId::check_never_waited));
}

TEST_CASE("reference: the same copies waited for are no finding") {
  CHECK_FALSE(findings(spec(1, "[[op]]\nop = \"wait_all\"\n")).has_errors());
  CHECK_FALSE(findings(spec(2, "[[op]]\nop = \"wait_group\"\nn = 0\n")).has_errors());
}

} // namespace unit_reference_never_waited
