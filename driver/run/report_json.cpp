// The conformance report as JSON (`ptxgen run --report FILE.json`): the setup, the summary and one
// object a case, with its diagnostics, timings, unsupported lines, traps, the sanitizer's
// findings and the simulator's profile.
#include "driver/run/conformance.hpp"
#include "driver/support/diagnostic_format.hpp"
#include "driver/support/escape.hpp"
#include "emitter/support/enum_names.hpp"

#include <sstream>

namespace ptxgen::driver {

namespace {

/// A case's unsupported lines, as a JSON array.
std::string unsupported_json(const CaseResult& c) {
  std::ostringstream j;
  j << "[";
  for (std::size_t u = 0; u < c.unsupported.size(); ++u)
    j << (u ? ", " : "") << "{\"line\": " << c.unsupported[u].line << ", \"text\": \""
      << json_escape(c.unsupported[u].text) << "\", \"reason\": \""
      << json_escape(c.unsupported[u].reason) << "\"}";
  j << "]";
  return j.str();
}

/// a case's known ptxas miscompiles, as a JSON array.
std::string traps_json(const CaseResult& c) {
  std::ostringstream j;
  j << "[";
  for (std::size_t t = 0; t < c.traps.size(); ++t)
    j << (t ? ", " : "") << "{\"id\": \"" << sass::name(c.traps[t].id) << "\", \"function\": \""
      << json_escape(c.traps[t].function) << "\", \"sass_line\": " << c.traps[t].line
      << ", \"instruction\": \"" << json_escape(c.traps[t].instruction) << "\", \"why\": \""
      << json_escape(c.traps[t].why) << "\"}";
  j << "]";
  return j.str();
}

/// compute-sanitizer's report (null without --sanitize).
std::string sanitizer_report_json(const std::optional<cuda::SanitizerReport>& r) {
  if (!r)
    return "null";
  const auto& s = *r;
  std::ostringstream j;
  j << "{\"tool\": \"" << cuda::name(s.tool)
    << "\", \"checked\": " << (s.checked ? "true" : "false") << ", \"errors\": " << s.errors
    << ", \"warnings\": " << s.warnings << ", \"problem\": \"" << json_escape(s.problem)
    << "\", \"findings\": [";
  for (std::size_t f = 0; f < s.findings.size(); ++f)
    j << (f ? ", " : "") << "{\"kind\": \"" << cuda::name(s.findings[f].kind)
      << "\", \"message\": \"" << json_escape(s.findings[f].message) << "\", \"location\": \""
      << json_escape(s.findings[f].location) << "\", \"thread\": \""
      << json_escape(s.findings[f].thread) << "\"}";
  j << "]}";
  return j.str();
}

/// the error DiagIds of the case's refusing stage, as a JSON array.
std::string diag_ids_json(const CaseResult& c) {
  std::string j = "[";
  bool first = true;
  for (const auto& d : c.diagnostics.items()) {
    if (d.severity != Severity::error)
      continue;
    j += std::string(first ? "" : ", ") + "\"" + std::string(ptxgen::name(d.id)) + "\"";
    first = false;
  }
  return j + "]";
}

/// every diagnostic of the case's refusing stage, each as `--diagnostics-format=json`
/// writes it (driver/support/diagnostic_format.hpp), as a JSON array.
std::string diagnostics_json(const CaseResult& c) {
  std::string j = "[";
  for (std::size_t i = 0; i < c.diagnostics.items().size(); ++i)
    j += (i ? ", " : "") + diagnostic_json(c.diagnostics.items()[i]);
  return j + "]";
}

/// One case of the report, as a JSON object.
std::string case_json(const CaseResult& c) {
  std::ostringstream j;
  j << "{\"spec\": \"" << json_escape(c.spec) << "\", \"status\": \"" << name(c.status)
    << "\", \"stage\": \"" << name(c.stage) << "\", \"diag_ids\": " << diag_ids_json(c)
    << ", \"diagnostics\": " << diagnostics_json(c)
    << ", \"expect_fault\": " << (c.expect_fault ? "true" : "false")
    << ", \"device\": " << (c.device ? std::to_string(*c.device) : "null") << ", \"detail\": \""
    << json_escape(c.detail) << "\", \"emit_ms\": " << c.emit_ms << ", \"ptxas_ms\": " << c.ptxas_ms
    << ", \"reference_ms\": " << c.reference_ms << ", \"load_ms\": " << c.load_ms
    << ", \"launch_ms\": " << c.launch_ms << ", \"compare_ms\": " << c.compare_ms
    << ", \"proof_ms\": " << c.proof_ms << ", \"bytes_compared\": " << c.bytes_compared
    << ", \"unsupported\": " << unsupported_json(c);
  // The simulator's fault and race kinds as data, so that a caller (the foreign
  // corpus's mutant check) never has to read them out of the detail's wording.
  j << ", \"sim_fault\": \"" << (c.sim_fault ? sim::name(*c.sim_fault) : std::string_view{})
    << "\", \"race_kind\": \"" << (c.sim_race ? sim::name(c.sim_race->kind) : std::string_view{})
    << "\", \"expectations\": " << c.expectations
    << ", \"expectations_failed\": " << c.expectations_failed << ", \"traps\": " << traps_json(c)
    << ", \"sanitizer\": " << sanitizer_report_json(c.sanitizer);
  // the simulator's memory-efficiency figures (null without --profile).
  j << ", \"profile\": " << (c.profile ? sim::profile_json(*c.profile) : "null") << "}";
  return j.str();
}

} // namespace

std::string to_json(const ConformanceReport& r) {
  std::ostringstream j;
  j << "{\n  \"setup\": \"" << name(r.setup) << "\",\n  \"backend\": \""
    << json_escape(r.backend_description) << "\",\n"
    << "  \"wall_seconds\": " << r.wall_seconds << ",\n  \"device_seconds\": " << r.device_seconds
    << ",\n  \"shard\": {\"index\": " << r.shard.index << ", \"count\": " << r.shard.count
    << "},\n  \"summary\": {";
  const CaseResult::Status all[] = {CaseResult::Status::pass,  CaseResult::Status::mismatch,
                                    CaseResult::Status::fault, CaseResult::Status::invalid,
                                    CaseResult::Status::error, CaseResult::Status::unsupported};
  for (std::size_t i = 0; i < std::size(all); ++i)
    j << (i ? ", " : "") << '"' << name(all[i]) << "\": " << r.count(all[i]);
  j << "},\n  \"cases\": [\n";
  for (std::size_t i = 0; i < r.cases.size(); ++i)
    j << "    " << case_json(r.cases[i]) << (i + 1 < r.cases.size() ? ",\n" : "\n");
  j << "  ]\n}\n";
  return j.str();
}

} // namespace ptxgen::driver
