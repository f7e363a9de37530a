#include "driver/cuda/driver_api.hpp"

#if PTXGEN_CUDA_HEADERS

#include "driver/cuda/device.hpp"
#include "driver/cuda/error.hpp"

#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>

#include <dlfcn.h>

namespace ptxgen::driver::cuda {
namespace {

std::atomic<bool> opened_here{false};

constexpr const char* default_library = "libcuda.so.1";

Fallible<std::shared_ptr<const DriverApi>> load(const std::string& library) {
  // RTLD_LOCAL: the driver's symbols must not satisfy anyone else's references.
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* detail = ::dlerror();
    return Failure{"no CUDA driver: " + library + " could not be loaded" +
                   (detail != nullptr ? std::string(" (") + detail + ")" : std::string())};
  }
  auto api = std::make_shared<DriverApi>();
  api->library = handle;
  std::string missing;
  // dlsym yields an object pointer; memcpy converts it to the function pointer
  // without the conditionally-supported cast that -Wpedantic flags.
#define PTXGEN_CUDA_RESOLVE(name)                                                                  \
  if (void* symbol = ::dlsym(handle, #name); symbol != nullptr) {                                  \
    static_assert(sizeof(api->name) == sizeof(symbol));                                            \
    std::memcpy(&api->name, &symbol, sizeof symbol);                                               \
  } else if (missing.empty()) {                                                                    \
    missing = #name;                                                                               \
  }
  PTXGEN_CUDA_DRIVER_FUNCTIONS(PTXGEN_CUDA_RESOLVE)
#undef PTXGEN_CUDA_RESOLVE
#define PTXGEN_CUDA_RESOLVE_OPTIONAL(name)                                                         \
  if (void* symbol = ::dlsym(handle, #name); symbol != nullptr) {                                  \
    static_assert(sizeof(api->name) == sizeof(symbol));                                            \
    std::memcpy(&api->name, &symbol, sizeof symbol);                                               \
  }
  PTXGEN_CUDA_OPTIONAL_DRIVER_FUNCTIONS(PTXGEN_CUDA_RESOLVE_OPTIONAL)
#undef PTXGEN_CUDA_RESOLVE_OPTIONAL
  if (!missing.empty()) {
    // The handle stays open: closing a half-initialised driver gains nothing.
    return Failure{library + " is not a usable CUDA driver: it has no " + missing +
                   " (not a CUDA driver, or one too old)"};
  }
  opened_here = true; // only a real driver counts: its cuInit is what a fork cannot inherit
  return std::shared_ptr<const DriverApi>(std::move(api));
}

} // namespace

bool driver_loaded_in_this_process() {
  return opened_here;
}

Fallible<std::shared_ptr<const DriverApi>> open_driver_api(const std::string& library) {
  if (library != default_library) {
    return load(library);
  }
  // Loaded once; a failure is remembered too (dlopen of a missing driver is not retried).
  static std::once_flag once;
  static std::optional<Fallible<std::shared_ptr<const DriverApi>>> shared;
  std::call_once(once, [] { shared.emplace(load(default_library)); });
  return *shared;
}

std::string error_name(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  if (api.cuGetErrorName(result, &name) == CUDA_SUCCESS && name != nullptr) {
    return name;
  }
  return "CUresult " + std::to_string(static_cast<int>(result));
}

std::string error_string(const DriverApi& api, CUresult result) {
  const char* text = nullptr;
  if (api.cuGetErrorString(result, &text) == CUDA_SUCCESS && text != nullptr) {
    return text;
  }
  return {};
}

std::string describe_error(const DriverApi& api, CUresult result, std::string_view what) {
  std::string message(what);
  message += ": ";
  message += error_name(api, result);
  if (std::string text = error_string(api, result); !text.empty()) {
    message += ": ";
    message += text;
  }
  return message;
}

void check(const DriverApi& api, CUresult result, std::string_view what) {
  if (result != CUDA_SUCCESS) {
    throw CudaError(static_cast<int>(result), error_name(api, result),
                    describe_error(api, result, what));
  }
}

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
