#pragma once
// What a conformance run checks before its first case (run_conformance, conformance.cpp):
// the backend (the GPUs it asks for, all of one compute capability, or the simulator's
// target), ptxas and, with --sanitize, compute-sanitizer; and how its description names
// them.

#include "driver/cuda/isolated_runner.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/run/conformance.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver {

/// What a run checks before its first case: the backend and ptxas.
struct RunSetup {
  ConformanceReport::Setup state = ConformanceReport::Setup::ready;
  std::string problem;                    ///< why state is not ready
  std::vector<cuda::IsolatedRunner> gpus; ///< one per device (cuda), in the order asked
  std::optional<PtxasLocation> ptxas;
  ptx::Target arch = emitted_target;
  std::string description;
  /// The description's parts (sim_description): the backend, ptxas, the options after them.
  std::string runs_on, ptxas_text, extras;
  std::optional<std::filesystem::path> sanitizer; ///< --sanitize: the compute-sanitizer found
  std::filesystem::path self;                     ///< --sanitize: this program, the device worker
};

/// The target ptxas assembles a kernel lowered for `kernel` for, on a run whose target is `run`:
/// the simulator runs any, so a newer kernel target wins; a GPU runs its own target's code and
/// that target's arch-specific variant (an sm_90 device runs sm_90a code: setmaxnreg,
/// tensormap.replace), which ptxas assembles for sm_90a alone.
ptx::Target assembly_target(Backend backend, ptx::Target run, ptx::Target kernel);

/// "ptxgen's PTX for sm_80" or "the PTX of 'k.ptx' (--ptx)".
std::string whose_ptx(const ConformanceOptions& o);

/// Finds the GPU (cuda) and ptxas, and checks that ptxas assembles for the target.
/// The CUDA backend forks a child per case and needs a process that has not
/// initialised CUDA: this runs before any worker thread starts.
RunSetup set_up(const ConformanceOptions& o);

} // namespace ptxgen::driver
