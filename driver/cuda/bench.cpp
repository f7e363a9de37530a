#include "driver/cuda/bench.hpp"

#include "driver/cuda/config.hpp"
#include "emitter/tile/op_table.hpp"

#include <algorithm>
#include <functional>

#if PTXGEN_CUDA_HEADERS
#include "driver/cuda/context.hpp"
#include "driver/cuda/cu_module.hpp"
#include "driver/cuda/device_buffer.hpp"
#include "driver/cuda/driver_api.hpp"
#include "driver/cuda/error.hpp"
#include "driver/cuda/launch.hpp"
#include "driver/cuda/tensor_map_encode.hpp"
#endif

namespace ptxgen::driver::cuda {

BenchTimes summarize(std::vector<double> ms) {
  BenchTimes t;
  t.ms = ms;
  if (ms.empty())
    return t;
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  t.median_ms = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  t.min_ms = ms.front();
  return t;
}

namespace {

/// The global tensors the ops read and write (by address: each once).
struct GlobalUse {
  std::vector<const tile::Tensor*> read, written;

  static void add(std::vector<const tile::Tensor*>& to, const tile::View& v) {
    if (v.tensor && v.tensor->space == tile::Space::global &&
        std::find(to.begin(), to.end(), v.tensor) == to.end())
      to.push_back(v.tensor);
  }
  /// A copy of any kind: src read, dst written.
  void copies(const tile::Located<tile::View>& src, const tile::Located<tile::View>& dst) {
    add(read, src.value);
    add(written, dst.value);
  }
  void operator()(const tile::ApplyOp& op) { copies(op.src, op.dst); }
  void operator()(const tile::CopyOp& op) { copies(op.src, op.dst); }
  void operator()(const tile::FillOp& op) { add(written, op.dst.value); }
  // No global bytes: groups, barriers, loops, mbarriers (a shared 8-byte word), and the
  // ops with no view at all (ops.def's plain ops).
  template <tile::PlainOp Op>
  void operator()(const Op&) {}
  void operator()(const tile::WaitGroupOp&) {}
  void operator()(const tile::ForOp&) {}
  void operator()(const tile::EndOp&) {}
  void operator()(const tile::MbarrierInitOp&) {}
  void operator()(const tile::CopyArriveOp&) {}
  void operator()(const tile::MbarrierArriveOp&) {}
  void operator()(const tile::MbarrierWaitOp&) {}
  void operator()(const tile::BulkLoadOp& op) { copies(op.src, op.dst); }
  void operator()(const tile::BulkStoreOp& op) { copies(op.src, op.dst); }
  void operator()(const tile::BulkReduceOp& op) { copies(op.src, op.dst); }
  void operator()(const tile::BulkCopyPeerOp& op) { copies(op.src, op.dst); }
  void operator()(const tile::BulkWaitOp&) {}
  void operator()(const tile::ExpectTxOp&) {}
  void operator()(const tile::NamedBarrierOp&) {}
  void operator()(const tile::SetmaxnregOp&) {}
  // A tensor copy's global side is its map's tensor, named, not a view.
  void operator()(const tile::TensorLoadOp& op) { add_named(read, op.tensor.value); }
  void operator()(const tile::TensorStoreOp& op) { add_named(written, op.tensor.value); }
  // A map slot's 128 bytes are no traffic worth counting.
  void operator()(const tile::TensormapCopyOp&) {}
  void operator()(const tile::TensormapReplaceOp&) {}
  void operator()(const tile::TensormapFenceOp&) {}
  // A reduction reads its box's global elements and writes them.
  void operator()(const tile::TensorReduceOp& op) {
    add_named(read, op.tensor.value);
    add_named(written, op.tensor.value);
  }
  void operator()(const tile::PrefetchTensormapOp&) {}

  const tile::Kernel* kernel = nullptr;
  void add_named(std::vector<const tile::Tensor*>& to, const std::string& name) {
    const tile::TensorDecl* d = kernel->find_tensor(name);
    if (d && std::find(to.begin(), to.end(), &d->tensor) == to.end())
      to.push_back(&d->tensor);
  }
};

} // namespace

std::uint64_t spec_bytes_moved(const tile::Kernel& k) {
  GlobalUse use;
  use.kernel = &k;
  for (const auto& op : k.ops)
    std::visit(use, op.body);
  std::uint64_t bytes = 0;
  for (const auto* t : use.read)
    bytes += static_cast<std::uint64_t>(t->size_bytes());
  for (const auto* t : use.written)
    bytes += static_cast<std::uint64_t>(t->size_bytes());
  return bytes;
}

double gb_per_s(std::uint64_t bytes, double ms) {
  return ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0; // bytes / (ms / 1e3) / 1e9
}

#if PTXGEN_CUDA_HEADERS

namespace {

/// RAII over one CUDA event.
class Event {
public:
  explicit Event(std::shared_ptr<const DriverApi> api) : api_(std::move(api)) {
    check(*api_, api_->cuEventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate");
  }
  ~Event() {
    if (event_)
      api_->cuEventDestroy_v2(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return event_; }

private:
  std::shared_ptr<const DriverApi> api_;
  CUevent event_ = nullptr;
};

/// `warmup` untimed calls of `enqueue`, then `reps` timed ones, each between a pair of
/// events recorded on the legacy default stream (the stream both the launches and
/// cuMemcpyDtoD use). `enqueue` throws CudaError.
BenchTimes time_reps(const std::shared_ptr<const DriverApi>& api,
                     const std::function<void()>& enqueue, unsigned warmup, unsigned reps,
                     const std::string& what) {
  for (unsigned i = 0; i < warmup; ++i)
    enqueue();
  check(*api, api->cuCtxSynchronize(), "cuCtxSynchronize after the warm-up of " + what);
  Event start(api), stop(api);
  std::vector<double> ms;
  for (unsigned i = 0; i < reps; ++i) {
    check(*api, api->cuEventRecord(start.get(), nullptr), "cuEventRecord before " + what);
    enqueue();
    check(*api, api->cuEventRecord(stop.get(), nullptr), "cuEventRecord after " + what);
    check(*api, api->cuEventSynchronize(stop.get()), "cuEventSynchronize after " + what);
    float elapsed = 0;
    check(*api, api->cuEventElapsedTime_v2(&elapsed, start.get(), stop.get()),
          "cuEventElapsedTime of " + what);
    ms.push_back(elapsed);
  }
  return summarize(std::move(ms));
}

/// The kernel's part: load, upload, launch `warmup` + `reps` times.
void bench_kernel(const std::shared_ptr<const DriverApi>& api, const LaunchRequest& k,
                  const BenchOptions& o, BenchOutcome& out) {
  const std::string label = "kernel " + k.entry + " of " + k.case_name;
  Module module = Module::load(api, k.cubin, k.ptx, label);
  CUfunction function = module.function(k.entry, label);
  out.registers = module.attributes(function, label).num_regs;
  std::vector<DeviceBuffer> buffers;
  std::vector<std::uint64_t> addresses;
  buffers.reserve(k.buffers.size());
  for (const HostBuffer& host : k.buffers) {
    DeviceBuffer& b = buffers.emplace_back(api, host.bytes.size(), "buffer " + host.name);
    if (!host.bytes.empty())
      b.upload(host.bytes);
    addresses.push_back(static_cast<std::uint64_t>(b.address()));
  }
  auto packed = pack_kernel_params(k.params, addresses, tensor_map_encoder(api));
  if (!packed)
    throw CudaError(0, "", label + ": " + packed.error());
  std::vector<void*> pointers = packed->pointers();
  if (k.dynamic_shared_bytes > 0)
    check(*api,
          api->cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  static_cast<int>(k.dynamic_shared_bytes)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) for " + label);
  check(*api,
        api->cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &out.residency, function, static_cast<int>(k.block.x * k.block.y * k.block.z),
            k.dynamic_shared_bytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor for " + label);
  const auto launch = [&] {
    launch_kernel(*api, function, k, nullptr, pointers.empty() ? nullptr : pointers.data(), label);
  };
  out.kernel = time_reps(api, launch, o.warmup, o.reps, label);
}

/// cuMemcpyDtoD of out.memcpy_bytes between two scratch allocations.
void bench_memcpy(const std::shared_ptr<const DriverApi>& api, const BenchOptions& o,
                  BenchOutcome& out) {
  DeviceBuffer src(api, out.memcpy_bytes, "cuMemcpyDtoD source");
  DeviceBuffer dst(api, out.memcpy_bytes, "cuMemcpyDtoD destination");
  const auto copy = [&] {
    check(*api, api->cuMemcpyDtoD_v2(dst.address(), src.address(), out.memcpy_bytes),
          "cuMemcpyDtoD of " + std::to_string(out.memcpy_bytes) + " bytes");
  };
  out.memcpy = time_reps(api, copy, o.warmup, o.reps, "cuMemcpyDtoD");
}

} // namespace

BenchOutcome run_bench(const LaunchRequest& kernel, std::uint64_t bytes_moved,
                       const BenchOptions& o) {
  BenchOutcome out;
  out.bytes = bytes_moved;
  out.memcpy_bytes = std::max<std::uint64_t>(bytes_moved / 2, 1);
  auto info = probe_device(o.device, o.library);
  auto opened = info ? open_driver_api(o.library) : Failure{info.error()};
  if (!opened) {
    out.status = BenchOutcome::Status::no_device;
    out.message = opened.error();
    return out;
  }
  const auto& api = *opened;
  out.device = *info;
  try {
    CUdevice device = 0;
    check(*api, api->cuDeviceGet(&device, o.device), "cuDeviceGet");
    PrimaryContext context(api, device);
    bench_kernel(api, kernel, o, out);
    bench_memcpy(api, o, out);
    out.status = BenchOutcome::Status::ok;
  } catch (const CudaError& e) {
    out.status = BenchOutcome::Status::failed;
    out.message = e.what();
  }
  return out;
}

#else

BenchOutcome run_bench(const LaunchRequest&, std::uint64_t bytes_moved, const BenchOptions&) {
  BenchOutcome out;
  out.bytes = bytes_moved;
  out.status = BenchOutcome::Status::no_device;
  out.message = "built without CUDA support";
  return out;
}

#endif

} // namespace ptxgen::driver::cuda
