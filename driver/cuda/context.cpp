#include "driver/cuda/context.hpp"

#if PTXGEN_CUDA_HEADERS

#include <string>
#include <utility>

namespace ptxgen::driver::cuda {

PrimaryContext::PrimaryContext(std::shared_ptr<const DriverApi> api, CUdevice device)
    : api_(std::move(api)), device_(device) {
  check(*api_, api_->cuDevicePrimaryCtxRetain(&context_, device_),
        "cuDevicePrimaryCtxRetain for device " + std::to_string(device_));
  try {
    make_current();
  } catch (...) {
    api_->cuDevicePrimaryCtxRelease_v2(device_);
    context_ = nullptr;
    throw;
  }
}

PrimaryContext::PrimaryContext(PrimaryContext&& other) noexcept
    : api_(other.api_), device_(other.device_), context_(std::exchange(other.context_, nullptr)) {}

PrimaryContext::~PrimaryContext() {
  if (context_ != nullptr) {
    // Errors are ignored: a destructor has no one to tell, and a context in a
    // sticky-error state still releases.
    api_->cuCtxSetCurrent(nullptr);
    api_->cuDevicePrimaryCtxRelease_v2(device_);
  }
}

void PrimaryContext::make_current() const {
  check(*api_, api_->cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

void PrimaryContext::release_and_reset() {
  if (context_ != nullptr) {
    api_->cuCtxSetCurrent(nullptr);
    api_->cuDevicePrimaryCtxRelease_v2(device_);
    context_ = nullptr;
  }
  check(*api_, api_->cuDevicePrimaryCtxReset_v2(device_),
        "cuDevicePrimaryCtxReset for device " + std::to_string(device_));
}

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
