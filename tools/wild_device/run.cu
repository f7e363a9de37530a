// A wild-corpus kernel on the GPU with the launch and inputs of the simulator's run: reads the
// plan `ptxgen lint --save-run DIR` wrote (plan.hpp), loads the PTX file through the driver
// API, gives every region its input bytes (DIR/in.K.bin), encodes the tensor maps over the
// device's regions, launches the entry with the same grid, block, cluster and dynamic shared
// memory, writes each region after the run to DIR/gpu.K.bin and compares it with the
// simulator's (DIR/sim.K.bin) under MODE ("bytes" or "f32 ulp N", plan.hpp; "none": run it
// even where the simulator's run faulted, and compare nothing, as under compute-sanitizer).
// One line last:
//   wild-run VERDICT regions=R elements=E outside=O worst_ulps=W [first=REGION+OFFSET]
// VERDICT: agree, differ, gpu-fault, sim-fault (the simulator's run stopped: nothing to
// compare), error; `ran` with MODE none.
//   run PTX_FILE DIR MODE
// Exit status: 0 agree, 1 differ, 2 error, 3 gpu-fault, 4 sim-fault.
#include "plan.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <cuda.h>

using namespace wild_device;

namespace {

int finish(const char* verdict, const std::string& why, int status) {
  std::printf("wild-run %s %s\n", verdict, why.c_str());
  return status;
}

std::string cu_error(CUresult r) {
  const char* s = nullptr;
  cuGetErrorString(r, &s);
  return s ? s : "unknown CUresult " + std::to_string(static_cast<int>(r));
}

bool encode(const Map& m, CUdeviceptr tensor, CUtensorMap& out, std::string& why) {
  static const std::map<std::string, CUtensorMapDataType> types = {
      {"uint8", CU_TENSOR_MAP_DATA_TYPE_UINT8},     {"int8", CU_TENSOR_MAP_DATA_TYPE_UINT8},
      {"b8", CU_TENSOR_MAP_DATA_TYPE_UINT8},        {"uint16", CU_TENSOR_MAP_DATA_TYPE_UINT16},
      {"int16", CU_TENSOR_MAP_DATA_TYPE_UINT16},    {"b16", CU_TENSOR_MAP_DATA_TYPE_UINT16},
      {"float16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16}, {"bfloat16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
      {"uint32", CU_TENSOR_MAP_DATA_TYPE_UINT32},   {"int32", CU_TENSOR_MAP_DATA_TYPE_INT32},
      {"b32", CU_TENSOR_MAP_DATA_TYPE_UINT32},      {"float32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32},
      {"uint64", CU_TENSOR_MAP_DATA_TYPE_UINT64},   {"int64", CU_TENSOR_MAP_DATA_TYPE_INT64},
      {"b64", CU_TENSOR_MAP_DATA_TYPE_UINT64},      {"float64", CU_TENSOR_MAP_DATA_TYPE_FLOAT64}};
  const auto type = types.find(m.dtype);
  if (type == types.end()) {
    why = "tensor map of an unknown type " + m.dtype;
    return false;
  }
  // The driver's dimension d is the plan's rank - 1 - d (the plan is outermost first).
  cuuint64_t dims[5] = {}, strides[4] = {};
  cuuint32_t box[5] = {}, es[5] = {};
  for (unsigned d = 0; d < m.rank; ++d) {
    const unsigned k = m.rank - 1 - d;
    dims[d] = m.dims[k];
    box[d] = static_cast<cuuint32_t>(m.box[k]);
    es[d] = static_cast<cuuint32_t>(m.element_strides[k]);
    if (d >= 1)
      strides[d - 1] = m.strides[k];
  }
  const CUtensorMapSwizzle swizzle = m.swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : m.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                     : m.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                       : CU_TENSOR_MAP_SWIZZLE_NONE;
  const CUtensorMapL2promotion l2 = m.l2 == 256   ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                    : m.l2 == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                    : m.l2 == 64  ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                                  : CU_TENSOR_MAP_L2_PROMOTION_NONE;
  const CUresult r =
      cuTensorMapEncodeTiled(&out, type->second, m.rank, reinterpret_cast<void*>(tensor), dims,
                             strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2,
                             m.nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                        : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    why = "cuTensorMapEncodeTiled: " + cu_error(r);
  return r == CUDA_SUCCESS;
}

} // namespace

#define TRY_CU(x)                                                                                  \
  do {                                                                                             \
    const CUresult rc_ = (x);                                                                      \
    if (rc_ != CUDA_SUCCESS)                                                                       \
      return finish("error", std::string(#x) + ": " + cu_error(rc_), 2);                           \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: run PTX_FILE DIR MODE\n");
    return 2;
  }
  const std::string dir = argv[2];
  const bool no_compare = std::string(argv[3]) == "none";
  const std::optional<Mode> mode = no_compare ? parse_mode("bytes") : parse_mode(argv[3]);
  if (!mode)
    return finish("error", std::string("MODE is neither bytes nor TYPE ulp N: ") + argv[3], 2);
  std::ifstream plan_file(dir + "/plan.txt");
  std::stringstream plan_text;
  plan_text << plan_file.rdbuf();
  Plan plan;
  if (const std::string why = parse_plan(plan_text.str(), plan); !why.empty())
    return finish("error", why, 2);
  if (!plan.sim_ok && !no_compare)
    return finish("sim-fault", plan.sim_fault, 4);
  std::ifstream in(argv[1]);
  std::stringstream ptx;
  ptx << in.rdbuf();
  TRY_CU(cuInit(0));
  CUdevice dev;
  TRY_CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  TRY_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  TRY_CU(cuCtxSetCurrent(ctx));
  CUmodule mod;
  TRY_CU(cuModuleLoadData(&mod, ptx.str().c_str()));
  CUfunction fn;
  TRY_CU(cuModuleGetFunction(&fn, mod, plan.entry.c_str()));
  if (plan.dynamic_smem > 48 * 1024)
    TRY_CU(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              static_cast<int>(plan.dynamic_smem)));
  // Every region with its input bytes, on the device at an address of its own.
  std::vector<std::vector<std::uint8_t>> host(plan.regions.size());
  std::vector<CUdeviceptr> device(plan.regions.size());
  for (std::size_t k = 0; k < plan.regions.size(); ++k) {
    auto bytes = read_bytes(dir + "/in." + std::to_string(k) + ".bin");
    if (!bytes || bytes->size() != plan.regions[k].bytes)
      return finish("error", "in." + std::to_string(k) + ".bin is missing or not its size", 2);
    host[k] = std::move(*bytes);
    TRY_CU(cuMemAlloc(&device[k], (host[k].size() + 255) / 256 * 256 + 256));
  }
  std::vector<CUtensorMap> maps(plan.maps.size());
  for (std::size_t m = 0; m < plan.maps.size(); ++m) {
    std::string why;
    if (!encode(plan.maps[m], device[plan.maps[m].region], maps[m], why))
      return finish("error", why, 2);
  }
  for (const Link& l : plan.links) {
    std::vector<std::uint8_t>& into = l.in_param ? plan.params[l.index] : host[l.index];
    const std::size_t size = l.to_map ? sizeof(CUtensorMap) : 8;
    if (l.at + size > into.size())
      return finish("error", "a link past the end of what holds it", 2);
    if (l.to_map)
      std::memcpy(into.data() + l.at, &maps[l.target], size);
    else
      std::memcpy(into.data() + l.at, &device[l.target], size);
  }
  for (std::size_t k = 0; k < host.size(); ++k) {
    if (!host[k].empty())
      TRY_CU(cuMemcpyHtoD(device[k], host[k].data(), host[k].size()));
  }
  // The parameters' bytes, 128-byte aligned (a CUtensorMap parameter is 64-byte aligned).
  struct alignas(128) Block {
    std::uint8_t bytes[128];
  };
  std::vector<std::vector<Block>> storage;
  std::vector<void*> args;
  for (const auto& p : plan.params) {
    storage.emplace_back(p.size() / sizeof(Block) + 1);
    std::memcpy(storage.back().data(), p.data(), p.size());
    args.push_back(storage.back().data());
  }
  CUlaunchConfig config = {};
  config.gridDimX = plan.grid[0], config.gridDimY = plan.grid[1], config.gridDimZ = plan.grid[2];
  config.blockDimX = plan.block[0], config.blockDimY = plan.block[1];
  config.blockDimZ = plan.block[2];
  config.sharedMemBytes = plan.dynamic_smem;
  CUlaunchAttribute cluster = {};
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = plan.cluster[0];
  cluster.value.clusterDim.y = plan.cluster[1];
  cluster.value.clusterDim.z = plan.cluster[2];
  if (!plan.cluster_fixed && plan.cluster[0] * plan.cluster[1] * plan.cluster[2] > 1) {
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  TRY_CU(cuLaunchKernelEx(&config, fn, args.data(), nullptr));
  if (const CUresult r = cuCtxSynchronize(); r != CUDA_SUCCESS)
    return finish("gpu-fault", cu_error(r), 3);
  if (no_compare)
    return finish("ran", "(MODE none: nothing compared)", 0);
  const std::vector<bool> keep = compared_regions(plan);
  Outcome all;
  std::string first;
  std::size_t compared = 0;
  for (std::size_t k = 0; k < host.size(); ++k) {
    std::vector<std::uint8_t> after(host[k].size());
    if (!after.empty())
      TRY_CU(cuMemcpyDtoH(after.data(), device[k], after.size()));
    std::ofstream(dir + "/gpu." + std::to_string(k) + ".bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(after.data()),
               static_cast<std::streamsize>(after.size()));
    const auto sim = read_bytes(dir + "/sim." + std::to_string(k) + ".bin");
    if (!sim)
      return finish("error", "sim." + std::to_string(k) + ".bin is missing", 2);
    if (!keep[k])
      continue;
    ++compared;
    const Outcome o = compare(after, *sim, *mode);
    if (o.outside > 0 && all.outside == 0)
      first = " first=" + std::to_string(k) + "+" + std::to_string(o.first_outside);
    all.elements += o.elements;
    all.outside += o.outside;
    all.worst_ulps = std::max(all.worst_ulps, o.worst_ulps);
  }
  char line[256];
  std::snprintf(line, sizeof line, "regions=%zu elements=%llu outside=%llu worst_ulps=%g%s",
                compared, static_cast<unsigned long long>(all.elements),
                static_cast<unsigned long long>(all.outside), all.worst_ulps, first.c_str());
  return all.outside == 0 ? finish("agree", line, 0) : finish("differ", line, 1);
}
