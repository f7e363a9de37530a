#pragma once
// One call from a kernel to checked PTX text (docs/library.md): the contract,
// the lowering, the validator and the printer, as `ptxgen emit` runs them.
//
//   ptxgen::api::EmitResult r = ptxgen::api::emit(builder, ptxgen::ptx::Target{80, false});
//   if (r.ptx) write(*r.ptx); else for (auto& d : r.diagnostics) report(d.id, d.line);

#include "emitter/api/kernel_builder.hpp"
#include "emitter/lower/lower.hpp"
#include "emitter/ptx/target.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ptxgen::api {

struct EmitOptions {
  ptx::Target target = lower::LowerOptions{}.target;     ///< `ptxgen emit`'s default
  std::optional<ptx::PtxVersion> version = std::nullopt; ///< default: the lowest that works
  std::vector<std::string> header_comments{};            ///< `// ...` lines before `.version`
};

struct EmitResult {
  std::optional<std::string> ptx = std::nullopt; ///< present exactly when no diagnostic is an error
  std::vector<Diagnostic> diagnostics{};         ///< errors, or warnings that came with the PTX
  bool ok() const { return ptx.has_value(); }
};

/// Checks, lowers, validates and prints `kernel` (a spec's or a builder's).
EmitResult emit(const tile::Kernel& kernel, const EmitOptions& options = {});
EmitResult emit(const tile::Kernel& kernel, ptx::Target target);

/// The builder's own diagnostics first: with an error among them nothing is lowered.
EmitResult emit(const KernelBuilder& builder, const EmitOptions& options = {});
EmitResult emit(const KernelBuilder& builder, ptx::Target target);

} // namespace ptxgen::api
