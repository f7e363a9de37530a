#pragma once
// Runs each case in a forked child process, so that a fault or a hang costs
// that case only.
//
// Why: on the CUDA 13.0 driver (580) a sticky kernel fault (MISALIGNED_ADDRESS,
// ILLEGAL_ADDRESS, ...) poisons the whole process. After it,
// cuDevicePrimaryCtxReset succeeds but cuDevicePrimaryCtxRetain keeps returning
// the same error (seen on an H200), exactly as NVIDIA documents: "to continue
// using CUDA, the process must be terminated and relaunched". The in-process
// Runner therefore reports the fault and then becomes unavailable.
//
// IsolatedRunner forks a child per launch; the child runs an in-process Runner
// and sends the LaunchOutcome back through a pipe (wire.hpp). A fault kills
// nothing but the child. A kernel past its timeout is reported as timed_out
// and the child is killed, which ends the kernel, so the next case runs too.
// The cost is a fresh context per case (~100-300 ms, plus the JIT for PTX).
//
// Requirement: this process must not have loaded the CUDA driver itself (no
// probe_device, no Runner) before, because a forked child cannot use CUDA
// that its parent initialised. The constructor checks and refuses otherwise.
// The children are forked from a possibly multi-threaded process; they only
// run the runner, write to the pipe and _exit.

#include "driver/cuda/device.hpp"
#include "driver/cuda/runner.hpp"

#include <memory>
#include <string>

namespace ptxgen::driver::cuda {

class IsolatedRunner {
public:
  /// Probes device `ordinal` in a child process; never throws.
  explicit IsolatedRunner(int ordinal, std::string library = default_driver_library);

  bool available() const { return reason_.empty(); }
  /// Why available() is false; "" otherwise.
  const std::string& unavailable_reason() const { return reason_; }
  /// The probed device; only ordinal is meaningful when none was found.
  const DeviceInfo& device() const { return info_; }

  /// Runs one case in a new child. Besides the in-process statuses, a child
  /// that dies before reporting yields fault ("the worker for case X was
  /// killed by signal 11"), and one that outlives request.timeout + 60 s (the
  /// context and the JIT) is killed and yields timed_out.
  LaunchOutcome launch(LaunchRequest request);

private:
  int ordinal_;
  std::string library_;
  DeviceInfo info_;
  std::string reason_;
};

} // namespace ptxgen::driver::cuda
