#pragma once
// The whole of `ptxgen check` for a kernel built in C++ or loaded from a spec, and the PTX of
// what it accepts: the library's route to PTX (docs/library.md). The std-only emitter's
// emit_contract_only (emitter/api/emit.hpp) proves the per-op contract alone; these add the
// whole-launch checks, which are runs: the range proofs (every value of each declared
// range), the reference's hazards (a read before its wait or without the barrier, copies
// never waited for, uninitialised bytes reaching an output), the mbarrier walk and the
// expectations. The CLI's check, emit and golden and Python's Kernel.check and Kernel.emit
// run this same code (driver::check_into), so every door refuses the same kernels with the
// same DiagIds at the same positions.
//
//   ptxgen::api::EmitResult r = ptxgen::api::emit_checked(builder, ptxgen::api::sm(80));
//   if (r.ptx) write(*r.ptx); else for (auto& d : r.diagnostics) report(d.id, d.line);
//
// Results are cached in memory by the kernel's content and the options
// (driver/run/result_cache.hpp): checking or emitting an unchanged kernel again costs a key.

#include "emitter/api/emit.hpp"
#include "emitter/api/kernel_builder.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

namespace ptxgen::api {

/// Every diagnostic `ptxgen check` gives for the kernel at `options` (its target, version and
/// raise_target; header_comments are ignored): errors, warnings and the range proof's notes
/// (check_param_coverage). A builder in error gives its own diagnostics and the contract's
/// over the ops it built (emit_contract_only's), since no run can be made of it.
Diagnostics check(const tile::Kernel& kernel, const EmitOptions& options = {});
Diagnostics check(const KernelBuilder& builder, const EmitOptions& options = {});

/// The PTX `ptxgen emit` prints for the kernel, present exactly when check() finds no
/// error; the diagnostics are the errors that refused it, or the warnings that came with it.
EmitResult emit_checked(const tile::Kernel& kernel, const EmitOptions& options = {});
EmitResult emit_checked(const tile::Kernel& kernel, ptx::Target target);
EmitResult emit_checked(const KernelBuilder& builder, const EmitOptions& options = {});
EmitResult emit_checked(const KernelBuilder& builder, ptx::Target target);

} // namespace ptxgen::api
