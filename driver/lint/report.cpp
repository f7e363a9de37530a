// `ptxgen lint`: the text, JSON and SARIF 2.1.0 reports (lint.hpp).

#include "driver/lint/lint.hpp"
#include "driver/support/diagnostic_format.hpp"
#include "emitter/support/enum_names.hpp"

#include <map>

namespace ptxgen::lint {

std::string_view status_name(KernelStatus s) {
  static constexpr auto names =
      enum_names<KernelStatus::usage>("clean", "findings", "unsupported", "error", "usage");
  return name_of(names, s);
}

namespace {

using driver::json_quote;

std::string dim(const sim::Dim3& d) {
  return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

std::string json_dim(const sim::Dim3& d) {
  return "[" + dim(d) + "]";
}

/// "PTX line 45 (thread 3 of CTA 0, iteration 2)": one side of a finding.
std::string side(std::uint32_t line, std::int64_t bid, std::int64_t tid, std::uint64_t iteration) {
  std::string s = "PTX line " + std::to_string(line);
  if (tid < 0)
    return s;
  s += " (thread " + std::to_string(tid);
  if (bid >= 0)
    s += " of CTA " + std::to_string(bid);
  if (iteration > 0)
    s += ", iteration " + std::to_string(iteration);
  return s + ")";
}

std::string finding_text(const Finding& f) {
  std::string s = "  " + rule_id(f) + ": " + side(f.line, f.bid, f.tid, f.iteration);
  if (f.other_line != 0)
    s += " against " + side(f.other_line, f.other_bid, f.other_tid, f.other_iteration);
  if (!f.symbol.empty())
    s += ", `" + f.symbol + "` byte " + std::to_string(static_cast<std::int64_t>(f.offset));
  if (f.kind != FindingKind::unsupported)
    s += " [seed " + std::to_string(f.seed) + ", met " + std::to_string(f.hits) + "x]";
  return s + "\n    " + f.message + "\n";
}

/// A run keeps a bounded number of distinct races: say so when it met more, so that a list
/// that stops is not read as every race there is.
std::string unlisted_text(const Coverage& c) {
  if (c.races_unlisted == 0)
    return {};
  return "  not listed: the run met more distinct races than it keeps; races were met " +
         std::to_string(c.races_unlisted) +
         " more times past those listed (fix the listed ones and lint again)\n";
}

std::string coverage_text(const Coverage& c) {
  return "  covered: " + std::to_string(c.threads) + " threads, " + std::to_string(c.runs) +
         " run(s), " + std::to_string(c.instructions) + " instructions, " +
         std::to_string(c.async_copies) + " async copies, " + std::to_string(c.commits) +
         " commits, " + std::to_string(c.waits) + " waits, " + std::to_string(c.barriers) +
         " barriers; " + std::to_string(c.lines_run) + " of " + std::to_string(c.lines) +
         " instruction lines ran\n" + unlisted_text(c);
}

std::string finding_json(const Finding& f) {
  return "{\"rule\": " + json_quote(rule_id(f)) + ", \"kind\": " + json_quote(kind_text(f)) +
         ", \"line\": " + std::to_string(f.line) +
         ", \"other_line\": " + std::to_string(f.other_line) +
         ", \"cta\": " + std::to_string(f.bid) + ", \"thread\": " + std::to_string(f.tid) +
         ", \"other_thread\": " + std::to_string(f.other_tid) +
         ", \"other_cta\": " + std::to_string(f.other_bid) +
         ", \"iteration\": " + std::to_string(f.iteration) +
         ", \"other_iteration\": " + std::to_string(f.other_iteration) +
         ", \"symbol\": " + json_quote(f.symbol) +
         ", \"offset\": " + std::to_string(static_cast<std::int64_t>(f.offset)) +
         ", \"hits\": " + std::to_string(f.hits) + ", \"seed\": " + std::to_string(f.seed) +
         ", \"note\": " + (is_note(f) ? "true" : "false") +
         ", \"message\": " + json_quote(f.message) + "}";
}

std::string coverage_json(const Coverage& c) {
  return "{\"threads\": " + std::to_string(c.threads) + ", \"runs\": " + std::to_string(c.runs) +
         ", \"instructions\": " + std::to_string(c.instructions) +
         ", \"async_copies\": " + std::to_string(c.async_copies) +
         ", \"commits\": " + std::to_string(c.commits) + ", \"waits\": " + std::to_string(c.waits) +
         ", \"barriers\": " + std::to_string(c.barriers) +
         ", \"lines\": " + std::to_string(c.lines) +
         ", \"lines_run\": " + std::to_string(c.lines_run) +
         ", \"races_unlisted\": " + std::to_string(c.races_unlisted) + "}";
}

std::string kernel_json(const KernelReport& k) {
  std::string s = "    {\"file\": " + json_quote(k.file) + ", \"entry\": " + json_quote(k.name) +
                  ", \"is_func\": " + (k.is_func ? "true" : "false") +
                  ", \"status\": " + json_quote(status_name(k.status)) +
                  ", \"error\": " + json_quote(k.error) + ", \"grid\": " + json_dim(k.grid) +
                  ", \"block\": " + json_dim(k.block) +
                  ", \"dynamic_smem\": " + std::to_string(k.dynamic_smem) + ",\n     \"params\": [";
  for (std::size_t i = 0; i < k.params.size(); ++i)
    s += std::string(i == 0 ? "" : ", ") + "{\"name\": " + json_quote(k.params[i].name) +
         ", \"how\": " + json_quote(k.params[i].how) +
         ", \"bytes\": " + std::to_string(k.params[i].bytes) + "}";
  s += "],\n     \"coverage\": " + coverage_json(k.coverage) + ",\n     \"findings\": [";
  for (std::size_t i = 0; i < k.findings.size(); ++i)
    s += std::string(i == 0 ? "\n      " : ",\n      ") + finding_json(k.findings[i]);
  return s + "]}";
}

std::string_view level(const Finding& f) {
  return is_note(f) ? "note" : "error";
}

std::string location(const std::string& uri, std::uint32_t line) {
  return "{\"physicalLocation\": {\"artifactLocation\": {\"uri\": " + json_quote(uri) +
         "}, \"region\": {\"startLine\": " + std::to_string(std::max<std::uint32_t>(line, 1)) +
         "}}}";
}

std::string sarif_result(const KernelReport& k, const Finding& f, std::size_t rule_index) {
  std::string s =
      "{\"ruleId\": " + json_quote(rule_id(f)) + ", \"ruleIndex\": " + std::to_string(rule_index) +
      ", \"level\": " + json_quote(level(f)) +
      ", \"message\": {\"text\": " + json_quote(k.name + ": " + kind_text(f) + ": " + f.message) +
      "}, \"locations\": [" + location(k.file, f.line) + "]";
  if (f.other_line != 0)
    s += ", \"relatedLocations\": [{\"id\": 1, \"message\": {\"text\": \"the earlier, "
         "conflicting access\"}, " +
         location(k.file, f.other_line).substr(1);
  if (f.other_line != 0)
    s += "]";
  return s + ", \"properties\": {\"entry\": " + json_quote(k.name) +
         ", \"thread\": " + std::to_string(f.tid) + ", \"cta\": " + std::to_string(f.bid) +
         ", \"iteration\": " + std::to_string(f.iteration) +
         ", \"seed\": " + std::to_string(f.seed) + "}}";
}

} // namespace

std::string text_report(const std::vector<KernelReport>& kernels) {
  std::string s;
  for (const KernelReport& k : kernels) {
    s += k.file + ": " + (k.is_func ? ".func " : "") + (k.name.empty() ? "-" : k.name);
    if (k.status == KernelStatus::error || k.status == KernelStatus::usage) {
      s += ": " + std::string(status_name(k.status)) + ": " + k.error + "\n";
      continue;
    }
    s += " (grid " + dim(k.grid) + ", block " + dim(k.block) + ", dynamic shared " +
         std::to_string(k.dynamic_smem) + " bytes): " + std::string(status_name(k.status));
    if (!k.findings.empty())
      s += ", " + std::to_string(k.findings.size()) + " finding(s)";
    s += "\n";
    for (const Finding& f : k.findings)
      s += finding_text(f);
    if (!k.error.empty())
      s += "  " + k.error + "\n";
    s += coverage_text(k.coverage);
    std::string params;
    for (const ParamUse& p : k.params)
      params += (params.empty() ? "" : "; ") + p.name + ": " + p.how;
    if (!params.empty())
      s += "  parameters: " + params + "\n";
  }
  return s;
}

std::string json_report(const std::vector<KernelReport>& kernels, std::string_view version) {
  std::string s = "{\"tool\": \"ptxgen lint\", \"version\": " + json_quote(version) +
                  ", \"exit_status\": " + std::to_string(exit_status(kernels)) +
                  ",\n  \"kernels\": [\n";
  for (std::size_t i = 0; i < kernels.size(); ++i)
    s += (i == 0 ? "" : ",\n") + kernel_json(kernels[i]);
  return s + "\n  ]\n}\n";
}

std::string sarif_report(const std::vector<KernelReport>& kernels, std::string_view version) {
  std::map<std::string, std::pair<std::size_t, std::string>> rules; // id -> index, kind text
  std::vector<std::string> rule_order;
  std::string results, notes;
  for (const KernelReport& k : kernels) {
    for (const Finding& f : k.findings) {
      const std::string id = rule_id(f);
      if (!rules.count(id)) {
        rules[id] = {rule_order.size(), kind_text(f)};
        rule_order.push_back(id);
      }
      results +=
          (results.empty() ? "\n        " : ",\n        ") + sarif_result(k, f, rules[id].first);
    }
    if (k.status == KernelStatus::error || k.status == KernelStatus::usage)
      notes += (notes.empty() ? "" : ", ") +
               std::string("{\"level\": \"error\", \"message\": {\"text\": ") +
               json_quote(k.file + ": " + k.name + ": " + k.error) + "}}";
  }
  std::string rule_list;
  for (const std::string& id : rule_order)
    rule_list += (rule_list.empty() ? "\n            " : ",\n            ") +
                 std::string("{\"id\": ") + json_quote(id) + ", \"name\": " + json_quote(id) +
                 ", \"shortDescription\": {\"text\": " + json_quote(rules[id].second) + "}}";
  const bool ok = notes.empty();
  return "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
         "  \"version\": \"2.1.0\",\n  \"runs\": [{\n"
         "    \"tool\": {\"driver\": {\"name\": \"ptxgen lint\", \"version\": " +
         json_quote(version) + ", \"informationUri\": \"docs/lint.md\", \"rules\": [" + rule_list +
         "]}},\n    \"invocations\": [{\"executionSuccessful\": " + (ok ? "true" : "false") +
         ", \"toolExecutionNotifications\": [" + notes + "]}],\n    \"results\": [" + results +
         "]\n  }]\n}\n";
}

} // namespace ptxgen::lint
