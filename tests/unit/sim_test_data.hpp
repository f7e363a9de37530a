#pragma once
// The simulator unit tests' input files (tests/data/<dir>/), their tagged mutations, the
// checks the race tests share, and the one-CTA kernel runs and parse checks the tests of single
// instructions share (sim_arith, sim_int_forms, sim_generated_forms, sim_library_idioms).

#include "driver/sim/simulator.hpp"
#include "emitter/support/diagnostic.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace ptxgen::test {

/// The text of tests/data/<dir>/<name>; a missing file fails the test.
inline std::string read_test_data(const std::string& dir, const std::string& name) {
  const std::string rel = "tests/data/" + dir + "/" + name;
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/" + rel);
  REQUIRE_MESSAGE(in.good(), "cannot open " << rel);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// `text` with the line tagged `// M: tag` replaced by `line` (exactly one line has the tag).
inline std::string replace_tagged_line(const std::string& text, const std::string& tag,
                                       const std::string& line) {
  const std::string needle = "// M: " + tag + "\n";
  auto at = text.find(needle);
  REQUIRE_MESSAGE(at != std::string::npos, "no line tagged " << tag);
  REQUIRE(text.find(needle, at + 1) == std::string::npos);
  auto begin = text.rfind('\n', at) + 1;
  return text.substr(0, begin) + line + "\n" + text.substr(at + needle.size());
}

/// The 1-based number of the line tagged `// M: tag` in `text`.
inline std::uint32_t tagged_line(const std::string& text, const std::string& tag) {
  const auto at = text.find("// M: " + tag + "\n");
  REQUIRE_MESSAGE(at != std::string::npos, "no line tagged " << tag);
  std::uint32_t line = 1;
  for (std::size_t i = 0; i < at; ++i)
    line += text[i] == '\n';
  return line;
}

/// The 32-bit word `i` of `bytes` (the host's byte order, the simulated GPU's).
inline std::uint32_t word_at(const std::vector<std::uint8_t>& bytes, std::size_t i) {
  std::uint32_t w = 0;
  std::memcpy(&w, bytes.data() + 4 * i, 4);
  return w;
}

/// `f` is a race of `kind` between the access at the line tagged `at` and the earlier one at
/// the line tagged `other`.
inline void require_race_at(const sim::Fault& f, sim::RaceKind kind, const std::string& text,
                            const std::string& at, const std::string& other) {
  INFO(f.message);
  REQUIRE(f.kind == sim::FaultKind::race);
  REQUIRE(f.race);
  CHECK(f.race->kind == kind);
  CHECK(f.race->access.ptx_line == tagged_line(text, at));
  CHECK(f.race->other.ptx_line == tagged_line(text, other));
}

/// Runs entry `k` of `ptx` on one CTA of `threads` threads with its one parameter pointing at
/// `words` zeroed 32-bit words of global memory; what the kernel left there.
inline std::vector<std::uint32_t> run_words(const std::string& ptx, std::size_t words,
                                            std::uint32_t threads = 1) {
  std::vector<std::uint8_t> out(4 * words, 0);
  std::vector<sim::GlobalBuffer> mem = {{0x1000, &out, "out"}};
  sim::Launch l;
  l.block_dim = {threads, 1, 1};
  l.params = {0x1000};
  sim::SimResult r = sim::run(ptx, "k", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  std::vector<std::uint32_t> got(words);
  std::memcpy(got.data(), out.data(), out.size());
  return got;
}

/// The first diagnostic of `ds` with `id`, or nullptr.
inline const Diagnostic* first_diagnostic(const Diagnostics& ds, DiagId id) {
  for (const auto& d : ds.items())
    if (d.id == id)
      return &d;
  return nullptr;
}

} // namespace ptxgen::test
