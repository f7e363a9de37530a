// The cluster kernels on the GPU: loads the very PTX files the simulator's unit tests run
// (tests/data/sim_cluster/cluster.ptx, tests/data/sim_cluster_nvcc/cluster_kernels.ptx) through
// the driver API, launches every case of cases.hpp (cluster shapes by the entry's
// .reqnctapercluster or the launch attribute) with random inputs (seeds 1..ROUNDS), prints a
// table and writes every record (inputs and the GPU's outputs) to the results file, which
// unit.sim_cluster_nvcc compares the simulator against, byte for byte.
//   run DATA_DIR RESULTS_FILE [ROUNDS]
#include "cases.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <cuda.h>

using namespace sim_cluster_device;

#define CHECK_CU(x)                                                                                \
  do {                                                                                             \
    CUresult rc_ = (x);                                                                            \
    if (rc_ != CUDA_SUCCESS) {                                                                     \
      const char* s_ = nullptr;                                                                    \
      cuGetErrorString(rc_, &s_);                                                                  \
      std::fprintf(stderr, "%s: %s\n", #x, s_ ? s_ : "?");                                         \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static std::vector<std::uint32_t> launch(CUfunction fn, const Case& c,
                                         const std::vector<std::uint32_t>& in) {
  CUdeviceptr din = 0, dout = 0;
  CHECK_CU(cuMemAlloc(&din, in.size() * 4 + 16));
  CHECK_CU(cuMemAlloc(&dout, c.out_words * 4 + 16));
  if (!in.empty())
    CHECK_CU(cuMemcpyHtoD(din, in.data(), in.size() * 4));
  CHECK_CU(cuMemsetD8(dout, 0, c.out_words * 4));
  unsigned n = c.in_words, nbins = c.out_words;
  void* out_only[] = {&dout};
  void* in_out[] = {&din, &dout};
  void* histogram[] = {&din, &n, &dout, &nbins};
  void** args = c.params == Params::out      ? out_only
                : c.params == Params::in_out ? in_out
                                             : histogram;
  if (c.dynamic_smem > 0)
    CHECK_CU(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(c.dynamic_smem)));
  CUlaunchConfig cfg = {};
  cfg.gridDimX = c.grid[0];
  cfg.gridDimY = c.grid[1];
  cfg.gridDimZ = c.grid[2];
  cfg.blockDimX = c.block;
  cfg.blockDimY = 1;
  cfg.blockDimZ = 1;
  cfg.sharedMemBytes = c.dynamic_smem;
  CUlaunchAttribute attr = {};
  if (c.cluster[0] != 0) {
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = c.cluster[0];
    attr.value.clusterDim.y = c.cluster[1];
    attr.value.clusterDim.z = c.cluster[2];
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  CHECK_CU(cuLaunchKernelEx(&cfg, fn, args, nullptr));
  CHECK_CU(cuCtxSynchronize());
  std::vector<std::uint32_t> out(c.out_words);
  CHECK_CU(cuMemcpyDtoH(out.data(), dout, out.size() * 4));
  CHECK_CU(cuMemFree(din));
  CHECK_CU(cuMemFree(dout));
  return out;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: run DATA_DIR RESULTS_FILE [ROUNDS]\n");
    return 2;
  }
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 4;
  CHECK_CU(cuInit(0));
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_CU(cuCtxSetCurrent(ctx));
  std::map<std::string, CUmodule> modules;
  std::FILE* out = std::fopen(argv[2], "wb");
  if (out == nullptr) {
    std::perror(argv[2]);
    return 1;
  }
  std::printf("%-22s %8s %6s %10s\n", "kernel", "cluster", "runs", "out words");
  for (const Case& c : cases) {
    CUmodule& mod = modules[c.file];
    if (mod == nullptr) {
      std::ifstream in(std::string(argv[1]) + "/" + c.file);
      std::stringstream text;
      text << in.rdbuf();
      const std::string ptx = text.str();
      CHECK_CU(cuModuleLoadData(&mod, ptx.c_str()));
    }
    CUfunction fn;
    CHECK_CU(cuModuleGetFunction(&fn, mod, c.kernel));
    for (int round = 1; round <= rounds; ++round) {
      Record r;
      r.kernel = c.kernel;
      r.in = random_inputs(c, static_cast<std::uint64_t>(round));
      r.out = launch(fn, c, r.in);
      write_record(out, r);
    }
    const std::string shape = c.cluster[0] != 0 ? std::to_string(c.cluster[0]) + "," +
                                                      std::to_string(c.cluster[1]) + "," +
                                                      std::to_string(c.cluster[2])
                                                : std::string("entry");
    std::printf("%-22s %8s %6d %10u\n", c.kernel, shape.c_str(), rounds, c.out_words);
  }
  std::fclose(out);
  return 0;
}
