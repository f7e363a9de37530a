#pragma once
// Diagnostics as data: `--diagnostics-format=text|json|sarif`.
//
//  text   the compiler-style lines of format() (the default, unchanged);
//  json   JSON Lines: one object per diagnostic, written as it is reported:
//         {"file","line","column","end_column","id","severity","message","source_line"}
//         (line and column 1-based, 0 when the diagnostic has no position;
//         end_column is one past the caret's last byte);
//  sarif  one SARIF 2.1.0 document, written by finish(): a run of tool "ptxgen"
//         whose results have ruleId = the DiagId name, level, message.text and a
//         physicalLocation (artifactLocation.uri, region start/end column, snippet).
// Every format goes to the same stream as the text did (standard error).

#include "emitter/support/diagnostic.hpp"

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver {

enum class DiagnosticsFormat : std::uint8_t { text, json, sarif };

/// "text", "json", "sarif"; false for anything else.
bool parse_diagnostics_format(std::string_view text, DiagnosticsFormat& out);

/// `s` as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

/// One diagnostic as a one-line JSON object (no newline).
std::string diagnostic_json(const Diagnostic& d);

/// A whole SARIF 2.1.0 document for `diagnostics`.
std::string sarif_document(const std::vector<Diagnostic>& diagnostics, std::string_view version);

/// Prints diagnostics in one format; SARIF is buffered until finish() (or destruction).
class DiagnosticsPrinter {
public:
  /// `tool_version` is SARIF's tool.driver.version.
  DiagnosticsPrinter(DiagnosticsFormat format, std::ostream& out, std::string tool_version);
  ~DiagnosticsPrinter();
  DiagnosticsPrinter(const DiagnosticsPrinter&) = delete;
  DiagnosticsPrinter& operator=(const DiagnosticsPrinter&) = delete;

  void print(const Diagnostic& d);
  void print(const Diagnostics& ds);
  /// Writes the SARIF document (once); nothing for the other formats.
  void finish();
  DiagnosticsFormat format() const { return format_; }

private:
  DiagnosticsFormat format_;
  std::ostream& out_;
  std::string version_;
  std::vector<Diagnostic> pending_;
  bool finished_ = false;
};

} // namespace ptxgen::driver
