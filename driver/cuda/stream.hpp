#pragma once
// RAII over a CUDA stream. Internal to driver/cuda.

#include "driver/cuda/driver_api.hpp"

#if PTXGEN_CUDA_HEADERS

#include <memory>
#include <string>

namespace ptxgen::driver::cuda {

class Stream {
public:
  /// A blocking stream (CU_STREAM_DEFAULT): work on it waits for earlier
  /// synchronous copies on the legacy default stream. Throws CudaError.
  Stream(std::shared_ptr<const DriverApi> api, const std::string& label);
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  CUstream get() const { return stream_; }
  /// CUDA_SUCCESS when all work is done, CUDA_ERROR_NOT_READY while it runs,
  /// an error (often sticky) when a kernel faulted. Does not throw.
  CUresult query() const { return api_->cuStreamQuery(stream_); }
  /// Forgets the stream without destroying it (after a hung kernel).
  void leak() { stream_ = nullptr; }

private:
  std::shared_ptr<const DriverApi> api_;
  CUstream stream_ = nullptr;
};

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
