#include "emitter/api/emit.hpp"

#include "emitter/ptx/printer.hpp"
#include "emitter/tile/contract.hpp"

namespace ptxgen::api {

EmitResult emit_contract_only(const tile::Kernel& kernel, const EmitOptions& options) {
  lower::LowerOptions lo;
  lo.target = options.target;
  lo.version = options.version;
  lo.header_comments = options.header_comments;
  lo.raise_target = options.raise_target;
  auto lowered = lower::lower(kernel, lo);
  EmitResult out;
  out.target = lower::lowered_target(kernel, lo);
  out.diagnostics = lowered.diagnostics;
  if (lowered)
    out.ptx = ptx::print(*lowered.value);
  return out;
}

EmitResult emit_contract_only(const tile::Kernel& kernel, ptx::Target target) {
  EmitOptions o;
  o.target = target;
  return emit_contract_only(kernel, o);
}

EmitResult emit_contract_only(const KernelBuilder& builder, const EmitOptions& options) {
  Diagnostics found = builder.diagnostics();
  if (found.has_errors()) {
    // The ops in error were left out; the rest are whole, and the contract checks each op
    // on its own, so its findings are not consequences of the builder's.
    lower::LowerOptions lo;
    lo.target = options.target;
    lo.raise_target = options.raise_target;
    const ptx::Target target = lower::lowered_target(builder.kernel(), lo);
    found.append(tile::check_contract(builder.kernel(), target));
    return EmitResult{std::nullopt, std::move(found), target};
  }
  EmitResult out = emit_contract_only(builder.kernel(), options);
  found.append(out.diagnostics);
  out.diagnostics = std::move(found);
  return out;
}

EmitResult emit_contract_only(const KernelBuilder& builder, ptx::Target target) {
  EmitOptions o;
  o.target = target;
  return emit_contract_only(builder, o);
}

} // namespace ptxgen::api
