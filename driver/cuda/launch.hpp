#pragma once
// One kernel launch as a LaunchRequest describes it, for the runner and bench: cuLaunchKernel,
// or cuLaunchKernelEx with the cluster-dimension attribute for a cluster of more than one CTA
// (after opting in to a non-portable size where the request asks for one).

#include "driver/cuda/config.hpp"

#if PTXGEN_CUDA_HEADERS

#include "driver/cuda/driver_api.hpp"
#include "driver/cuda/runner.hpp"

#include <string>

#include <cuda.h>

namespace ptxgen::driver::cuda {

/// Launches `function` with the request's grid, block, dynamic shared bytes and cluster on
/// `stream`; throws CudaError (check()) naming `what` when the driver refuses.
void launch_kernel(const DriverApi& api, CUfunction function, const LaunchRequest& request,
                   CUstream stream, void** params, const std::string& what);

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
