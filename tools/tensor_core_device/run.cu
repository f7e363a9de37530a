// The tensor-core kernels on the GPU: loads tests/data/sim_tensor_core/mma_kernels.ptx (the very
// PTX the simulator's unit test runs) through the driver API, runs every case of cases.hpp with
// random inputs (seeds 1..ROUNDS), checks the GPU's D against the test's own double-precision
// reference under the declared mode, prints a table and writes every record (inputs and the
// GPU's D) to the results file, which unit.sim_tensor_core compares the simulator against.
//   run PTX_FILE RESULTS_FILE [ROUNDS]
#include "cases.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <cuda.h>

using namespace tensor_core_device;

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

static std::vector<std::uint8_t> random_elements(Elem e, std::size_t count, std::uint64_t& s) {
  std::vector<std::uint8_t> v(count * bits(e) / 8);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t x = random_bits(e, s);
    for (unsigned k = 0; k < bits(e) / 8; ++k)
      v[i * (bits(e) / 8) + k] = static_cast<std::uint8_t>(x >> (8 * k));
  }
  return v;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: run PTX_FILE RESULTS_FILE [ROUNDS]\n");
    return 2;
  }
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 8;
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  CHECK_CU(cuInit(0));
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_CU(cuCtxSetCurrent(ctx));
  CUmodule mod;
  const std::string ptx = text.str();
  CHECK_CU(cuModuleLoadData(&mod, ptx.c_str()));
  std::FILE* out = std::fopen(argv[2], "wb");
  if (out == nullptr) {
    std::perror(argv[2]);
    return 1;
  }
  int failed = 0;
  std::printf("%-24s %6s %9s %9s %12s\n", "kernel", "runs", "elements", "outside", "worst/bound");
  for (const Case& c : cases) {
    CUfunction fn;
    CHECK_CU(cuModuleGetFunction(&fn, mod, c.kernel));
    long outside = 0, elements = 0;
    double worst = 0;
    for (int round = 1; round <= rounds; ++round) {
      std::uint64_t seed =
          0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(round) + c.m * 131 + c.k;
      const bool moves = c.a == B16;
      Record r;
      r.kernel = c.kernel;
      r.a = random_elements(c.a, moves ? 256 : c.m * c.k, seed);
      r.b = random_elements(c.b, moves ? 0 : c.k * c.n, seed);
      r.c = random_elements(c.c, moves ? 0 : c.m * c.n, seed);
      r.d.assign((moves ? 256 : c.m * c.n) * bits(c.d) / 8, 0);
      CUdeviceptr p[4] = {};
      const std::vector<std::uint8_t>* host[4] = {&r.a, &r.b, &r.c, &r.d};
      for (int k = 0; k < 4; ++k) {
        CHECK_CU(cuMemAlloc(&p[k], host[k]->size() + 16));
        if (!host[k]->empty())
          CHECK_CU(cuMemcpyHtoD(p[k], host[k]->data(), host[k]->size()));
      }
      void* args[4] = {&p[0], &p[1], &p[2], &p[3]};
      CHECK_CU(cuLaunchKernel(fn, 1, 1, 1, c.threads, 1, 1, 0, nullptr, args, nullptr));
      CHECK_CU(cuCtxSynchronize());
      CHECK_CU(cuMemcpyDtoH(r.d.data(), p[3], r.d.size()));
      for (CUdeviceptr q : p)
        CHECK_CU(cuMemFree(q));
      if (moves) {
        elements += 256;
        outside += r.d != moved(r.a) ? 1 : 0;
      } else {
        std::vector<double> ref, s;
        reference(c, r, ref, s);
        for (std::size_t i = 0; i < ref.size(); ++i) {
          const double x = excess(c, element(r.d, i, bits(c.d)), ref[i], s[i]);
          ++elements;
          outside += x > 0 ? 1 : 0;
          const double b = bound(c, s[i]);
          if (b > 0) {
            const double diff = std::fabs(value(c.d, element(r.d, i, bits(c.d))) - ref[i]);
            worst = diff / b > worst ? diff / b : worst;
          }
        }
      }
      write_record(out, r);
    }
    failed += outside > 0 ? 1 : 0;
    std::printf("%-24s %6d %9ld %9ld %12.3g\n", c.kernel, rounds, elements, outside, worst);
  }
  std::fclose(out);
  std::printf("GPU against the reference under the declared mode: %d of %zu kernels outside\n",
              failed, sizeof cases / sizeof cases[0]);
  return failed == 0 ? 0 : 1;
}
