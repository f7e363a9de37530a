#pragma once
// RAII over a loaded module (cubin, or PTX compiled by the driver's JIT).
// Internal to driver/cuda.

#include "driver/cuda/driver_api.hpp"

#if PTXGEN_CUDA_HEADERS

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptxgen::driver::cuda {

/// What cuFuncGetAttribute says about a kernel.
struct KernelAttributes {
  int max_threads_per_block = 0; ///< the launch limit given its register use
  int num_regs = 0;              ///< registers per thread
  int static_shared_bytes = 0;   ///< .shared declared in the PTX
};

class Module {
public:
  /// Loads a cubin (when `cubin` is non-empty) or else `ptx` through the
  /// driver's JIT, in the current context. Throws CudaError whose message
  /// carries the JIT's error log. `label` names the case in messages.
  static Module load(std::shared_ptr<const DriverApi> api, const std::vector<std::uint8_t>& cubin,
                     const std::string& ptx, const std::string& label);
  ~Module();
  Module(Module&& other) noexcept;
  Module& operator=(Module&&) = delete;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// The kernel `entry`. Throws CudaError (CUDA_ERROR_NOT_FOUND when absent).
  CUfunction function(const std::string& entry, const std::string& label) const;
  KernelAttributes attributes(CUfunction function, const std::string& label) const;
  /// Forgets the module without unloading it (after a hung kernel).
  void leak() { module_ = nullptr; }

private:
  Module(std::shared_ptr<const DriverApi> api, CUmodule module)
      : api_(std::move(api)), module_(module) {}
  std::shared_ptr<const DriverApi> api_;
  CUmodule module_ = nullptr;
};

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
