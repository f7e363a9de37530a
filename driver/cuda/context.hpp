#pragma once
// RAII over a device's primary context (retain / release), plus the reset that
// recovers from a sticky fault. Internal to driver/cuda.

#include "driver/cuda/driver_api.hpp"

#if PTXGEN_CUDA_HEADERS

#include <memory>

namespace ptxgen::driver::cuda {

class PrimaryContext {
public:
  /// Retains the primary context of `device` and makes it current on this
  /// thread. Throws CudaError.
  PrimaryContext(std::shared_ptr<const DriverApi> api, CUdevice device);
  ~PrimaryContext();
  PrimaryContext(PrimaryContext&& other) noexcept;
  PrimaryContext& operator=(PrimaryContext&&) = delete;
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;

  /// Makes the context current on the calling thread (contexts are per thread).
  void make_current() const;
  CUcontext get() const { return context_; }
  /// Forgets the context without releasing it: after a hung kernel, releasing
  /// would wait for that kernel. The process must then exit.
  void leak() { context_ = nullptr; }

  /// Releases this retain and destroys the primary context with
  /// cuDevicePrimaryCtxReset (every allocation and module in it goes), which is
  /// the only way out of a sticky error such as CUDA_ERROR_ILLEGAL_ADDRESS.
  /// Throws CudaError when the reset fails; the object is empty afterwards.
  void release_and_reset();

private:
  std::shared_ptr<const DriverApi> api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
