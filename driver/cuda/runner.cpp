#include "driver/cuda/runner.hpp"

#include "driver/cuda/config.hpp"
#include "emitter/support/enum_names.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#if PTXGEN_CUDA_HEADERS
#include "driver/cuda/canary.hpp"
#include "driver/cuda/context.hpp"
#include "driver/cuda/cu_module.hpp"
#include "driver/cuda/device_buffer.hpp"
#include "driver/cuda/error.hpp"
#include "driver/cuda/launch.hpp"
#include "driver/cuda/stream.hpp"
#include "driver/cuda/tensor_map_encode.hpp"

#include <thread>
#endif

namespace ptxgen::driver::cuda {

std::string_view status_name(LaunchOutcome::Status status) {
  static constexpr auto names = enum_names<LaunchOutcome::Status::unavailable>(
      "ok", "load_error", "launch_error", "fault", "timed_out", "canary_damaged", "unavailable");
  return name_of(names, status);
}

#if PTXGEN_CUDA_HEADERS

namespace {

using Clock = std::chrono::steady_clock;
using Status = LaunchOutcome::Status;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Which step a CudaError came from decides the status it maps to.
enum class Phase : std::uint8_t {
  context,  ///< retaining or making the context current
  load,     ///< module load, function lookup, attributes
  upload,   ///< allocation and host-to-device copies
  launch,   ///< cuLaunchKernel itself
  download, ///< device-to-host copies after the kernel finished
};

Status status_for(Phase phase) {
  switch (phase) {
  case Phase::context:
    return Status::unavailable;
  case Phase::load:
    return Status::load_error;
  case Phase::upload:
  case Phase::launch:
    return Status::launch_error;
  case Phase::download:
    return Status::fault;
  }
  unreachable("not a Status value");
}

} // namespace

struct Runner::Impl {
  std::shared_ptr<const DriverApi> api;
  DeviceInfo info;
  CUdevice device = 0;
  std::optional<PrimaryContext> context;
  std::string unavailable; ///< empty while launches are possible

  /// Everything of one case lives in this call's locals, so that by the time it
  /// returns or throws, the module, buffers and stream are gone (or leaked on a
  /// timeout) and the context can be reset safely.
  void run_case(LaunchRequest& request, LaunchOutcome& out, Phase& phase);
  /// Allocates one [guard][data][guard] device buffer per host buffer, uploads the images
  /// and returns the address of each data part.
  std::vector<std::uint64_t> upload_buffers(const LaunchRequest& request, std::size_t guard,
                                            const std::string& label,
                                            std::vector<DeviceBuffer>& buffers);
  /// Polls the stream until the kernel ends; false (with the outcome set) on a fault or a
  /// timeout, after which the caller must return.
  bool wait_for_kernel(const LaunchRequest& request, const std::string& label, Stream& stream,
                       Module& module, std::vector<DeviceBuffer>& buffers, Clock::time_point start,
                       LaunchOutcome& out);
  void download_and_check(LaunchRequest& request, std::vector<DeviceBuffer>& buffers,
                          std::size_t guard, const std::string& label, LaunchOutcome& out);
  /// Releases and resets the primary context, then retains a fresh one.
  void rebuild_context(LaunchOutcome& out);
};

void Runner::Impl::run_case(LaunchRequest& request, LaunchOutcome& out, Phase& phase) {
  const std::string label = "case " + request.case_name;

  phase = Phase::context;
  if (!context) {
    context.emplace(api, device);
  }
  context->make_current();

  if (request.grid.count() == 0 || request.block.count() == 0) {
    out.status = Status::launch_error;
    out.message = label + ": grid and block must be at least 1 (grid " + request.grid.str() +
                  ", block " + request.block.str() + ")";
    return;
  }
  if (request.cubin.empty() && request.ptx.empty()) {
    out.status = Status::load_error;
    out.message = label + ": neither a cubin nor PTX was given";
    return;
  }

  // Load.
  phase = Phase::load;
  auto start = Clock::now();
  Module module = Module::load(api, request.cubin, request.ptx, label);
  CUfunction function = module.function(request.entry, label);
  const KernelAttributes attributes = module.attributes(function, label);
  out.load_ms = ms_since(start);
  out.registers = attributes.num_regs;
  out.static_shared_bytes = attributes.static_shared_bytes;
  if (request.block.count() > static_cast<std::uint64_t>(attributes.max_threads_per_block)) {
    out.status = Status::launch_error;
    out.message = label + ": a block of " + std::to_string(request.block.count()) +
                  " threads exceeds the limit of " +
                  std::to_string(attributes.max_threads_per_block) + " for kernel " +
                  request.entry + " (" + std::to_string(attributes.num_regs) +
                  " registers per thread)";
    return;
  }

  // Upload: one allocation per buffer, [guard][data][guard].
  phase = Phase::upload;
  start = Clock::now();
  const std::size_t guard = round_guard_bytes(request.guard_bytes);
  std::vector<DeviceBuffer> buffers;
  const std::vector<std::uint64_t> addresses = upload_buffers(request, guard, label, buffers);
  // Synchronous copies from pageable memory may return before the DMA lands;
  // waiting here keeps the copy time out of launch_ms (the blocking stream
  // would order the kernel after them anyway).
  check(*api, api->cuCtxSynchronize(), "cuCtxSynchronize after the uploads of " + label);
  out.copy_ms = ms_since(start);

  auto packed = pack_kernel_params(request.params, addresses, tensor_map_encoder(api));
  if (!packed) {
    out.status = Status::launch_error;
    out.message = label + ": " + packed.error();
    return;
  }
  std::vector<void*> param_pointers = packed->pointers();

  // Launch and wait, polling so that a hung kernel does not hang us too.
  phase = Phase::launch;
  if (request.dynamic_shared_bytes > 0) {
    // Beyond 48 KiB the function must opt in before the launch asks for it.
    check(*api,
          api->cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  static_cast<int>(request.dynamic_shared_bytes)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
              std::to_string(request.dynamic_shared_bytes) + ") for " + label);
  }
  Stream stream(api, label);
  start = Clock::now();
  launch_kernel(*api, function, request, stream.get(),
                param_pointers.empty() ? nullptr : param_pointers.data(),
                request.entry + ", grid " + request.grid.str() + ", block " + request.block.str() +
                    " for " + label);
  if (!wait_for_kernel(request, label, stream, module, buffers, start, out)) {
    return; // the caller resets the context once the locals are gone
  }
  out.launch_ms = ms_since(start);

  // Download and check the guards.
  phase = Phase::download;
  download_and_check(request, buffers, guard, label, out);
}

std::vector<std::uint64_t> Runner::Impl::upload_buffers(const LaunchRequest& request,
                                                        std::size_t guard, const std::string& label,
                                                        std::vector<DeviceBuffer>& buffers) {
  std::vector<std::uint64_t> addresses;
  buffers.reserve(request.buffers.size());
  for (const HostBuffer& host : request.buffers) {
    const std::string what = "buffer " + host.name + " of " + label;
    DeviceBuffer& device_buffer = buffers.emplace_back(api, host.bytes.size() + 2 * guard, what);
    if (guard != 0 && device_buffer.address() % guard_granule != 0) {
      // cuMemAlloc promises 256-byte alignment; check rather than trust.
      throw CudaError(0, "", "cuMemAlloc returned an address not aligned to 256 for " + what);
    }
    const std::vector<std::uint8_t> image = make_guarded_image(host.bytes, guard);
    if (image.size() == device_buffer.size()) {
      device_buffer.upload(image);
    } else { // an empty buffer with no guards: nothing to upload into its 1-byte allocation
    }
    addresses.push_back(static_cast<std::uint64_t>(device_buffer.address() + guard));
  }
  return addresses;
}

bool Runner::Impl::wait_for_kernel(const LaunchRequest& request, const std::string& label,
                                   Stream& stream, Module& module,
                                   std::vector<DeviceBuffer>& buffers, Clock::time_point start,
                                   LaunchOutcome& out) {
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    const CUresult result = stream.query();
    if (result == CUDA_SUCCESS) {
      return true;
    }
    if (result != CUDA_ERROR_NOT_READY) {
      out.launch_ms = ms_since(start);
      out.status = Status::fault;
      out.error_name = error_name(*api, result);
      out.message = describe_error(*api, result, "kernel " + request.entry + " of " + label);
      return false;
    }
    if (request.timeout.count() > 0 && Clock::now() - start > request.timeout) {
      out.launch_ms = ms_since(start);
      out.status = Status::timed_out;
      out.message = label + ": kernel " + request.entry + " did not finish within " +
                    std::to_string(request.timeout.count()) +
                    " ms; a running kernel cannot be stopped from inside the process, so the "
                    "run must stop (the driver ends the kernel when the process exits)";
      // Freeing or unloading would wait for the kernel: forget everything instead.
      stream.leak();
      for (DeviceBuffer& b : buffers) {
        b.leak();
      }
      module.leak();
      context->leak();
      context.reset();
      unavailable = "an earlier launch hung (" + out.message + ")";
      return false;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

/// Copies every buffer back, checks its guards and sets the outcome: ok, or the guards
/// the kernel wrote into.
void Runner::Impl::download_and_check(LaunchRequest& request, std::vector<DeviceBuffer>& buffers,
                                      std::size_t guard, const std::string& label,
                                      LaunchOutcome& out) {
  const auto start = Clock::now();
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    HostBuffer& host = request.buffers[i];
    std::vector<std::uint8_t> image(buffers[i].size());
    buffers[i].download(image);
    if (image.size() != host.bytes.size() + 2 * guard) {
      continue; // the 1-byte allocation of an empty, unguarded buffer
    }
    GuardCheck checked = check_guarded_image(image, host.bytes.size(), guard);
    for (const GuardDamage& damage : checked.damage) {
      out.canary_reports.push_back(describe_damage(host.name, damage));
    }
    host.bytes = std::move(checked.data);
  }
  out.copy_ms += ms_since(start);
  out.buffers = std::move(request.buffers);
  if (out.canary_reports.empty()) {
    out.status = Status::ok;
  } else {
    out.status = Status::canary_damaged;
    out.message = label + ": kernel " + request.entry + " wrote outside its buffers (" +
                  std::to_string(out.canary_reports.size()) + " damaged guard" +
                  (out.canary_reports.size() == 1 ? ")" : "s)");
  }
}

void Runner::Impl::rebuild_context(LaunchOutcome& out) {
  try {
    if (context) {
      context->release_and_reset();
      context.reset();
    } else {
      check(*api, api->cuDevicePrimaryCtxReset_v2(device),
            "cuDevicePrimaryCtxReset for device " + std::to_string(info.ordinal));
    }
    context.emplace(api, device);
    out.message += " (the context was reset)";
  } catch (const CudaError& e) {
    context.reset();
    unavailable = std::string("the CUDA context could not be rebuilt after a failure: ") +
                  e.what() +
                  " (a sticky fault poisons the whole process on current drivers; run the "
                  "remaining cases in a new process, as IsolatedRunner does)";
    out.message += "; " + unavailable;
  }
}

Runner::Runner(int ordinal, const std::string& library) : impl_(std::make_unique<Impl>()) {
  impl_->info.ordinal = ordinal;
  auto info = probe_device(ordinal, library);
  if (!info) {
    impl_->unavailable = info.error();
    return;
  }
  impl_->info = *info;
  auto api = open_driver_api(library);
  if (!api) {
    impl_->unavailable = api.error();
    return;
  }
  impl_->api = *api;
  const CUresult result = impl_->api->cuDeviceGet(&impl_->device, ordinal);
  if (result != CUDA_SUCCESS) {
    impl_->unavailable = describe_error(*impl_->api, result, "cuDeviceGet");
  }
}

LaunchOutcome Runner::launch(LaunchRequest request) {
  LaunchOutcome out;
  if (!impl_->unavailable.empty()) {
    out.status = Status::unavailable;
    out.message = "case " + request.case_name + " not run: " + impl_->unavailable;
    return out;
  }
  Phase phase = Phase::context;
  try {
    impl_->run_case(request, out, phase);
  } catch (const CudaError& e) {
    out.status = status_for(phase);
    out.error_name = e.name();
    out.message = e.what();
    out.buffers.clear();
    out.canary_reports.clear();
    if (phase == Phase::context) {
      impl_->context.reset();
      impl_->unavailable = e.what();
      return out;
    }
  }
  if (out.status == Status::timed_out) {
    return out;
  }
  if (out.status == Status::fault) {
    impl_->rebuild_context(out);
  } else if (out.status == Status::load_error || out.status == Status::launch_error) {
    // Usually harmless (bad PTX, too many threads), but make sure the context
    // is healthy before the next case trusts it.
    if (impl_->context && impl_->api->cuCtxSynchronize() != CUDA_SUCCESS) {
      impl_->rebuild_context(out);
    }
  }
  return out;
}

#else // !PTXGEN_CUDA_HEADERS

struct Runner::Impl {
  DeviceInfo info;
  std::string unavailable;
};

Runner::Runner(int ordinal, const std::string& library) : impl_(std::make_unique<Impl>()) {
  impl_->info.ordinal = ordinal;
  impl_->unavailable = probe_device(ordinal, library).error();
}

LaunchOutcome Runner::launch(LaunchRequest request) {
  LaunchOutcome out;
  out.status = LaunchOutcome::Status::unavailable;
  out.message = "case " + request.case_name + " not run: " + impl_->unavailable;
  return out;
}

#endif

Runner::~Runner() = default;
Runner::Runner(Runner&&) noexcept = default;
Runner& Runner::operator=(Runner&&) noexcept = default;

bool Runner::available() const {
  return impl_ && impl_->unavailable.empty();
}

const std::string& Runner::unavailable_reason() const {
  static const std::string moved_from = "this Runner was moved from";
  return impl_ ? impl_->unavailable : moved_from;
}

const DeviceInfo& Runner::device() const {
  static const DeviceInfo none;
  return impl_ ? impl_->info : none;
}

} // namespace ptxgen::driver::cuda
