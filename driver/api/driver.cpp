#include "driver/api/driver.hpp"

#include "driver/run/pipeline.hpp"

#include <algorithm>

namespace ptxgen::api {

namespace {

Diagnostic unavailable(const AssembleOptions& o, std::string message) {
  Diagnostic d(DiagId::run_ptxas_unavailable, std::move(message));
  d.file = o.ptx_name;
  return d;
}

} // namespace

AssembleOutput assemble(std::string_view ptx, ptx::Target arch, const AssembleOptions& options) {
  AssembleOutput out;
  std::string error;
  auto where = driver::locate_ptxas(options.ptxas, error);
  if (!where) {
    out.diagnostics.push_back(unavailable(options, error));
    return out;
  }
  driver::AssembleOptions ao;
  ao.target = arch;
  ao.extra_args = options.extra_args;
  driver::AssembleResult r = driver::assemble(where->path, ptx, ao);
  out.usage = r.usage;
  using Status = driver::AssembleResult::Status;
  switch (r.status) {
  case Status::ok:
  case Status::rejected:
    break;
  case Status::failed_to_start:
  case Status::crashed:
  case Status::timed_out:
  case Status::io_error:
    out.diagnostics.push_back(unavailable(options, r.describe()));
    return out;
  }
  for (const driver::PtxasMessage& m : r.messages) {
    Diagnostic d(m.is_error ? DiagId::run_ptxas_rejected : DiagId::run_ptxas_warning, m.text,
                 m.is_error ? Severity::error : Severity::warning);
    d.file = options.ptx_name;
    d.line = m.line;
    d.column = m.line ? 1 : 0;
    d.source_line = m.ptx_line;
    out.diagnostics.push_back(std::move(d));
  }
  if (r.ok()) {
    out.cubin = std::move(r.cubin);
  } else if (std::none_of(out.diagnostics.begin(), out.diagnostics.end(),
                          [](const Diagnostic& d) { return d.severity == Severity::error; })) {
    // Rejected without a message ptxgen recognises: the description holds its output.
    Diagnostic d(DiagId::run_ptxas_rejected, r.describe());
    d.file = options.ptx_name;
    out.diagnostics.push_back(std::move(d));
  }
  return out;
}

driver::ConformanceReport run_conformance(const std::vector<std::filesystem::path>& specs,
                                          driver::Backend backend,
                                          driver::ConformanceOptions options) {
  options.backend = backend;
  std::vector<std::string> args;
  for (const auto& s : specs)
    args.push_back(s.string());
  std::vector<std::filesystem::path> expanded;
  std::string error;
  if (!driver::expand_spec_arguments(args, expanded, error)) {
    driver::ConformanceReport r;
    driver::CaseResult c;
    c.spec = specs.empty() ? std::string() : specs.front().string();
    c.status = driver::CaseResult::Status::error;
    c.blame = driver::CaseResult::Blame::input;
    c.detail = error;
    r.cases.push_back(std::move(c));
    return r;
  }
  return driver::run_conformance(expanded, options, {});
}

} // namespace ptxgen::api
