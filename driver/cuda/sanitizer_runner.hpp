#pragma once
// Runs GPU cases under compute-sanitizer, one exec'd worker process per case.
//
// Why not IsolatedRunner: its workers are forked from the multi-threaded
// conformance run, and a whole `ptxgen run` wrapped in compute-sanitizer
// (--target-processes all) crashed the sanitizer once and hung it another
// time. Here every case is its own fresh program instead:
//
//   compute-sanitizer --tool TOOL --print-limit N --log-file DIR/sanitizer.log
//       /proc/self/exe device-worker --device D
//       --requests DIR/request.bin --out DIR/outcome.bin
//
// in a private temporary directory DIR. The worker (driver/cli/device_worker.cpp)
// runs the request with an in-process Runner and writes its outcome as a
// frame (frame.hpp); the log is parsed into a SanitizerReport. A case is
// attributed exactly: one case, one process, one log. Several cases run at
// once (`jobs` processes). Each process has a deadline: past it, its whole
// process group is killed (run_process), which costs that case only.
//
// No CUDA in this process: the sanitizer's child makes its own context.

#include "driver/cuda/runner.hpp"
#include "driver/cuda/sanitizer.hpp"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ptxgen::driver::cuda {

struct SanitizeOptions {
  SanitizerTool tool = SanitizerTool::memcheck;
  std::filesystem::path sanitizer; ///< the compute-sanitizer program
  std::filesystem::path worker;    ///< the ptxgen program that has `device-worker`
  int device = 0;
  unsigned jobs = 1; ///< sanitizer processes at once
  /// Findings printed in each log (the counts cover all of them).
  unsigned print_limit = 100;
  /// The whole sanitizer process of one case (start, JIT, the kernel under
  /// instrumentation, teardown); past it the process group is killed and the
  /// case is timed_out. The kernel's own limit inside the worker is half of it.
  std::chrono::milliseconds limit{std::chrono::seconds(120)};
  /// Passed to the worker as --driver-library when not empty (tests: a library
  /// that does not exist, so the worker answers `unavailable` without a GPU).
  std::string driver_library;
};

/// One case's result.
struct SanitizedOutcome {
  LaunchOutcome outcome;
  SanitizerReport report;
  /// The outcome is the worker's own (its frame arrived), not one made up here
  /// for a process that timed out or ended without answering.
  bool worker_answered = false;
};

/// The argv (after the program) of one case's sanitizer process.
std::vector<std::string> sanitizer_arguments(const SanitizeOptions& options,
                                             const std::filesystem::path& log,
                                             const std::filesystem::path& requests,
                                             const std::filesystem::path& outcomes);

/// Runs every request under the sanitizer and returns the outcomes in request
/// order. `on_done` (when given) sees each as it is known, one call at a time,
/// in any order. Besides the worker's own outcomes, a case yields timed_out when
/// its process passed options.limit, and unavailable (an environment failure:
/// the sanitizer or the worker broke) when the process ended without an
/// outcome; the report then says what the log holds (checked false when the
/// tool did not finish).
std::vector<SanitizedOutcome>
run_sanitized(std::vector<LaunchRequest> requests, const SanitizeOptions& options,
              const std::function<void(std::size_t, const SanitizedOutcome&)>& on_done = {});

} // namespace ptxgen::driver::cuda
