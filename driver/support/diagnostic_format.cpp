#include "driver/support/diagnostic_format.hpp"

#include "driver/support/escape.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

namespace ptxgen::driver {

namespace {

std::uint32_t end_column(const Diagnostic& d) {
  return d.line == 0 ? 0 : d.column + std::max<std::uint32_t>(d.length, 1);
}

} // namespace

bool parse_diagnostics_format(std::string_view text, DiagnosticsFormat& out) {
  if (text == "text")
    out = DiagnosticsFormat::text;
  else if (text == "json")
    out = DiagnosticsFormat::json;
  else if (text == "sarif")
    out = DiagnosticsFormat::sarif;
  else
    return false;
  return true;
}

std::string json_quote(std::string_view s) {
  return "\"" + json_escape(s) + "\"";
}

std::string diagnostic_json(const Diagnostic& d) {
  return "{\"file\":" + json_quote(d.file) + ",\"line\":" + std::to_string(d.line) +
         ",\"column\":" + std::to_string(d.column) +
         ",\"end_column\":" + std::to_string(end_column(d)) + ",\"id\":" + json_quote(name(d.id)) +
         ",\"severity\":" + json_quote(severity_name(d.severity)) +
         ",\"message\":" + json_quote(d.message) + ",\"source_line\":" + json_quote(d.source_line) +
         "}";
}

std::string sarif_document(const std::vector<Diagnostic>& diagnostics, std::string_view version) {
  std::set<std::string_view> rules;
  for (const auto& d : diagnostics)
    rules.insert(name(d.id));
  std::string out = "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\","
                    "\"version\":\"2.1.0\",\"runs\":[{\"tool\":{\"driver\":{\"name\":\"ptxgen\","
                    "\"version\":" +
                    json_quote(version) + ",\"rules\":[";
  bool first = true;
  for (auto r : rules) {
    out += (first ? "" : ",") + std::string("{\"id\":") + json_quote(r) + "}";
    first = false;
  }
  out += "]}},\"results\":[";
  first = true;
  for (const auto& d : diagnostics) {
    out += first ? "" : ",";
    first = false;
    out += "{\"ruleId\":" + json_quote(name(d.id)) +
           ",\"level\":" + json_quote(severity_name(d.severity)) +
           ",\"message\":{\"text\":" + json_quote(d.message) + "},\"locations\":[";
    if (!d.file.empty()) {
      out += "{\"physicalLocation\":{\"artifactLocation\":{\"uri\":" + json_quote(d.file) + "}";
      if (d.line != 0) {
        out += ",\"region\":{\"startLine\":" + std::to_string(d.line) +
               ",\"startColumn\":" + std::to_string(std::max<std::uint32_t>(d.column, 1)) +
               ",\"endColumn\":" + std::to_string(end_column(d));
        if (!d.source_line.empty())
          out += ",\"snippet\":{\"text\":" + json_quote(d.source_line) + "}";
        out += "}";
      }
      out += "}}";
    }
    out += "]}";
  }
  return out + "]}]}\n";
}

DiagnosticsPrinter::DiagnosticsPrinter(DiagnosticsFormat format, std::ostream& out,
                                       std::string tool_version)
    : format_(format), out_(out), version_(std::move(tool_version)) {}

DiagnosticsPrinter::~DiagnosticsPrinter() {
  finish();
}

void DiagnosticsPrinter::print(const Diagnostic& d) {
  switch (format_) {
  case DiagnosticsFormat::text:
    out_ << ptxgen::format(d);
    return;
  case DiagnosticsFormat::json:
    out_ << diagnostic_json(d) << '\n';
    return;
  case DiagnosticsFormat::sarif:
    pending_.push_back(d);
    return;
  }
}

void DiagnosticsPrinter::print(const Diagnostics& ds) {
  for (const auto& d : ds.items())
    print(d);
}

void DiagnosticsPrinter::finish() {
  if (finished_ || format_ != DiagnosticsFormat::sarif)
    return;
  finished_ = true;
  out_ << sarif_document(pending_, version_);
  out_.flush();
}

} // namespace ptxgen::driver
