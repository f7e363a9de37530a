#pragma once
// A failed CUDA Driver API call, as an exception used inside driver/cuda.
//
// The wrappers throw it so that RAII unwinding frees what a half-finished
// launch allocated; Runner::launch, probe_device and run_bench catch it and turn
// it into a LaunchOutcome, a Failure or a BenchOutcome. Nothing outside
// driver/cuda sees it (the convention: emitter/support/result.hpp).

#include <stdexcept>
#include <string>

namespace ptxgen::driver::cuda {

class CudaError : public std::runtime_error {
public:
  /// `message` is complete: "cuModuleLoadDataEx for case X: CUDA_ERROR_INVALID_PTX: ...".
  CudaError(int code, std::string name, const std::string& message)
      : std::runtime_error(message), code_(code), name_(std::move(name)) {}

  /// The CUresult value (0 is never thrown).
  int code() const { return code_; }
  /// "CUDA_ERROR_ILLEGAL_ADDRESS", or "CUresult 12345" when the driver has no name for it.
  const std::string& name() const { return name_; }

private:
  int code_;
  std::string name_;
};

} // namespace ptxgen::driver::cuda
