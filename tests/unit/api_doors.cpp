// Every door as strict as `ptxgen check`: each spec of specs/races/, specs/wrong_kernel/ and
// specs/invalid/ is refused by the C++ driver API (loading, then api::check) with the same
// errors (DiagId, line, column) as by the `ptxgen check` executable, run once over all of them
// with --diagnostics-format=json; each declared `# expect-error:` is among them, and
// api::emit_checked gives no PTX. tests/python/test_doors.py holds Python's door to the same.

#include "driver/api/check.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/support/temp_dir.hpp"
#include "driver/toml/reader_spec.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <doctest/doctest.h>
#include <sys/wait.h>

namespace unit_api_doors {

namespace fs = std::filesystem;
using namespace ptxgen;

namespace {

/// One error as every door can say it.
using Refusal = std::tuple<std::string, std::uint32_t, std::uint32_t>; // id, line, column
using Refusals = std::set<Refusal>;

const std::vector<std::string> kCorpus = {"specs/races", "specs/wrong_kernel", "specs/invalid"};

/// The corpus's specs, relative to the source directory (as the executable is given them).
std::vector<std::string> corpus_specs() {
  std::vector<std::string> out;
  for (const std::string& dir : kCorpus)
    for (const auto& e : fs::directory_iterator(fs::path(PTXGEN_SOURCE_DIR) / dir))
      if (e.path().extension() == ".toml")
        out.push_back(dir + "/" + e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

Refusals errors_of(const Diagnostics& ds) {
  Refusals out;
  for (const Diagnostic& d : ds)
    if (d.severity == Severity::error)
      out.insert({std::string(name(d.id)), d.line, d.column});
  return out;
}

/// "id@line:column ..." for messages.
std::string str(const Refusals& rs) {
  std::string out;
  for (const auto& [id, line, column] : rs)
    out += id + "@" + std::to_string(line) + ":" + std::to_string(column) + " ";
  return out;
}

/// The spec's `# expect-error: LINE:COL: [ID] ...` lines.
Refusals declared(const fs::path& spec) {
  static const std::regex line(R"(^#\s*expect-error:\s*(\d+):(\d+):\s*\[(\w+)\])");
  Refusals out;
  std::ifstream in(spec);
  std::smatch m;
  for (std::string l; std::getline(in, l);)
    if (std::regex_search(l, m, line))
      out.insert({m[3], std::stoul(m[1]), std::stoul(m[2])});
  return out;
}

/// `ptxgen check --diagnostics-format=json` of every spec at once: its errors per spec.
std::map<std::string, Refusals> cli_refusals(const std::vector<std::string>& specs) {
  auto dir = driver::TempDir::create("ptxgen-test-doors-");
  REQUIRE_MESSAGE(dir, dir.error());
  const fs::path out = dir->path() / "check.jsonl";
  std::string command =
      "cd '" PTXGEN_SOURCE_DIR "' && '" PTXGEN_EXE "' check --diagnostics-format=json";
  for (const std::string& s : specs)
    command += " '" + s + "'";
  command += " 2>'" + out.string() + "'";
  const int status = std::system(command.c_str());
  REQUIRE_MESSAGE(WIFEXITED(status), command);
  CHECK(WEXITSTATUS(status) == 1); // every spec invalid
  // The JSON printer's fixed key order: file, line, column, end_column, id, severity.
  static const std::regex object(
      R"re(^\{"file":"([^"]*)","line":(\d+),"column":(\d+),"end_column":\d+,"id":"(\w+)","severity":"(\w+)")re");
  std::map<std::string, Refusals> found;
  std::ifstream in(out);
  std::smatch m;
  std::size_t lines = 0;
  for (std::string l; std::getline(in, l); ++lines) {
    REQUIRE_MESSAGE(std::regex_search(l, m, object), l);
    if (m[5] == "error")
      found[m[1]].insert({m[4], std::stoul(m[2]), std::stoul(m[3])});
  }
  CHECK(lines >= specs.size());
  return found;
}

/// The C++ door: what a program that loads the spec and calls api::check sees.
Refusals api_refusals(const std::string& spec, bool& emitted) {
  emitted = false;
  auto loaded = driver::load_spec_file(fs::path(PTXGEN_SOURCE_DIR) / spec);
  if (!loaded)
    return errors_of(loaded.diagnostics);
  api::EmitOptions o;
  o.target = driver::emitted_target;
  o.raise_target = true; // as `ptxgen check` without --target
  Diagnostics ds = loaded.diagnostics;
  ds.append(api::check(**loaded.value, o));
  emitted = api::emit_checked(**loaded.value, o).ok();
  return errors_of(ds);
}

} // namespace

TEST_CASE("every refused spec: the C++ driver API refuses what ptxgen check refuses, alike") {
  const std::vector<std::string> specs = corpus_specs();
  REQUIRE(specs.size() > 150);
  const std::map<std::string, Refusals> cli = cli_refusals(specs);
  for (const std::string& spec : specs) {
    CAPTURE(spec);
    bool emitted = false;
    const Refusals api = api_refusals(spec, emitted);
    CHECK_FALSE(api.empty());
    CHECK_FALSE(emitted);
    // Diagnostics name the file as the loader was given it; the CLI was given `spec`.
    const auto it = cli.find(spec);
    REQUIRE_MESSAGE(it != cli.end(), "ptxgen check reported no error for it");
    CHECK(str(api) == str(it->second));
    for (const Refusal& want : declared(fs::path(PTXGEN_SOURCE_DIR) / spec)) {
      CAPTURE(std::get<0>(want));
      CHECK(api.contains(want));
    }
  }
}

} // namespace unit_api_doors
