#pragma once
// Runs cases in forked child processes, so that a fault or a hang costs that
// case only.
//
// Why: on the CUDA 13.0 driver (580) a sticky kernel fault (MISALIGNED_ADDRESS,
// ILLEGAL_ADDRESS, ...) poisons the whole process. After it,
// cuDevicePrimaryCtxReset succeeds but cuDevicePrimaryCtxRetain keeps returning
// the same error (seen on an H200), exactly as NVIDIA documents: "to continue
// using CUDA, the process must be terminated and relaunched". The in-process
// Runner therefore reports the fault and then becomes unavailable.
//
// launch_batch forks one child that runs the cases in order with one
// in-process Runner (one context) and streams each outcome back through a pipe
// as it is known (frame.hpp, batch_process.hpp). A fault ends that child after
// its case; a kernel past its timeout is reported as timed_out and the child is
// killed, which ends the kernel; a child that dies costs the case it was on. In
// each of these the remaining cases go to a new child. So a batch pays for one
// context (~100-300 ms) plus one per fault or hang, instead of one per case.
//
// Requirement: this process must not have loaded the CUDA driver itself (no
// probe_device, no Runner) before, because a forked child cannot use CUDA
// that its parent initialised. The constructor checks and refuses otherwise.
// The children are forked from a possibly multi-threaded process; they only
// run the runner, write to the pipe and _exit.

#include "driver/cuda/device.hpp"
#include "driver/cuda/runner.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

  /// Runs one case in a new child: launch_batch of one request.
  LaunchOutcome launch(LaunchRequest request);

  /// Runs `requests` in order in as few children as the faults allow and
  /// returns their outcomes in request order; `on_done` (when given) sees each
  /// outcome as soon as it is known, in order. Besides the in-process statuses,
  /// a case whose child dies yields fault ("case X: the worker process was
  /// killed by signal 11 (...) before reporting an outcome"), and one that
  /// outlives request.timeout + 60 s (the context and the JIT) gets its child
  /// killed and yields timed_out. Every case is unavailable when available()
  /// is false.
  std::vector<LaunchOutcome>
  launch_batch(std::vector<LaunchRequest> requests,
               const std::function<void(std::size_t index, const LaunchOutcome&)>& on_done = {});

  /// Runs the cases `source` hands out (indices into `requests`), one at a
  /// time, in as few children as the faults allow (run_queue_in_children);
  /// `on_done` sees each outcome as soon as it is known. Several runners (one
  /// per device, each on its own thread) may share one source: each case goes
  /// to the device that asks first, and each device keeps its child, and its
  /// context, for as many cases as run without trouble. The children move from
  /// their own copies of `requests`; the caller's are left as they are. Every
  /// case is unavailable when available() is false.
  void launch_queue(std::vector<LaunchRequest>& requests,
                    const std::function<std::optional<std::size_t>()>& source,
                    const std::function<void(std::size_t index, const LaunchOutcome&)>& on_done);

private:
  int ordinal_;
  std::string library_;
  DeviceInfo info_;
  std::string reason_;
};

} // namespace ptxgen::driver::cuda
