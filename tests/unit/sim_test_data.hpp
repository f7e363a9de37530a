#pragma once
// The simulator unit tests' input files (tests/data/<dir>/) and their tagged mutations.

#include <fstream>
#include <sstream>
#include <string>

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

} // namespace ptxgen::test
