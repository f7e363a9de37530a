#include "emitter/api/emit.hpp"

#include "emitter/ptx/printer.hpp"

namespace ptxgen::api {

EmitResult emit(const tile::Kernel& kernel, const EmitOptions& options) {
  lower::LowerOptions lo;
  lo.target = options.target;
  lo.version = options.version;
  lo.header_comments = options.header_comments;
  auto lowered = lower::lower(kernel, lo);
  EmitResult out;
  out.diagnostics = lowered.diagnostics.items();
  if (lowered)
    out.ptx = ptx::print(*lowered.value);
  return out;
}

EmitResult emit(const tile::Kernel& kernel, ptx::Target target) {
  EmitOptions o;
  o.target = target;
  return emit(kernel, o);
}

EmitResult emit(const KernelBuilder& builder, const EmitOptions& options) {
  const Diagnostics own = builder.diagnostics();
  if (own.has_errors())
    return EmitResult{std::nullopt, own.items()};
  EmitResult out = emit(builder.kernel(), options);
  out.diagnostics.insert(out.diagnostics.begin(), own.items().begin(), own.items().end());
  return out;
}

EmitResult emit(const KernelBuilder& builder, ptx::Target target) {
  EmitOptions o;
  o.target = target;
  return emit(builder, o);
}

} // namespace ptxgen::api
