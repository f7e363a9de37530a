#include "driver/cuda/device_buffer.hpp"

#if PTXGEN_CUDA_HEADERS

#include <stdexcept>
#include <utility>

namespace ptxgen::driver::cuda {

DeviceBuffer::DeviceBuffer(std::shared_ptr<const DriverApi> api, std::size_t bytes,
                           std::string label)
    : api_(std::move(api)), size_(bytes == 0 ? 1 : bytes), label_(std::move(label)) {
  check(*api_, api_->cuMemAlloc_v2(&address_, size_),
        "cuMemAlloc of " + std::to_string(size_) + " bytes for " + label_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : api_(other.api_), address_(std::exchange(other.address_, 0)), size_(other.size_),
      label_(std::move(other.label_)) {}

DeviceBuffer::~DeviceBuffer() {
  if (address_ != 0) {
    api_->cuMemFree_v2(address_); // an error (sticky fault) is ignored: the reset frees it
  }
}

void DeviceBuffer::upload(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != size_) {
    throw std::logic_error("DeviceBuffer::upload: size mismatch for " + label_);
  }
  check(*api_, api_->cuMemcpyHtoD_v2(address_, bytes.data(), bytes.size()),
        "cuMemcpyHtoD of " + std::to_string(bytes.size()) + " bytes to " + label_);
}

void DeviceBuffer::download(std::span<std::uint8_t> bytes) const {
  if (bytes.size() != size_) {
    throw std::logic_error("DeviceBuffer::download: size mismatch for " + label_);
  }
  check(*api_, api_->cuMemcpyDtoH_v2(bytes.data(), address_, bytes.size()),
        "cuMemcpyDtoH of " + std::to_string(bytes.size()) + " bytes from " + label_);
}

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
