#pragma once
// The driver's check, emit, assemble and run for C++ callers (docs/library.md): thin
// wrappers over driver/ptxas and driver/run, linked from `ptxgen::driver`.
//
//   auto e = ptxgen::api::emit_checked(builder); // check.hpp: refuses what `ptxgen check` does
//   auto a = ptxgen::api::assemble(*e.ptx, ptxgen::api::sm(90));
//   if (a.cubin) load(*a.cubin); else for (auto& d : a.diagnostics) report(d);

#include "driver/api/check.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/run/conformance.hpp"
#include "emitter/api/emit.hpp"
#include "emitter/ptx/target.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::api {

using driver::Backend;           // Backend::sim, Backend::cuda
using driver::CaseResult;        // one case's status, stage, detail and diagnostics
using driver::ConformanceReport; // report.all_passed(), report.cases
using driver::name;              // name(Backend), name(CaseResult::Status), name(Stage)
using driver::ResourceUsage;     // ptxas -v's registers and shared bytes

struct AssembleOptions {
  /// ptxas to run; empty: the usual search (PTXGEN_PTXAS, the configured toolkit, PATH).
  std::string ptxas{};
  /// The name of the PTX in diagnostics (their `file`).
  std::string ptx_name = "<ptx>";
  std::vector<std::string> extra_args{}; ///< appended to ptxas's argv
};

struct AssembleOutput {
  std::optional<std::vector<std::uint8_t>> cubin; ///< present exactly when ptxas accepted it
  /// ptxas's errors and warnings at their PTX lines (run_ptxas_rejected,
  /// run_ptxas_warning), or why ptxas could not run (run_ptxas_unavailable).
  Diagnostics diagnostics;
  std::vector<ResourceUsage> usage; ///< per entry, from ptxas -v
};

/// Assembles PTX text for `arch` into a cubin with ptxas.
AssembleOutput assemble(std::string_view ptx, ptx::Target arch,
                        const AssembleOptions& options = {});

/// `ptxgen run` over spec files (or directories, as the command expands them): emit,
/// ptxas, the backend (the simulator or the GPU), compared with the CPU reference.
driver::ConformanceReport run_conformance(const std::vector<std::filesystem::path>& specs,
                                          driver::Backend backend = driver::Backend::sim,
                                          driver::ConformanceOptions options = {});

/// The same for a kernel built in C++ (or loaded), run as one case straight from memory
/// (nothing is written); the case's `spec` is the kernel's file, or its name when it has none.
driver::ConformanceReport run_kernel(const tile::Kernel& kernel,
                                     driver::Backend backend = driver::Backend::sim,
                                     driver::ConformanceOptions options = {});
/// The same for the target `emitted` was emitted for (EmitResult::target), unless
/// `options.target` says otherwise: the run is of the PTX the caller saw.
driver::ConformanceReport run_kernel(const tile::Kernel& kernel, const EmitResult& emitted,
                                     driver::Backend backend = driver::Backend::sim,
                                     driver::ConformanceOptions options = {});
/// A builder's kernel, for `target` (default: `ptxgen emit`'s); a builder in error is one
/// case in error at the emit stage carrying the builder's diagnostics.
driver::ConformanceReport run_kernel(const KernelBuilder& builder,
                                     driver::Backend backend = driver::Backend::sim,
                                     driver::ConformanceOptions options = {});

} // namespace ptxgen::api
