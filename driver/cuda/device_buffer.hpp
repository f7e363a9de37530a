#pragma once
// RAII over one device allocation (cuMemAlloc / cuMemFree). Internal to driver/cuda.

#include "driver/cuda/driver_api.hpp"

#if PTXGEN_CUDA_HEADERS

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace ptxgen::driver::cuda {

class DeviceBuffer {
public:
  /// Allocates `bytes` (at least 1) in the current context. cuMemAlloc aligns
  /// to at least 256 bytes. Throws CudaError; `label` names it in messages.
  DeviceBuffer(std::shared_ptr<const DriverApi> api, std::size_t bytes, std::string label);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  CUdeviceptr address() const { return address_; }
  std::size_t size() const { return size_; }
  /// Synchronous copies of the whole allocation; `bytes.size()` must equal size().
  void upload(std::span<const std::uint8_t> bytes);
  void download(std::span<std::uint8_t> bytes) const;
  /// Forgets the allocation without freeing it (after a hung kernel).
  void leak() { address_ = 0; }

private:
  std::shared_ptr<const DriverApi> api_;
  CUdeviceptr address_ = 0;
  std::size_t size_ = 0;
  std::string label_;
};

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
