#include "driver/api/driver.hpp"

#include "driver/ptxas/ptxas_output.hpp"
#include "driver/run/spec_files.hpp"

namespace ptxgen::api {

namespace {

/// A report of one case in error (the spec could not be named or written).
driver::ConformanceReport failed_case(std::string spec, std::string detail,
                                      driver::CaseResult::Blame blame) {
  driver::ConformanceReport r;
  driver::CaseResult c;
  c.spec = std::move(spec);
  c.status = driver::CaseResult::Status::error;
  c.blame = blame;
  c.detail = std::move(detail);
  r.cases.push_back(std::move(c));
  return r;
}

Diagnostic unavailable(const AssembleOptions& o, std::string message) {
  Diagnostic d(DiagId::run_ptxas_unavailable, std::move(message));
  d.file = o.ptx_name;
  return d;
}

} // namespace

AssembleOutput assemble(std::string_view ptx, ptx::Target arch, const AssembleOptions& options) {
  AssembleOutput out;
  auto where = driver::locate_ptxas(options.ptxas);
  if (!where) {
    out.diagnostics.add(unavailable(options, where.error()));
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
    out.diagnostics.add(unavailable(options, r.describe()));
    return out;
  }
  out.diagnostics = driver::ptxas_diagnostics(r, {options.ptx_name, false}, arch);
  if (r.ok())
    out.cubin = std::move(r.cubin);
  return out;
}

driver::ConformanceReport run_conformance(const std::vector<std::filesystem::path>& specs,
                                          driver::Backend backend,
                                          driver::ConformanceOptions options) {
  options.backend = backend;
  std::vector<std::string> args;
  for (const auto& s : specs)
    args.push_back(s.string());
  auto expanded = driver::expand_spec_arguments(args, driver::SpecWalk::valid_and_faults);
  if (!expanded)
    return failed_case(specs.empty() ? std::string() : specs.front().string(), expanded.error(),
                       driver::CaseResult::Blame::input);
  return driver::run_conformance(*expanded, options, {});
}

driver::ConformanceReport run_kernel(const tile::Kernel& kernel, driver::Backend backend,
                                     driver::ConformanceOptions options) {
  options.backend = backend;
  const std::string name = kernel.file.empty() ? kernel.name : kernel.file;
  return driver::run_conformance(std::vector<driver::ConformanceCase>{{name, {}, &kernel}}, options,
                                 {});
}

driver::ConformanceReport run_kernel(const tile::Kernel& kernel, const EmitResult& emitted,
                                     driver::Backend backend, driver::ConformanceOptions options) {
  if (!options.target)
    options.target = emitted.target;
  return run_kernel(kernel, backend, std::move(options));
}

driver::ConformanceReport run_kernel(const KernelBuilder& builder, driver::Backend backend,
                                     driver::ConformanceOptions options) {
  const Diagnostics own = builder.diagnostics();
  if (!own.has_errors())
    return run_kernel(builder.kernel(), backend, std::move(options));
  const tile::Kernel& k = builder.kernel();
  driver::ConformanceReport r =
      failed_case(k.file.empty() ? k.name : k.file, "the builder reported errors",
                  driver::CaseResult::Blame::input);
  r.cases.front().status = driver::CaseResult::Status::invalid;
  r.cases.front().blame = driver::CaseResult::Blame::none;
  r.cases.front().stage = driver::CaseResult::Stage::emit;
  r.cases.front().diagnostics = own;
  return r;
}

} // namespace ptxgen::api
