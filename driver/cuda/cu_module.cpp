#include "driver/cuda/cu_module.hpp"

#if PTXGEN_CUDA_HEADERS

#include "driver/cuda/error.hpp"

#include <array>
#include <cstring>
#include <utility>

namespace ptxgen::driver::cuda {

Module Module::load(std::shared_ptr<const DriverApi> api, const std::vector<std::uint8_t>& cubin,
                    const std::string& ptx, const std::string& label) {
  const bool from_ptx = cubin.empty();
  // The JIT writes its diagnostics here; for a cubin it stays empty.
  std::vector<char> log(16384, '\0');
  std::array<CUjit_option, 2> options{CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  std::array<void*, 2> values{log.data(),
                              reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size()))};
  // PTX must be NUL-terminated: std::string::c_str() is.
  const void* image =
      from_ptx ? static_cast<const void*>(ptx.c_str()) : static_cast<const void*>(cubin.data());
  CUmodule module = nullptr;
  const CUresult result = api->cuModuleLoadDataEx(
      &module, image, static_cast<unsigned>(options.size()), options.data(), values.data());
  if (result != CUDA_SUCCESS) {
    log.back() = '\0';
    std::string jit_log(log.data());
    while (!jit_log.empty() && (jit_log.back() == '\n' || jit_log.back() == ' ')) {
      jit_log.pop_back();
    }
    std::string message =
        describe_error(*api, result,
                       std::string("cuModuleLoadDataEx (") +
                           (from_ptx ? "PTX, compiled by the driver" : "cubin") + ") for " + label);
    if (!jit_log.empty()) {
      message += "\n" + jit_log;
    }
    throw CudaError(static_cast<int>(result), error_name(*api, result), message);
  }
  return Module(std::move(api), module);
}

Module::Module(Module&& other) noexcept
    : api_(other.api_), module_(std::exchange(other.module_, nullptr)) {}

Module::~Module() {
  if (module_ != nullptr) {
    api_->cuModuleUnload(module_); // an error (sticky fault) is ignored: the reset frees it
  }
}

CUfunction Module::function(const std::string& entry, const std::string& label) const {
  CUfunction function = nullptr;
  check(*api_, api_->cuModuleGetFunction(&function, module_, entry.c_str()),
        "cuModuleGetFunction(\"" + entry + "\") for " + label);
  return function;
}

KernelAttributes Module::attributes(CUfunction function, const std::string& label) const {
  KernelAttributes a;
  const std::string what = " for " + label;
  check(*api_,
        api_->cuFuncGetAttribute(&a.max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                 function),
        "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)" + what);
  check(*api_, api_->cuFuncGetAttribute(&a.num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS, function),
        "cuFuncGetAttribute(NUM_REGS)" + what);
  check(*api_,
        api_->cuFuncGetAttribute(&a.static_shared_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                 function),
        "cuFuncGetAttribute(SHARED_SIZE_BYTES)" + what);
  return a;
}

} // namespace ptxgen::driver::cuda

#endif // PTXGEN_CUDA_HEADERS
