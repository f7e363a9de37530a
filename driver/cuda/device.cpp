#include "driver/cuda/device.hpp"

#include "driver/cuda/config.hpp"

#if PTXGEN_CUDA_HEADERS
#include "driver/cuda/driver_api.hpp"
#include "driver/cuda/error.hpp"

#include <array>
#endif

namespace ptxgen::driver::cuda {

std::string DeviceInfo::arch() const {
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

bool built_with_cuda() {
  return PTXGEN_CUDA_HEADERS != 0;
}

#if PTXGEN_CUDA_HEADERS

Fallible<DeviceInfo> probe_device(int ordinal, const std::string& library) {
  auto opened = open_driver_api(library);
  if (!opened) {
    return Failure{opened.error()};
  }
  const auto& api = *opened;
  try {
    check(*api, api->cuInit(0), "cuInit");
    int count = 0;
    check(*api, api->cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count == 0) {
      return Failure{"no CUDA device"};
    }
    if (ordinal < 0 || ordinal >= count) {
      return Failure{"CUDA device " + std::to_string(ordinal) + " requested, but there " +
                     (count == 1 ? "is only 1" : "are only " + std::to_string(count)) +
                     " (ordinals start at 0)"};
    }
    CUdevice device = 0;
    const std::string at = " for device " + std::to_string(ordinal);
    check(*api, api->cuDeviceGet(&device, ordinal), "cuDeviceGet" + at);
    DeviceInfo info;
    info.ordinal = ordinal;
    info.device_count = count;
    std::array<char, 256> name{};
    check(*api, api->cuDeviceGetName(name.data(), static_cast<int>(name.size()), device),
          "cuDeviceGetName" + at);
    name.back() = '\0';
    info.name = name.data();
    check(*api,
          api->cuDeviceGetAttribute(&info.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                    device),
          "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)" + at);
    check(*api,
          api->cuDeviceGetAttribute(&info.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                    device),
          "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)" + at);
    check(*api, api->cuDriverGetVersion(&info.driver_version), "cuDriverGetVersion");
    std::size_t bytes = 0;
    check(*api, api->cuDeviceTotalMem_v2(&bytes, device), "cuDeviceTotalMem" + at);
    info.total_memory = bytes;
    return info;
  } catch (const CudaError& e) {
    return Failure{e.what()};
  }
}

#else

bool driver_loaded_in_this_process() {
  return false;
}

Fallible<DeviceInfo> probe_device(int /*ordinal*/, const std::string& /*library*/) {
  return Failure{
      "built without CUDA support (the CUDA toolkit's cuda.h was not found at configure time)"};
}

#endif

} // namespace ptxgen::driver::cuda
