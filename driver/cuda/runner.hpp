#pragma once
// Runs one case on a GPU: load the module, upload buffers framed by guard
// canaries, launch, wait with a time limit, copy back, check the guards.
//
// Fault isolation: a kernel that faults (CUDA_ERROR_ILLEGAL_ADDRESS,
// CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_ILLEGAL_INSTRUCTION,
// CUDA_ERROR_LAUNCH_FAILED, ...) leaves its context unusable ("sticky"); the
// runner reports the fault for that case, resets the device's primary context
// and retains a fresh one. On the CUDA 13.0 driver (580, seen on an H200) the
// retain then fails with the same error: the fault poisons the process, and
// the runner becomes unavailable. Use IsolatedRunner (isolated_runner.hpp) to
// keep running cases after a fault.
//
// A kernel that runs past its time limit cannot be stopped from inside the
// process. The runner reports timed_out, forgets (leaks) everything of that
// launch and refuses further launches (status unavailable); the caller must
// end the run and let the process exit, which makes the driver kill the
// kernel.
//
// Build note: libcuda is opened at run time (see driver_api.hpp), so this
// works in a binary that starts on machines without a driver.

#include "driver/cuda/device.hpp"
#include "driver/cuda/kernel_params.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver::cuda {

/// A global buffer of a case, on the host side.
struct HostBuffer {
  std::string name;                ///< the tensor name, used in messages and canary reports
  std::vector<std::uint8_t> bytes; ///< in a request: initial contents; in an outcome: final
};

/// A grid or block extent, as cuLaunchKernel takes it.
struct LaunchDims {
  unsigned x = 1;
  unsigned y = 1;
  unsigned z = 1;
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
  /// "4" for x only, else "[4, 8, 1]".
  std::string str() const {
    if (y == 1 && z == 1)
      return std::to_string(x);
    return "[" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + "]";
  }
};

struct LaunchRequest {
  std::string case_name;             ///< names the case in every message
  std::vector<std::uint8_t> cubin;   ///< the module; when empty, `ptx` is used
  std::string ptx;                   ///< PTX text, compiled by the driver's JIT (slower to load)
  std::string entry;                 ///< the .entry to launch
  LaunchDims grid;                   ///< blocks along x, y, z
  LaunchDims block;                  ///< threads per block along x, y, z
  unsigned dynamic_shared_bytes = 0; ///< extern .shared bytes, beyond the static ones
  /// CTAs per cluster along x, y, z: beyond one CTA the launch is cuLaunchKernelEx's with the
  /// cluster-dimension attribute (the entry's .reqnctapercluster must agree).
  LaunchDims cluster;
  /// 9..16 CTAs per cluster: the function opts in to non-portable cluster sizes first.
  bool cluster_non_portable = false;
  std::vector<HostBuffer> buffers; ///< each gets its own guarded device allocation
  std::vector<KernelParam> params; ///< in the entry's declaration order
  /// Launch + completion must finish within this; zero means no limit.
  std::chrono::milliseconds timeout{10000};
  /// Canary bytes before and after each buffer; rounded up to a multiple of 256
  /// so the data stays 256-byte aligned. Zero disables the guards.
  std::size_t guard_bytes = 256;
};

struct LaunchOutcome {
  enum class Status : std::uint8_t {
    ok,             ///< ran to completion, guards intact; buffers hold the results
    load_error,     ///< the module did not load (bad PTX/cubin, wrong arch) or lacks the entry
    launch_error,   ///< the launch was refused (bad params, block too large, out of memory)
    fault,          ///< the kernel faulted; error_name says how; the context was rebuilt
    timed_out,      ///< the kernel did not finish in time; the runner is now unavailable
    canary_damaged, ///< ran to completion but wrote into a guard; buffers hold the results
    unavailable,    ///< not run: no device, or an earlier launch hung or broke the context
  };
  Status status = Status::ok;
  std::string error_name; ///< the CUresult name, e.g. CUDA_ERROR_MISALIGNED_ADDRESS; "" if none
  std::string message;    ///< what happened, naming the case and the call that failed
  std::vector<HostBuffer> buffers; ///< copied back on ok and canary_damaged; empty otherwise
  /// "B: 16 bytes after the end overwritten (first at +0, last at +15)", one per damaged guard.
  std::vector<std::string> canary_reports;
  int registers = 0;           ///< per thread, from cuFuncGetAttribute (0 when not loaded)
  int static_shared_bytes = 0; ///< from cuFuncGetAttribute (0 when not loaded)
  double load_ms = 0;          ///< module load (JIT included) and function lookup
  double launch_ms = 0;        ///< cuLaunchKernel until the stream reports completion
  double copy_ms = 0;          ///< allocations, uploads and downloads

  /// True for ok only.
  bool succeeded() const { return status == Status::ok; }
};

/// "ok", "load_error", "launch_error", "fault", "timed_out", "canary_damaged", "unavailable".
std::string_view status_name(LaunchOutcome::Status status);

/// Launches cases on one device. Not thread-safe: use one Runner per thread
/// (or serialise calls). The primary context is retained on the first launch.
class Runner {
public:
  /// Probes device `ordinal`; never throws. When there is no usable device,
  /// available() is false and every launch returns Status::unavailable.
  /// `library` exists for tests.
  explicit Runner(int ordinal, const std::string& library = default_driver_library);
  ~Runner();
  Runner(Runner&&) noexcept;
  Runner& operator=(Runner&&) noexcept;
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  /// False without a device, and after a timeout or a failed context rebuild.
  bool available() const;
  /// Why available() is false ("no CUDA driver: ...", "case X did not finish ..."); "" otherwise.
  const std::string& unavailable_reason() const;
  /// The probed device; only ordinal is meaningful when no device was found.
  const DeviceInfo& device() const;

  /// Runs one case. Never throws for CUDA errors; every failure is an outcome.
  LaunchOutcome launch(LaunchRequest request);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace ptxgen::driver::cuda
