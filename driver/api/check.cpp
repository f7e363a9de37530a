#include "driver/api/check.hpp"

#include "driver/run/spec_files.hpp"

namespace ptxgen::api {

namespace {

lower::LowerOptions lower_options(const EmitOptions& o) {
  lower::LowerOptions lo;
  lo.target = o.target;
  lo.version = o.version;
  lo.header_comments = o.header_comments;
  lo.raise_target = o.raise_target;
  return lo;
}

EmitResult checked(const tile::Kernel& kernel, const EmitOptions& options,
                   driver::Findings findings) {
  const lower::LowerOptions lo = lower_options(options);
  driver::EmittedSpec e;
  driver::check_into(e, kernel, lo, findings);
  EmitResult out;
  out.target = e.module ? e.module->target : lower::lowered_target(kernel, lo);
  out.diagnostics = std::move(e.diagnostics);
  if (e.ok())
    out.ptx = std::move(e.ptx);
  return out;
}

EmitResult checked(const KernelBuilder& builder, const EmitOptions& options,
                   driver::Findings findings) {
  Diagnostics own = builder.diagnostics();
  if (own.has_errors())
    return emit_contract_only(builder, options);
  EmitResult out = checked(builder.kernel(), options, findings);
  own.append(out.diagnostics);
  out.diagnostics = std::move(own);
  return out;
}

} // namespace

Diagnostics check(const tile::Kernel& kernel, const EmitOptions& options) {
  EmitOptions o = options;
  o.header_comments.clear();
  return checked(kernel, o, driver::Findings::all).diagnostics;
}

Diagnostics check(const KernelBuilder& builder, const EmitOptions& options) {
  EmitOptions o = options;
  o.header_comments.clear();
  return checked(builder, o, driver::Findings::all).diagnostics;
}

EmitResult emit_checked(const tile::Kernel& kernel, const EmitOptions& options) {
  return checked(kernel, options, driver::Findings::errors);
}

EmitResult emit_checked(const tile::Kernel& kernel, ptx::Target target) {
  EmitOptions o;
  o.target = target;
  return emit_checked(kernel, o);
}

EmitResult emit_checked(const KernelBuilder& builder, const EmitOptions& options) {
  return checked(builder, options, driver::Findings::errors);
}

EmitResult emit_checked(const KernelBuilder& builder, ptx::Target target) {
  EmitOptions o;
  o.target = target;
  return emit_checked(builder, o);
}

} // namespace ptxgen::api
