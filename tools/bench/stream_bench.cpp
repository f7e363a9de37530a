// ptxgen_stream_bench: a persistent pipelined streaming copy of BYTES (2 GiB
// by default) on the GPU, three ways in one run, each verified:
//   - cuMemcpyDtoD of the same bytes (the ceiling);
//   - the hand-written nvcc kernel tools/baseline/pipelined_copy.cu (its PTX,
//     compiled with nvcc -ptx -arch=sm_90 -O3 at build time, is embedded here);
//   - a ptxgen-emitted kernel given as a PTX (or cubin) file: --ptx FILE
//     --entry NAME, with ptxgen's parameter layout (emitter/lower/abi.hpp:
//     global tensors first, in declaration order, as .u64 pointers, then the
//     scalar parameters in order) spelled by --args, and the launch shape by
//     --grid, --block and --smem.
// Both kernels are JIT-compiled by the driver from PTX (cuModuleLoadDataEx),
// the same way. Each method: output filled with a sentinel, warm-up launches,
// then --reps timed launches with one pair of CUDA events each; median and
// minimum time; GB/s counting read + write bytes (2 x BYTES, decimal GB); the
// percentage of cuMemcpyDtoD's bandwidth (median against median). After the
// timed launches the output is compared with the input byte for byte, the
// guard bytes around both buffers are checked and the input is checked
// unchanged: a wrong kernel fails the run (exit status 1, "FAIL" in the table).
//
// usage: ptxgen_stream_bench [--bytes N] [--reps N] [--warmup N] [--device N]
//          [--baseline-grid N[,N...]] [--baseline-ptx FILE]... [--dump-baseline-ptx FILE]
//          [--ptx FILE --entry NAME --grid X[,Y[,Z]] --block X[,Y[,Z]]
//           --args LIST [--smem BYTES] [--label NAME]]
// --args LIST: the kernel's parameters in order, comma-separated: `in` (the
// input buffer's address), `out` (the output buffer's), `u32:N`, `u64:N`, or
// `u32:tiles/B` (BYTES / B, for a tile count: `u32:tiles/8192`).
// --baseline-grid: the nvcc kernel's grid (default, or `occ`: multiprocessors
// x resident blocks per multiprocessor); several (264,528,occ) time it once per
// grid. --baseline-ptx FILE, repeatable: time these builds of
// pipelined_copy.cu (other -DPC_* shapes) instead of the embedded one.
// Exit status: 0 all verified, 1 a verification or CUDA failure, 2 usage.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda.h>

/// The embedded PTX of tools/baseline/pipelined_copy.cu (generated at build time).
extern const char ptxgen_pipelined_copy_ptx[];

namespace {

constexpr std::uint64_t kGuardBytes = 64 * 1024; ///< sentinel bytes before and after each buffer
constexpr unsigned char kOutSentinel = 0xA5;     ///< what the output holds before each method
constexpr unsigned char kGuardSentinel = 0x5A;   ///< what the guard bytes hold
constexpr std::uint64_t kPatternSeed = 0x9E3779B97F4A7C15ull;

class UsageError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(CUresult result, const std::string& what) {
  if (result == CUDA_SUCCESS)
    return;
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  throw std::runtime_error(what + ": " + (name ? name : "CUresult " + std::to_string(result)) +
                           ": " + (text ? text : ""));
}

std::uint64_t parse_u64(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  std::uint64_t v = 0;
  try {
    v = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text[0] == '-')
    throw UsageError(option + " needs a non-negative integer, not '" + text + "'");
  return v;
}

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
  std::string str() const {
    return std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z);
  }
};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);)
    parts.push_back(part);
  return parts;
}

unsigned parse_u32(const std::string& text, const std::string& option) {
  std::uint64_t v = parse_u64(text, option);
  if (v > 0xFFFFFFFFull)
    throw UsageError(option + ": " + text + " does not fit in 32 bits");
  return static_cast<unsigned>(v);
}

Dim3 parse_dim3(const std::string& text, const std::string& option) {
  auto parts = split(text, ',');
  if (parts.empty() || parts.size() > 3)
    throw UsageError(option + " needs X, X,Y or X,Y,Z");
  Dim3 d;
  unsigned* fields[] = {&d.x, &d.y, &d.z};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    *fields[i] = parse_u32(parts[i], option);
    if (*fields[i] == 0)
      throw UsageError(option + ": a dimension of 0");
  }
  return d;
}

/// One kernel parameter of --args.
struct Arg {
  enum class Kind : std::uint8_t { in, out, u32, u64 } kind = Kind::in;
  std::uint64_t value = 0;
};

std::vector<Arg> parse_args(const std::string& text, std::uint64_t bytes) {
  std::vector<Arg> args;
  for (const std::string& item : split(text, ',')) {
    if (item == "in" || item == "out") {
      args.push_back({item == "in" ? Arg::Kind::in : Arg::Kind::out, 0});
      continue;
    }
    auto colon = item.find(':');
    std::string type = item.substr(0, colon);
    if (colon == std::string::npos || (type != "u32" && type != "u64"))
      throw UsageError("--args: '" + item + "' is not in, out, u32:N, u64:N or u32:tiles/B");
    std::string value = item.substr(colon + 1);
    Arg a{type == "u32" ? Arg::Kind::u32 : Arg::Kind::u64, 0};
    if (value.rfind("tiles/", 0) == 0) {
      std::uint64_t tile = parse_u64(value.substr(6), "--args tiles/B");
      if (tile == 0 || bytes % tile != 0)
        throw UsageError("--args: " + std::to_string(bytes) + " bytes are not whole tiles of " +
                         std::to_string(tile));
      a.value = bytes / tile;
    } else {
      a.value = parse_u64(value, "--args " + type);
    }
    if (a.kind == Arg::Kind::u32 && a.value > 0xFFFFFFFFull)
      throw UsageError("--args: " + item + " does not fit in 32 bits");
    args.push_back(a);
  }
  return args;
}

struct Options {
  std::uint64_t bytes = std::uint64_t{2} << 30;
  unsigned reps = 50;
  unsigned warmup = 5;
  int device = 0;
  /// The nvcc kernel's grids; 0: multiprocessors x resident blocks per multiprocessor.
  std::vector<unsigned> baseline_grids{0};
  std::vector<std::string> baseline_ptx; ///< empty: the embedded PTX
  std::string dump_baseline_ptx;
  // The ptxgen kernel (optional).
  std::string ptx, entry, label = "ptxgen", args_text;
  std::vector<Arg> args; ///< args_text parsed
  std::optional<Dim3> grid, block;
  unsigned smem = 0;
  std::string command;
};

std::vector<unsigned> parse_grids(const std::string& text, const std::string& option) {
  std::vector<unsigned> grids;
  for (const std::string& g : split(text, ',')) {
    unsigned n = g == "occ" ? 0 : parse_u32(g, option);
    if (n == 0 && g != "occ")
      throw UsageError(option + ": a grid of 0 (write occ for the resident blocks)");
    grids.push_back(n);
  }
  if (grids.empty())
    throw UsageError(option + " needs grids: N[,N...] or occ");
  return grids;
}

const char* kUsage =
    "usage: ptxgen_stream_bench [--bytes N] [--reps N] [--warmup N] [--device N]\n"
    "         [--baseline-grid N[,N...]] [--baseline-ptx FILE]... [--dump-baseline-ptx FILE]\n"
    "         [--ptx FILE --entry NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] --args LIST\n"
    "          [--smem BYTES] [--label NAME]]\n"
    "  --args: parameters in order: in, out, u32:N, u64:N, u32:tiles/B (BYTES / B)\n";

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 0; i < argc; ++i) {
    if (i > 0)
      o.command += ' ';
    o.command += argv[i];
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--bytes")
      o.bytes = parse_u64(value(), a);
    else if (a == "--reps")
      o.reps = parse_u32(value(), a);
    else if (a == "--warmup")
      o.warmup = parse_u32(value(), a);
    else if (a == "--device")
      o.device = static_cast<int>(parse_u32(value(), a));
    else if (a == "--baseline-grid")
      o.baseline_grids = parse_grids(value(), a);
    else if (a == "--baseline-ptx")
      o.baseline_ptx.push_back(value());
    else if (a == "--dump-baseline-ptx")
      o.dump_baseline_ptx = value();
    else if (a == "--ptx")
      o.ptx = value();
    else if (a == "--entry")
      o.entry = value();
    else if (a == "--label")
      o.label = value();
    else if (a == "--args")
      o.args_text = value();
    else if (a == "--grid")
      o.grid = parse_dim3(value(), a);
    else if (a == "--block")
      o.block = parse_dim3(value(), a);
    else if (a == "--smem")
      o.smem = parse_u32(value(), a);
    else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else
      throw UsageError("unknown option " + a);
  }
  if (o.bytes == 0 || o.bytes % 16 != 0)
    throw UsageError("--bytes must be a positive multiple of 16");
  if (o.reps == 0)
    throw UsageError("--reps must be at least 1");
  if (!o.ptx.empty() && (o.entry.empty() || !o.grid || !o.block || o.args_text.empty()))
    throw UsageError("--ptx needs --entry, --grid, --block and --args");
  if (o.ptx.empty() && (!o.entry.empty() || o.grid || o.block || !o.args_text.empty()))
    throw UsageError("--entry, --grid, --block and --args go with --ptx");
  if (!o.args_text.empty())
    o.args = parse_args(o.args_text, o.bytes);
  return o;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A device buffer of `bytes` with kGuardBytes of guard before and after.
class GuardedBuffer {
public:
  explicit GuardedBuffer(std::uint64_t bytes) : bytes_(bytes) {
    check(cuMemAlloc(&base_, bytes + 2 * kGuardBytes), "cuMemAlloc of " + std::to_string(bytes));
    check(cuMemsetD8(base_, kGuardSentinel, bytes + 2 * kGuardBytes), "cuMemsetD8 (guards)");
  }
  ~GuardedBuffer() { cuMemFree(base_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  CUdeviceptr data() const { return base_ + kGuardBytes; }
  std::uint64_t bytes() const { return bytes_; }
  /// "" when both guards still hold the sentinel, else what was found.
  std::string damaged_guards() const {
    std::vector<unsigned char> g(kGuardBytes);
    std::string what;
    for (CUdeviceptr at : {base_, base_ + kGuardBytes + bytes_}) {
      check(cuMemcpyDtoH(g.data(), at, kGuardBytes), "cuMemcpyDtoH (guards)");
      auto bad =
          std::count_if(g.begin(), g.end(), [](unsigned char c) { return c != kGuardSentinel; });
      if (bad)
        what += std::to_string(bad) + (at == base_ ? " bytes before" : " bytes after") +
                " the buffer written; ";
    }
    return what;
  }

private:
  CUdeviceptr base_ = 0;
  std::uint64_t bytes_;
};

/// A loaded module and one of its kernels.
class Kernel {
public:
  Kernel(const std::string& image, const std::string& entry, const std::string& what) {
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    char log[8192] = {};
    void* values[] = {log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof log))};
    CUresult r = cuModuleLoadDataEx(&module_, image.c_str(), 2, opts, values);
    if (r != CUDA_SUCCESS)
      std::cerr << "JIT log of " << what << ":\n" << log << "\n";
    check(r, "cuModuleLoadDataEx of " + what);
    check(cuModuleGetFunction(&fn_, module_, entry.c_str()),
          "cuModuleGetFunction '" + entry + "' in " + what);
  }
  ~Kernel() { cuModuleUnload(module_); }
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  CUfunction fn() const { return fn_; }
  CUmodule module() const { return module_; }
  int attribute(CUfunction_attribute a) const {
    int v = 0;
    check(cuFuncGetAttribute(&v, a, fn_), "cuFuncGetAttribute");
    return v;
  }
  std::string resources() const {
    return std::to_string(attribute(CU_FUNC_ATTRIBUTE_NUM_REGS)) + " registers, " +
           std::to_string(attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)) + " B static shared";
  }

private:
  CUmodule module_ = nullptr;
  CUfunction fn_ = nullptr;
};

/// A kernel launch with its packed parameters (each in its own 8-byte slot).
struct Launch {
  CUfunction fn = nullptr;
  Dim3 grid, block;
  unsigned smem = 0;
  std::vector<std::uint64_t> slots;
  void enqueue(CUstream stream) {
    std::vector<void*> ptrs;
    for (auto& s : slots)
      ptrs.push_back(&s); // little-endian: a u32 is the slot's first 4 bytes
    check(cuLaunchKernel(fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, stream,
                         ptrs.data(), nullptr),
          "cuLaunchKernel");
  }
};

struct Method {
  std::string name;
  std::string shape; ///< launch shape and resources, for the log
  std::function<void(CUstream)> enqueue;
};

struct Result {
  std::string name;
  double median_ms = 0, min_ms = 0;
  std::string failure; ///< "" when verified
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Buffers {
  GuardedBuffer& in;
  GuardedBuffer& out;
  const std::vector<unsigned char>& expected; ///< the input's bytes
  std::vector<unsigned char>& scratch;        ///< a host buffer of the same size
};

/// "" when `device` holds exactly `expected`, else where and how much differs.
std::string compare(const GuardedBuffer& device, const Buffers& b, const char* what) {
  check(cuMemcpyDtoH(b.scratch.data(), device.data(), device.bytes()), "cuMemcpyDtoH");
  if (std::memcmp(b.scratch.data(), b.expected.data(), device.bytes()) == 0)
    return "";
  auto first = std::mismatch(b.scratch.begin(), b.scratch.end(), b.expected.begin());
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < device.bytes(); ++i)
    wrong += b.scratch[i] != b.expected[i];
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s: %llu of %llu bytes differ, the first at byte %llu; ", what,
                static_cast<unsigned long long>(wrong),
                static_cast<unsigned long long>(device.bytes()),
                static_cast<unsigned long long>(first.first - b.scratch.begin()));
  return buf;
}

std::string verify(const Buffers& b) {
  std::string failure = compare(b.out, b, "output");
  failure += b.out.damaged_guards();
  failure += compare(b.in, b, "input (must be unchanged)");
  failure += b.in.damaged_guards();
  return failure;
}

Result measure(const Method& m, const Buffers& b, const Options& o, CUstream stream) {
  check(cuMemsetD8(b.out.data(), kOutSentinel, b.out.bytes()), "cuMemsetD8 (output)");
  check(cuCtxSynchronize(), "cuCtxSynchronize before " + m.name);
  for (unsigned i = 0; i < o.warmup; ++i)
    m.enqueue(stream);
  std::vector<CUevent> events(2 * o.reps);
  for (auto& e : events)
    check(cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  for (unsigned i = 0; i < o.reps; ++i) {
    check(cuEventRecord(events[2 * i], stream), "cuEventRecord");
    m.enqueue(stream);
    check(cuEventRecord(events[2 * i + 1], stream), "cuEventRecord");
  }
  check(cuStreamSynchronize(stream), "running " + m.name);
  std::vector<double> ms(o.reps);
  for (unsigned i = 0; i < o.reps; ++i) {
    float t = 0;
    check(cuEventElapsedTime(&t, events[2 * i], events[2 * i + 1]), "cuEventElapsedTime");
    ms[i] = t;
  }
  for (auto& e : events)
    cuEventDestroy(e);
  Result r{m.name, median(ms), *std::min_element(ms.begin(), ms.end()), verify(b)};
  std::cout << m.name << ": " << m.shape << "; median " << r.median_ms << " ms, min " << r.min_ms
            << " ms; " << (r.failure.empty() ? "verified" : "FAIL: " + r.failure) << "\n"
            << std::flush;
  return r;
}

std::vector<unsigned char> make_pattern(std::uint64_t bytes) {
  std::vector<unsigned char> p(bytes);
  for (std::uint64_t i = 0; i < bytes / 8; ++i) {
    std::uint64_t z = (i + 1) * kPatternSeed; // splitmix64 of the word index
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    std::memcpy(&p[8 * i], &z, 8);
  }
  return p;
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

/// The baseline's compile-time shape, read from its module.
struct BaselineShape {
  unsigned stages = 0, threads = 0, vecs = 0;
  std::uint64_t tile_bytes() const { return std::uint64_t{threads} * vecs * 16; }
};

BaselineShape read_baseline_shape(const Kernel& k) {
  CUdeviceptr at = 0;
  std::size_t size = 0;
  check(cuModuleGetGlobal(&at, &size, k.module(), "pipelined_copy_shape"),
        "cuModuleGetGlobal pipelined_copy_shape");
  unsigned v[3] = {};
  if (size != sizeof v)
    throw std::runtime_error("pipelined_copy_shape has " + std::to_string(size) + " bytes");
  check(cuMemcpyDtoH(v, at, sizeof v), "cuMemcpyDtoH pipelined_copy_shape");
  return {v[0], v[1], v[2]};
}

/// The nvcc kernel `k` on `grid` (0: as many blocks as are resident at once).
Method baseline_method(const Kernel& k, const std::string& name, unsigned grid, const Buffers& b,
                       const Options& o, CUdevice dev) {
  BaselineShape s = read_baseline_shape(k);
  if (o.bytes % s.tile_bytes() != 0)
    throw UsageError("--bytes must be whole tiles of " + std::to_string(s.tile_bytes()) +
                     " bytes for the nvcc kernel");
  Launch l;
  l.fn = k.fn();
  l.block = {s.threads, 1, 1};
  l.smem = static_cast<unsigned>(s.stages * s.tile_bytes());
  check(cuFuncSetAttribute(l.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           static_cast<int>(l.smem)),
        "cuFuncSetAttribute (dynamic shared) of the nvcc kernel");
  int per_sm = 0, sms = 0;
  check(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, l.fn, static_cast<int>(s.threads),
                                                    l.smem),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
        "multiprocessor count");
  l.grid = {grid ? grid : static_cast<unsigned>(per_sm * sms), 1, 1};
  const std::uint64_t tiles = o.bytes / s.tile_bytes();
  l.slots = {b.in.data(), b.out.data(), tiles};
  std::string shape = "grid " + l.grid.str() + " block " + l.block.str() + " dynamic shared " +
                      std::to_string(l.smem) + " B; " + std::to_string(s.stages) + " stages of " +
                      std::to_string(s.tile_bytes()) + " B tiles, " + std::to_string(tiles) +
                      " tiles; " + k.resources() + "; " + std::to_string(per_sm) + " blocks/SM x " +
                      std::to_string(sms) + " SMs";
  return {name, shape, [l](CUstream st) mutable { l.enqueue(st); }};
}

Method ptxgen_method(const Kernel& k, const Buffers& b, const Options& o) {
  Launch l;
  l.fn = k.fn();
  l.grid = *o.grid;
  l.block = *o.block;
  l.smem = o.smem;
  if (l.smem > 0)
    check(cuFuncSetAttribute(l.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(l.smem)),
          "cuFuncSetAttribute (dynamic shared) of " + o.entry);
  for (const Arg& a : o.args) {
    switch (a.kind) {
    case Arg::Kind::in:
      l.slots.push_back(b.in.data());
      break;
    case Arg::Kind::out:
      l.slots.push_back(b.out.data());
      break;
    case Arg::Kind::u32:
    case Arg::Kind::u64:
      l.slots.push_back(a.value);
      break;
    }
  }
  std::string shape = "grid " + l.grid.str() + " block " + l.block.str() + " dynamic shared " +
                      std::to_string(l.smem) + " B; args " + o.args_text + "; " + k.resources() +
                      "; " + o.ptx + " entry " + o.entry;
  return {o.label, shape, [l](CUstream st) mutable { l.enqueue(st); }};
}

void print_table(const std::vector<Result>& results, std::uint64_t bytes) {
  const double gb = 2.0 * static_cast<double>(bytes) / 1e9;
  const double ref = results.front().median_ms; // cuMemcpyDtoD
  int width = 12;
  for (const Result& r : results)
    width = std::max(width, static_cast<int>(r.name.size()));
  std::printf("\n%-*s %10s %10s %12s %12s %10s  %s\n", width, "method", "median_ms", "min_ms",
              "GB/s(med)", "GB/s(best)", "%memcpy", "check");
  for (const Result& r : results)
    std::printf("%-*s %10.4f %10.4f %12.1f %12.1f %10.1f  %s\n", width, r.name.c_str(), r.median_ms,
                r.min_ms, gb / (r.median_ms / 1e3), gb / (r.min_ms / 1e3),
                100.0 * ref / r.median_ms, r.failure.empty() ? "ok" : "FAIL");
  std::printf("GB/s = (%llu read + %llu written bytes) / time, 1 GB = 1e9 B; %%memcpy = "
              "bandwidth against cuMemcpyDtoD's (its first timing), median against median; "
              "memcpyDtoD#2, timed last, shows the run's noise\n",
              static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(bytes));
}

void print_header(const Options& o, CUdevice dev) {
  char name[256] = {};
  int driver = 0, sms = 0, clock_khz = 0, mem_khz = 0;
  check(cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
  check(cuDriverGetVersion(&driver), "cuDriverGetVersion");
  check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "SM count");
  check(cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev), "clock rate");
  check(cuDeviceGetAttribute(&mem_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev), "mem clock");
  std::cout << "device: " << name << ", " << sms << " SMs, max SM clock " << clock_khz / 1000
            << " MHz, memory clock " << mem_khz / 1000 << " MHz; driver API " << driver / 1000
            << "." << driver % 1000 / 10 << "\n"
            << "date: " << now_utc() << "\n"
            << "command: " << o.command << "\n"
            << "bytes: " << o.bytes << " in, " << o.bytes << " out; " << o.warmup << " warm-up and "
            << o.reps << " timed launches per method (CUDA events)\n"
            << std::flush;
}

int run(const Options& o) {
  if (!o.dump_baseline_ptx.empty()) {
    std::ofstream(o.dump_baseline_ptx, std::ios::binary) << ptxgen_pipelined_copy_ptx;
    return 0;
  }
  check(cuInit(0), "cuInit");
  CUdevice dev = 0;
  check(cuDeviceGet(&dev, o.device), "cuDeviceGet");
  CUcontext ctx = nullptr;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  print_header(o, dev);
  CUstream stream = nullptr;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

  const std::vector<unsigned char> expected = make_pattern(o.bytes);
  std::vector<unsigned char> scratch(o.bytes);
  GuardedBuffer in(o.bytes), out(o.bytes);
  check(cuMemcpyHtoD(in.data(), expected.data(), o.bytes), "cuMemcpyHtoD (input)");
  Buffers b{in, out, expected, scratch};

  std::vector<std::unique_ptr<Kernel>> baselines;
  std::vector<std::string> names;
  if (o.baseline_ptx.empty()) {
    baselines.push_back(
        std::make_unique<Kernel>(ptxgen_pipelined_copy_ptx, "pipelined_copy", "the nvcc kernel"));
    names.push_back("nvcc");
  }
  for (const std::string& path : o.baseline_ptx) {
    baselines.push_back(std::make_unique<Kernel>(read_file(path), "pipelined_copy", path));
    names.push_back("nvcc:" + std::filesystem::path(path).stem().string());
  }
  std::optional<Kernel> emitted;
  if (!o.ptx.empty())
    emitted.emplace(read_file(o.ptx), o.entry, o.ptx);

  Method memcpy{"memcpyDtoD", "cuMemcpyDtoDAsync of " + std::to_string(o.bytes) + " B",
                [&](CUstream st) {
                  check(cuMemcpyDtoDAsync(out.data(), in.data(), o.bytes, st), "cuMemcpyDtoDAsync");
                }};
  std::vector<Method> methods{memcpy};
  const bool several = baselines.size() * o.baseline_grids.size() > 1;
  for (std::size_t i = 0; i < baselines.size(); ++i) {
    for (unsigned grid : o.baseline_grids) {
      std::string name = names[i];
      if (several) {
        name += '@';
        name += grid ? std::to_string(grid) : std::string("occ");
      }
      methods.push_back(baseline_method(*baselines[i], name, grid, b, o, dev));
    }
  }
  if (emitted)
    methods.push_back(ptxgen_method(*emitted, b, o));
  memcpy.name += "#2";
  methods.push_back(memcpy);

  std::vector<Result> results;
  for (const Method& m : methods)
    results.push_back(measure(m, b, o, stream));
  print_table(results, o.bytes);
  cuStreamDestroy(stream);
  bool ok = std::all_of(results.begin(), results.end(),
                        [](const Result& r) { return r.failure.empty(); });
  if (!ok)
    std::cout << "FAILED: a method's output is not its input (see above)\n";
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_options(argc, argv));
  } catch (const UsageError& e) {
    std::cerr << "ptxgen_stream_bench: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ptxgen_stream_bench: FAILED: " << e.what() << "\n";
    return 1;
  }
}
