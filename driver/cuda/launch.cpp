#include "driver/cuda/launch.hpp"

#if PTXGEN_CUDA_HEADERS

#include "driver/cuda/error.hpp"

namespace ptxgen::driver::cuda {

void launch_kernel(const DriverApi& api, CUfunction function, const LaunchRequest& request,
                   CUstream stream, void** params, const std::string& what) {
  const LaunchDims& g = request.grid;
  const LaunchDims& b = request.block;
  if (request.cluster.count() <= 1) {
    check(api,
          api.cuLaunchKernel(function, g.x, g.y, g.z, b.x, b.y, b.z, request.dynamic_shared_bytes,
                             stream, params, nullptr),
          "cuLaunchKernel(" + what + ")");
    return;
  }
  if (api.cuLaunchKernelEx == nullptr)
    throw CudaError(CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
                    what + ": a cluster launch needs cuLaunchKernelEx (CUDA 12.0), which "
                           "this driver lacks");
  if (request.cluster_non_portable)
    check(api,
          api.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
          "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED) for " + what);
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = request.cluster.x;
  attribute.value.clusterDim.y = request.cluster.y;
  attribute.value.clusterDim.z = request.cluster.z;
  CUlaunchConfig config{};
  config.gridDimX = g.x;
  config.gridDimY = g.y;
  config.gridDimZ = g.z;
  config.blockDimX = b.x;
  config.blockDimY = b.y;
  config.blockDimZ = b.z;
  config.sharedMemBytes = request.dynamic_shared_bytes;
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  check(api, api.cuLaunchKernelEx(&config, function, params, nullptr),
        "cuLaunchKernelEx(" + what + ", cluster " + request.cluster.str() + ")");
}

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
