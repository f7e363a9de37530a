#pragma once
// Which GPU is there, if any: a probe that never crashes and says why not.

#include "emitter/support/result.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace ptxgen::driver::cuda {

struct DeviceInfo {
  int ordinal = 0;              ///< the CUDA device ordinal
  std::string name;             ///< "NVIDIA H200"
  int cc_major = 0;             ///< compute capability, major ("9" of 9.0)
  int cc_minor = 0;             ///< compute capability, minor
  int driver_version = 0;       ///< cuDriverGetVersion: 13000 for CUDA 13.0
  std::size_t total_memory = 0; ///< bytes of device memory
  int device_count = 0;         ///< how many devices the driver lists (`--devices all`)

  /// The ptxas target of this device: "sm_90" for compute capability 9.0.
  std::string arch() const;
};

/// True when this build has the CUDA headers (PTXGEN_HAVE_CUDA); false means
/// every probe answers "built without CUDA support".
bool built_with_cuda();

/// True once any CUDA driver library was loaded by this process (a probe, a
/// Runner). After that, a forked child cannot use CUDA, so IsolatedRunner
/// refuses to start (see isolated_runner.hpp).
bool driver_loaded_in_this_process();

/// The library a plain probe opens.
inline constexpr const char* default_driver_library = "libcuda.so.1";

/// Looks for device `ordinal`. Fails when no GPU can be used: "built without CUDA
/// support", "no CUDA driver: libcuda.so.1 could not be loaded (...)", "cuInit:
/// CUDA_ERROR_NO_DEVICE: ...", "no CUDA device", "CUDA device 2 requested, but there
/// are only 1". `library` exists for tests. Safe to call on any machine and from
/// several threads.
Fallible<DeviceInfo> probe_device(int ordinal, const std::string& library = default_driver_library);

} // namespace ptxgen::driver::cuda
