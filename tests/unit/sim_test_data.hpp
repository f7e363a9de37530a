#pragma once
// The simulator unit tests' input files (tests/data/<dir>/), their tagged mutations and the
// checks the race tests share.

#include "driver/sim/simulator.hpp"

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

} // namespace ptxgen::test
