// driver/support/diagnostic_format.*: the JSON and SARIF forms of diagnostics,
// parsed back with Boost.PropertyTree's JSON reader (an independent parser).

#include "driver/support/diagnostic_format.hpp"

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <sstream>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_diagnostics_format {

using namespace ptxgen;
using namespace ptxgen::driver;
namespace pt = boost::property_tree;

namespace {

pt::ptree parse(const std::string& text) {
  std::istringstream in(text);
  pt::ptree tree;
  pt::read_json(in, tree);
  return tree;
}

Diagnostic positioned() {
  Diagnostic d(DiagId::spec_unknown_dtype, "unknown dtype \"float17\"\tback\\slash\x01",
               Severity::error);
  d.file = "specs/a b.toml";
  d.line = 11;
  d.column = 9;
  d.length = 9;
  d.source_line = "dtype = \"float17\"";
  return d;
}

} // namespace

TEST_CASE("a diagnostic as JSON keeps every field, escaped") {
  const std::string line = diagnostic_json(positioned());
  CHECK(line.find('\n') == std::string::npos);
  const pt::ptree t = parse(line);
  CHECK(t.get<std::string>("file") == "specs/a b.toml");
  CHECK(t.get<int>("line") == 11);
  CHECK(t.get<int>("column") == 9);
  CHECK(t.get<int>("end_column") == 18);
  CHECK(t.get<std::string>("id") == "spec_unknown_dtype");
  CHECK(t.get<std::string>("severity") == "error");
  CHECK(t.get<std::string>("message") == "unknown dtype \"float17\"\tback\\slash\x01");
  CHECK(t.get<std::string>("source_line") == "dtype = \"float17\"");
}

TEST_CASE("SARIF 2.1.0: rules, results with ruleId, level and a region") {
  Diagnostic note(DiagId::ptx_cache_hint_without_policy, "no position", Severity::note);
  const pt::ptree doc = parse(sarif_document({positioned(), note}, "1.2.3"));
  CHECK(doc.get<std::string>("version") == "2.1.0");
  CHECK(doc.get<std::string>("$schema").find("sarif-2.1.0") != std::string::npos);
  const auto& runs = doc.get_child("runs");
  REQUIRE(runs.size() == 1);
  const pt::ptree& run = runs.begin()->second;
  CHECK(run.get<std::string>("tool.driver.name") == "ptxgen");
  CHECK(run.get<std::string>("tool.driver.version") == "1.2.3");
  CHECK(run.get_child("tool.driver.rules").size() == 2);
  const auto& results = run.get_child("results");
  REQUIRE(results.size() == 2);
  auto it = results.begin();
  const pt::ptree& first = it->second;
  CHECK(first.get<std::string>("ruleId") == "spec_unknown_dtype");
  CHECK(first.get<std::string>("level") == "error");
  CHECK(first.get<std::string>("message.text") == positioned().message);
  const auto& locations = first.get_child("locations");
  REQUIRE(locations.size() == 1);
  const pt::ptree& loc = locations.begin()->second.get_child("physicalLocation");
  CHECK(loc.get<std::string>("artifactLocation.uri") == "specs/a b.toml");
  CHECK(loc.get<int>("region.startLine") == 11);
  CHECK(loc.get<int>("region.startColumn") == 9);
  CHECK(loc.get<int>("region.endColumn") == 18);
  CHECK(loc.get<std::string>("region.snippet.text") == "dtype = \"float17\"");
  const pt::ptree& second = (++it)->second;
  CHECK(second.get<std::string>("ruleId") == "ptx_cache_hint_without_policy");
  CHECK(second.get<std::string>("level") == "note");
  CHECK(second.get_child("locations").empty());
}

TEST_CASE("the printer: text as before, JSON lines at once, SARIF once at the end") {
  Diagnostics ds;
  ds.add(positioned());
  std::ostringstream text, json, sarif;
  {
    DiagnosticsPrinter p(DiagnosticsFormat::text, text, "v");
    p.print(ds);
  }
  CHECK(text.str() == ds.format_all());
  DiagnosticsPrinter j(DiagnosticsFormat::json, json, "v");
  j.print(ds);
  j.print(ds);
  CHECK(json.str() == diagnostic_json(positioned()) + "\n" + diagnostic_json(positioned()) + "\n");
  DiagnosticsPrinter s(DiagnosticsFormat::sarif, sarif, "v");
  s.print(ds);
  CHECK(sarif.str().empty());
  s.finish();
  s.finish();
  CHECK(sarif.str() == sarif_document(ds.items(), "v"));
  DiagnosticsFormat f{};
  CHECK(parse_diagnostics_format("sarif", f));
  CHECK(f == DiagnosticsFormat::sarif);
  CHECK_FALSE(parse_diagnostics_format("SARIF", f));
}

} // namespace unit_diagnostics_format
