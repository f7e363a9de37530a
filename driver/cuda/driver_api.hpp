#pragma once
// The CUDA Driver API, opened at run time.
//
// libcuda.so.1 is loaded with dlopen and each entry point is looked up with
// dlsym under its versioned ABI name (cuMemAlloc_v2, not the cuda.h macro
// cuMemAlloc), so no cu* symbol is ever referenced at link time. The function
// pointer types come from <cuda.h> via decltype, so a signature mismatch is a
// compile error, not a crash.

#include "driver/cuda/config.hpp"
#include "emitter/support/result.hpp"

#if PTXGEN_CUDA_HEADERS

#include <memory>
#include <string>
#include <string_view>

#include <cuda.h>

namespace ptxgen::driver::cuda {

// Every entry point driver/cuda calls. X(name) with the exported symbol name.
#define PTXGEN_CUDA_DRIVER_FUNCTIONS(X)                                                            \
  X(cuGetErrorName)                                                                                \
  X(cuGetErrorString)                                                                              \
  X(cuInit)                                                                                        \
  X(cuDriverGetVersion)                                                                            \
  X(cuDeviceGetCount)                                                                              \
  X(cuDeviceGet)                                                                                   \
  X(cuDeviceGetName)                                                                               \
  X(cuDeviceGetAttribute)                                                                          \
  X(cuDeviceTotalMem_v2)                                                                           \
  X(cuDevicePrimaryCtxRetain)                                                                      \
  X(cuDevicePrimaryCtxRelease_v2)                                                                  \
  X(cuDevicePrimaryCtxReset_v2)                                                                    \
  X(cuCtxSetCurrent)                                                                               \
  X(cuCtxSynchronize)                                                                              \
  X(cuModuleLoadDataEx)                                                                            \
  X(cuModuleGetFunction)                                                                           \
  X(cuModuleUnload)                                                                                \
  X(cuFuncGetAttribute)                                                                            \
  X(cuFuncSetAttribute)                                                                            \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                                   \
  X(cuMemAlloc_v2)                                                                                 \
  X(cuMemFree_v2)                                                                                  \
  X(cuMemcpyHtoD_v2)                                                                               \
  X(cuMemcpyDtoH_v2)                                                                               \
  X(cuStreamCreate)                                                                                \
  X(cuStreamDestroy_v2)                                                                            \
  X(cuStreamQuery)                                                                                 \
  X(cuLaunchKernel)                                                                                \
  X(cuMemcpyDtoD_v2)                                                                               \
  X(cuEventCreate)                                                                                 \
  X(cuEventDestroy_v2)                                                                             \
  X(cuEventRecord)                                                                                 \
  X(cuEventSynchronize)                                                                            \
  X(cuEventElapsedTime_v2)

// Entry points a usable driver may lack (older than the feature): null when missing, and
// their callers say so. X(name) as above.
#define PTXGEN_CUDA_OPTIONAL_DRIVER_FUNCTIONS(X)                                                   \
  X(cuTensorMapEncodeTiled) X(cuLaunchKernelEx) X(cuTensorMapEncodeIm2col)

/// The loaded library and its entry points; every pointer is non-null but the optional ones.
struct DriverApi {
  void* library = nullptr; ///< the dlopen handle; never closed (the driver dislikes unloading)
#define PTXGEN_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  PTXGEN_CUDA_DRIVER_FUNCTIONS(PTXGEN_CUDA_DECLARE)
  PTXGEN_CUDA_OPTIONAL_DRIVER_FUNCTIONS(PTXGEN_CUDA_DECLARE)
#undef PTXGEN_CUDA_DECLARE
};

/// Opens `library` and resolves every entry point. A failure says why: "no CUDA
/// driver: libcuda.so.1 could not be loaded (...)" or "libc.so.6 is not a usable
/// CUDA driver: it has no cuInit".
/// "libcuda.so.1" is opened once per process and shared; other names (tests)
/// are opened on each call.
Fallible<std::shared_ptr<const DriverApi>> open_driver_api(const std::string& library);

/// "CUDA_ERROR_ILLEGAL_ADDRESS"; "CUresult 999999" when the driver has no name.
std::string error_name(const DriverApi& api, CUresult result);
/// The driver's description ("an illegal memory access was encountered"), or "".
std::string error_string(const DriverApi& api, CUresult result);
/// "`what`: NAME: description".
std::string describe_error(const DriverApi& api, CUresult result, std::string_view what);

/// Throws CudaError (see error.hpp) unless `result` is CUDA_SUCCESS.
/// `what` says what was being done: "cuMemAlloc of 4608 bytes for buffer A of case X".
void check(const DriverApi& api, CUresult result, std::string_view what);

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
