// A stand-in for the Driver API calls run.cu makes, so that its host side runs where there is
// no GPU (the CTest test wild.device_fake; tests/wild.cmake builds it with run.cu as
// wild_device_fake). Device memory is host memory; a tensor map's 128 bytes are a magic and the
// tensor's address. The launch reads the plan in $WILD_FAKE_DIR and checks that every link of
// the plan holds what the GPU needs there (a region's device address, a map over the right
// region) and that every other region holds its input bytes, then leaves in each region what
// the simulator left (DIR/sim.K.bin), as a GPU that agrees with it would; $WILD_FAKE_XOR
// ("REGION OFFSET BYTE") then changes one byte, as a GPU that does not.
#include "plan.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <cuda.h>

namespace {

constexpr char map_magic[8] = {'f', 'a', 'k', 'e', 'm', 'a', 'p', 0};

struct Allocation {
  std::uint8_t* at = nullptr;
  std::size_t bytes = 0;
};
/// Never destroyed: the device memory lives until the process ends, as on a GPU.
std::vector<Allocation>& allocations() {
  static auto* a = new std::vector<Allocation>;
  return *a;
}

bool fail(const std::string& why) {
  std::fprintf(stderr, "fake driver: %s\n", why.c_str());
  return false;
}

/// Whether the 128 bytes at `p` are the fake encoding of a map over allocation `region`.
bool is_map_over(const std::uint8_t* p, std::size_t region) {
  std::uint64_t address = 0;
  std::memcpy(&address, p + 8, 8);
  return std::memcmp(p, map_magic, 8) == 0 && region < allocations().size() &&
         address == reinterpret_cast<std::uintptr_t>(allocations()[region].at);
}

/// The checks of the launch (the header comment); false with a message when one fails.
bool check_links(const wild_device::Plan& plan, void** args, const std::string& dir) {
  const auto& mem = allocations();
  if (mem.size() != plan.regions.size())
    return fail("the runner allocated " + std::to_string(mem.size()) + " regions, not " +
                std::to_string(plan.regions.size()));
  std::vector<bool> linked(mem.size(), false);
  for (const wild_device::Link& l : plan.links) {
    const std::uint8_t* in = l.in_param ? static_cast<const std::uint8_t*>(args[l.index]) + l.at
                                        : mem[l.index].at + l.at;
    if (!l.in_param)
      linked[l.index] = true;
    const bool ok = l.to_map ? is_map_over(in, plan.maps[l.target].region)
                             : std::memcmp(in, &mem[l.target].at, 8) == 0;
    if (!ok)
      return fail(std::string("a link in ") + (l.in_param ? "parameter " : "region ") +
                  std::to_string(l.index) + " does not hold its target");
  }
  for (std::size_t k = 0; k < mem.size(); ++k) {
    const auto in = wild_device::read_bytes(dir + "/in." + std::to_string(k) + ".bin");
    if (!linked[k] && (!in || in->size() != mem[k].bytes ||
                       std::memcmp(in->data(), mem[k].at, mem[k].bytes) != 0))
      return fail("region " + std::to_string(k) + " does not hold its input bytes");
  }
  return true;
}

/// What the simulator left in each region, and the byte $WILD_FAKE_XOR changes.
bool run_as_simulated(const wild_device::Plan& plan, const std::string& dir) {
  const std::vector<bool> keep = wild_device::compared_regions(plan);
  for (std::size_t k = 0; k < allocations().size(); ++k) {
    const auto sim = wild_device::read_bytes(dir + "/sim." + std::to_string(k) + ".bin");
    if (!sim || sim->size() != allocations()[k].bytes)
      return fail("sim." + std::to_string(k) + ".bin is missing");
    if (keep[k])
      std::memcpy(allocations()[k].at, sim->data(), sim->size());
  }
  if (const char* x = std::getenv("WILD_FAKE_XOR"); x != nullptr && *x != 0) {
    std::istringstream w(x);
    std::size_t region = 0, offset = 0;
    unsigned value = 0;
    if (!(w >> region >> offset >> value) || region >= allocations().size() ||
        offset >= allocations()[region].bytes)
      return fail("WILD_FAKE_XOR is not REGION OFFSET BYTE of a region");
    allocations()[region].at[offset] ^= static_cast<std::uint8_t>(value);
  }
  return true;
}

} // namespace

extern "C" {

CUresult cuGetErrorString(CUresult, const char** s) {
  *s = "fake driver error";
  return CUDA_SUCCESS;
}
CUresult cuInit(unsigned) {
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* d, int) {
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
  *c = nullptr;
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext) {
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadData(CUmodule* m, const void* image) {
  *m = nullptr;
  return image != nullptr && std::strstr(static_cast<const char*>(image), ".entry") != nullptr
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_IMAGE;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule, const char*) {
  *f = nullptr;
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  auto* at = static_cast<std::uint8_t*>(std::calloc(bytes, 1));
  allocations().push_back({at, 0});
  *p = reinterpret_cast<std::uintptr_t>(at);
  return at != nullptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemcpyHtoD(CUdeviceptr to, const void* from, size_t bytes) {
  for (Allocation& a : allocations()) {
    if (reinterpret_cast<std::uintptr_t>(a.at) == to) {
      a.bytes = bytes; // the region's size: what the runner uploads
      std::memcpy(a.at, from, bytes);
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuMemcpyDtoH(void* to, CUdeviceptr from, size_t bytes) {
  std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
  return CUDA_SUCCESS;
}
CUresult cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType, cuuint32_t, void* address,
                                const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  std::memset(map, 0, sizeof *map);
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  std::memcpy(reinterpret_cast<char*>(map), map_magic, 8);
  std::memcpy(reinterpret_cast<char*>(map) + 8, &a, 8);
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernelEx(const CUlaunchConfig*, CUfunction, void** args, void**) {
  const char* dir = std::getenv("WILD_FAKE_DIR");
  const auto text = dir ? wild_device::read_bytes(std::string(dir) + "/plan.txt") : std::nullopt;
  wild_device::Plan plan;
  if (!text || !wild_device::parse_plan(std::string(text->begin(), text->end()), plan).empty())
    return fail("no plan in $WILD_FAKE_DIR") ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  return check_links(plan, args, dir) && run_as_simulated(plan, dir) ? CUDA_SUCCESS
                                                                     : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuCtxSynchronize() {
  return CUDA_SUCCESS;
}

} // extern "C"
