#pragma once
// One call from a kernel to PTX text with the standard library alone (docs/library.md):
// the per-op contract, the lowering, the validator and the printer. CONTRACT ONLY: the
// whole-launch checks of `ptxgen check` (the range proofs, the reference's hazards, the
// mbarrier walk, the expectations) are runs that live in the driver, so a kernel with a
// missing wait or a race can pass here. Link ptxgen::driver and call
// ptxgen::api::emit_checked / check (driver/api/check.hpp) for what `ptxgen emit` refuses.
//
//   ptxgen::api::EmitResult r = ptxgen::api::emit_contract_only(builder, ptxgen::api::sm(80));
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

// Everything a client names, in this one namespace (`using namespace ptxgen::api;`).
using ptx::PtxVersion;
using ptx::sm;   // sm(90): sm_90
using ptx::sm_a; // sm_a(90): sm_90a
using ptx::Target;
using ptxgen::DiagId;
using ptxgen::Diagnostic;
using ptxgen::Diagnostics;
using ptxgen::format;
using ptxgen::name; // name(DiagId); driver/api/driver.hpp adds the driver's enums
using ptxgen::Severity;

struct EmitOptions {
  ptx::Target target = lower::LowerOptions{}.target;     ///< `ptxgen emit`'s default
  std::optional<ptx::PtxVersion> version = std::nullopt; ///< default: the lowest that works
  std::vector<std::string> header_comments{};            ///< `// ...` lines before `.version`
  /// `target` is a floor: a kernel whose ops need a newer one (bulk copies: sm_90) is
  /// emitted for that, as `ptxgen emit` without --target does (EmitResult::target says which).
  bool raise_target = false;
};

struct EmitResult {
  std::optional<std::string> ptx = std::nullopt; ///< present exactly when no diagnostic is an error
  Diagnostics diagnostics{};                     ///< errors, or warnings that came with the PTX
  Target target{};                               ///< what the PTX is for (run_kernel runs it so)
  bool ok() const { return ptx.has_value(); }
};

/// Proves the per-op contract, lowers, validates and prints `kernel` (a spec's or a
/// builder's). Contract only: see the header comment.
EmitResult emit_contract_only(const tile::Kernel& kernel, const EmitOptions& options = {});
EmitResult emit_contract_only(const tile::Kernel& kernel, ptx::Target target);

/// The builder's own diagnostics first. With an error among them nothing is lowered, but
/// the contract's per-op checks still run over the ops that were built, so one emit reports
/// every independent error at once.
EmitResult emit_contract_only(const KernelBuilder& builder, const EmitOptions& options = {});
EmitResult emit_contract_only(const KernelBuilder& builder, ptx::Target target);

} // namespace ptxgen::api
