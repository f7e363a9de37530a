#include "driver/cuda/stream.hpp"

#if PTXGEN_CUDA_HEADERS

#include <utility>

namespace ptxgen::driver::cuda {

Stream::Stream(std::shared_ptr<const DriverApi> api, const std::string& label)
    : api_(std::move(api)) {
  check(*api_, api_->cuStreamCreate(&stream_, CU_STREAM_DEFAULT), "cuStreamCreate for " + label);
}

Stream::Stream(Stream&& other) noexcept
    : api_(other.api_), stream_(std::exchange(other.stream_, nullptr)) {}

Stream::~Stream() {
  if (stream_ != nullptr) {
    api_->cuStreamDestroy_v2(stream_); // an error (sticky fault) is ignored: the reset frees it
  }
}

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
