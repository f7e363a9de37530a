#pragma once
// `ptxgen bench` on the GPU: times one kernel with CUDA events and, in the same
// run and context, cuMemcpyDtoD of the same byte count, the ceiling it is compared with.
//
// In this process (no isolated runner: nothing else runs here, and a fault ends the
// command): the device's primary context, the module loaded from the cubin (or the PTX
// through the JIT), one allocation per buffer uploaded with its initial bytes, then
// `warmup` untimed launches and `reps` timed ones, each between its own pair of events on
// the legacy default stream; then the same for cuMemcpyDtoD between two scratch
// allocations of `bytes_moved / 2` bytes (a device-to-device copy of N bytes reads N and
// writes N). The kernel's output is not checked here: `ptxgen run --backend cuda` is the
// correctness check.

#include "driver/cuda/device.hpp"
#include "driver/cuda/runner.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxgen::driver::cuda {

struct BenchOptions {
  int device = 0;
  /// untimed launches (and copies) before the timed ones: on the H200 cuMemcpyDtoD's first
  /// 5 timed copies after 3 warm-up ones were 11% slower than the rest (docs/benchmarks.md)
  unsigned warmup = 10;
  unsigned reps = 20;                           ///< timed launches (and copies), at least 1
  std::string library = default_driver_library; ///< the driver library (tests)
};

/// One method's timed repetitions, in milliseconds.
struct BenchTimes {
  std::vector<double> ms; ///< every repetition, in order
  double median_ms = 0;   ///< the middle one (the mean of the two middle ones when even)
  double min_ms = 0;
};
/// The median and minimum of `ms` (both 0 when empty).
BenchTimes summarize(std::vector<double> ms);

/// The global bytes one launch of `k` moves, as `ptxgen bench` counts them (docs/benchmarks.md):
/// each global tensor's whole size once if some op reads it (the source of an apply or a
/// copy) plus once if some op writes it (the destination of an apply, a copy or a fill).
/// Whole tensors, not the bytes of the views: a tensor an op touches only partly is
/// counted whole, and a tensor read twice is counted once.
std::uint64_t spec_bytes_moved(const tile::Kernel& k);

/// Decimal gigabytes per second of `bytes` in `ms` milliseconds (0 when ms is 0).
double gb_per_s(std::uint64_t bytes, double ms);

struct BenchOutcome {
  enum class Status : std::uint8_t {
    ok,        ///< timed
    no_device, ///< no usable GPU (or built without CUDA): the environment's
    failed,    ///< the module, an allocation, the launch or a copy failed
  };
  Status status = Status::failed;
  std::string message; ///< why not ok
  DeviceInfo device;
  std::uint64_t bytes = 0;        ///< moved by one launch (the caller's count)
  std::uint64_t memcpy_bytes = 0; ///< cuMemcpyDtoD's ByteCount: bytes / 2 (at least 1)
  BenchTimes kernel;
  BenchTimes memcpy;
  int registers = 0; ///< per thread, from cuFuncGetAttribute
  /// CTAs of the kernel resident on one SM at its launch's block and dynamic shared memory
  /// (cuOccupancyMaxActiveBlocksPerMultiprocessor): the residency it got.
  int residency = 0;

  double kernel_gb_per_s() const { return gb_per_s(bytes, kernel.median_ms); }
  double memcpy_gb_per_s() const { return gb_per_s(2 * memcpy_bytes, memcpy.median_ms); }
  /// The kernel's bandwidth as a percentage of cuMemcpyDtoD's (medians).
  double percent_of_memcpy() const {
    const double m = memcpy_gb_per_s();
    return m > 0 ? 100.0 * kernel_gb_per_s() / m : 0;
  }
};

/// Times `kernel` (its cubin or PTX, entry, launch shape, buffers with their initial
/// bytes, parameters; its timeout and guard bytes are not used) as the header says.
/// `bytes_moved`: the bytes one launch reads and writes in global memory (the caller's
/// count; bench_bytes in driver/cli/cmd_bench.cpp for a spec). Never throws.
BenchOutcome run_bench(const LaunchRequest& kernel, std::uint64_t bytes_moved,
                       const BenchOptions& options);

} // namespace ptxgen::driver::cuda
