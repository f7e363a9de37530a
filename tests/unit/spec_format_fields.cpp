// docs/spec-format.md's "Tables" is the one list of the keys a spec may hold: every key the
// reader accepts (its key lists in driver/toml/reader.hpp and each op's in emitter/tile/ops.def)
// is named in the row of its table or op, so the guide cannot fall behind the reader.
#include "driver/toml/reader.hpp"

#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_spec_format_fields {

namespace {

namespace r = ptxgen::driver::toml_reader;

/// The "## Tables" section of docs/spec-format.md.
std::string tables_section() {
  std::ifstream in(PTXGEN_SOURCE_DIR "/docs/spec-format.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const auto begin = doc.find("\n## Tables\n");
  REQUIRE(begin != std::string::npos);
  const auto end = doc.find("\n## ", begin + 1);
  return doc.substr(begin, end - begin);
}

/// The table row that starts with "| `HEAD`".
std::string row(const std::string& section, std::string_view head) {
  const std::string start = "\n| `" + std::string(head) + "`";
  const auto at = section.find(start);
  INFO("no row for " << head);
  REQUIRE(at != std::string::npos);
  return section.substr(at + 1, section.find('\n', at + 1) - at - 1);
}

void names_all(const std::string& text, std::span<const std::string_view> keys,
               std::string_view where) {
  for (std::string_view k : keys) {
    if (k == "op")
      continue; // the row's own head
    INFO(where << " does not name `" << k << "`: " << text);
    // `key` alone, or `key = ...` with its value
    const std::string key = "`" + std::string(k);
    CHECK(
        (text.find(key + "`") != std::string::npos || text.find(key + " =") != std::string::npos));
  }
}

} // namespace

TEST_CASE("docs: spec-format.md's Tables name every key the reader accepts") {
  const std::string s = tables_section();
  names_all(row(s, "[kernel]"), r::kKernelKeys, "[kernel]");
  names_all(row(s, "[tensor.NAME]"), r::kTensorKeys, "[tensor.NAME]");
  names_all(row(s, "[param.NAME]"), r::kParamKeys, "[param.NAME]");
  names_all(row(s, "[tensor.NAME.map]"), r::kTensorMapKeys, "[tensor.NAME.map]");
  // [[expect]]'s one key (the reader's list of it is private to its Loader).
  constexpr std::string_view expect_keys[] = {"that"};
  names_all(row(s, "[[expect]]"), expect_keys, "[[expect]]");
  const auto top = s.substr(s.find("| top level |"));
  for (std::string_view k : r::kTopKeys) {
    INFO("the top level does not name " << k);
    CHECK(top.substr(0, top.find('\n')).find(k) != std::string::npos);
  }
  // Every op kind has its row, which names every key of the op (ops.def's fields).
  for (std::string_view kind : r::kOpKinds)
    CHECK_FALSE(row(s, "op = \"" + std::string(kind) + "\"").empty());
  for (std::size_t i = 0; i < ptxgen::tile::op_rows.size(); ++i) {
    const std::string kind(ptxgen::tile::op_rows[i].spelling);
    names_all(row(s, "op = \"" + kind + "\""), ptxgen::tile::op_keys(i), kind);
  }
  names_all(row(s, "op = \"pipeline\""), r::kPipelineKeys, "pipeline");
}

} // namespace unit_spec_format_fields
