// ptxgen_stream_bench: a streaming copy of BYTES (2 GiB by default) on the
// GPU, several ways in one run, each verified:
//   - cuMemcpyDtoD of the same bytes (the ceiling);
//   - the hand-written nvcc kernels, their PTX compiled with nvcc -ptx
//     -arch=sm_90 -O3 at build time and embedded here:
//     tools/baseline/pipelined_copy.cu (the persistent cp.async ring, "nvcc"),
//     tools/baseline/bulk_copy.cu (1-D bulk copies, "nvcc-bulk") and
//     tools/baseline/tma_copy.cu (2-D TMA boxes of a uint16 tensor of
//     --tma-cols columns, "nvcc-tma"; its two tensor maps encoded here with
//     cuTensorMapEncodeTiled from the shape the module declares);
//   - ptxgen-emitted kernels, each given as a PTX (or cubin) file: --ptx FILE
//     --entry NAME (repeatable: each --ptx starts a kernel, and the options
//     after it describe that one), with ptxgen's parameter layout
//     (emitter/lower/abi.hpp: global tensors first, in declaration order, as
//     .u64 pointers, then the scalar parameters in order) spelled by --args,
//     and the launch shape by --grid, --block and --smem.
// All kernels are JIT-compiled by the driver from PTX (cuModuleLoadDataEx),
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
//          [--bulk-grid N[,N...]] [--bulk-ptx FILE]... [--dump-bulk-ptx FILE]
//          [--tma-grid N[,N...]] [--tma-ptx FILE]... [--dump-tma-ptx FILE]
//          [--tma-cols N] [--tma-l2 none|64|128|256] [--only LIST]
//          [--ptx FILE --entry NAME --grid X[,Y[,Z]] --block X[,Y[,Z]]
//           --args LIST [--smem BYTES] [--label NAME]]...
// --args LIST: the kernel's parameters in order, comma-separated: `in` (the
// input buffer's address), `out` (the output buffer's), `u32:N`, `u64:N`,
// `u32:tiles/B` (BYTES / B, for a tile count: `u32:tiles/8192`), or
// `tmap2d:in|out:ROWS,COLS,BOX_ROWS,BOX_COLS,SWIZZLE[,L2]`: a 128-byte
// CUtensorMap of that buffer as a 2-D row-major uint16 tensor of ROWS x COLS
// elements (ROWS may be `auto`: BYTES / (2 COLS)), boxes of BOX_ROWS x
// BOX_COLS, SWIZZLE 0, 32, 64 or 128 (bytes), L2 promotion 0, 64, 128 or 256
// (default 0), zero fill, passed by value (cuTensorMapEncodeTiled). A tensor
// map's fields are separated by commas too: it takes the next 5 or 6 items.
// --baseline-grid: the pipelined nvcc kernel's grid (default, or `occ`:
// multiprocessors x resident blocks per multiprocessor); several (264,528,occ)
// time it once per grid; --bulk-grid and --tma-grid likewise for the bulk and
// TMA kernels. --baseline-ptx, --bulk-ptx, --tma-ptx FILE, repeatable: time
// these builds of pipelined_copy.cu, bulk_copy.cu, tma_copy.cu (other -D
// shapes) instead of the embedded one; FILE@N[,N...] times that file on these
// grids instead of the family's, and the FILE `default` is the embedded build.
// --only LIST: time only these of the
// hand-written families (nvcc, bulk, tma; comma-separated; default all).
// Exit status: 0 all verified, 1 a verification or CUDA failure, 2 usage.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda.h>

/// The embedded PTX of tools/baseline/pipelined_copy.cu, bulk_copy.cu and
/// tma_copy.cu (generated at build time).
extern const char ptxgen_pipelined_copy_ptx[];
extern const char ptxgen_bulk_copy_ptx[];
extern const char ptxgen_tma_copy_ptx[];

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

/// A 2-D row-major uint16 tensor map over the input or the output buffer.
struct TensorMap2d {
  bool of_input = true;
  std::uint64_t rows = 0, cols = 0;
  unsigned box_rows = 0, box_cols = 0;
  unsigned swizzle = 0; ///< bytes: 0, 32, 64 or 128
  unsigned l2 = 0;      ///< L2 promotion bytes: 0, 64, 128 or 256
};

/// One kernel parameter of --args.
struct Arg {
  enum class Kind : std::uint8_t { in, out, u32, u64, tmap } kind = Kind::in;
  std::uint64_t value = 0;
  TensorMap2d map; ///< kind tmap
};

unsigned parse_choice(const std::string& text, std::initializer_list<unsigned> choices,
                      const std::string& what) {
  unsigned v = parse_u32(text, what);
  if (std::find(choices.begin(), choices.end(), v) == choices.end())
    throw UsageError(what + ": " + text + " is not one of the allowed values");
  return v;
}

/// `tmap2d:in|out:ROWS` followed by COLS, BOX_ROWS, BOX_COLS, SWIZZLE[, L2]
/// as the next items of the list (`items[i]` is the first).
Arg parse_tmap(const std::vector<std::string>& items, std::size_t& i, std::uint64_t bytes) {
  const std::string& head = items[i];
  auto second = head.find(':', 7);
  std::string buffer = second == std::string::npos ? "" : head.substr(7, second - 7);
  if (buffer != "in" && buffer != "out")
    throw UsageError("--args: '" + head + "' is not tmap2d:in:ROWS or tmap2d:out:ROWS");
  std::vector<std::string> f{head.substr(second + 1)};
  while (f.size() < 6 && i + 1 < items.size() && !items[i + 1].empty() &&
         std::isdigit(static_cast<unsigned char>(items[i + 1][0])))
    f.push_back(items[++i]);
  if (f.size() < 5)
    throw UsageError("--args: " + head + " needs ROWS,COLS,BOX_ROWS,BOX_COLS,SWIZZLE[,L2]");
  Arg a{Arg::Kind::tmap, 0, {}};
  TensorMap2d& m = a.map;
  m.of_input = buffer == "in";
  m.cols = parse_u64(f[1], "--args tmap2d COLS");
  if (m.cols == 0 || bytes % (2 * m.cols) != 0)
    throw UsageError("--args tmap2d: " + std::to_string(bytes) + " bytes are not whole rows of " +
                     f[1] + " uint16 elements");
  m.rows = f[0] == "auto" ? bytes / (2 * m.cols) : parse_u64(f[0], "--args tmap2d ROWS");
  if (m.rows * m.cols * 2 > bytes || m.rows == 0)
    throw UsageError("--args tmap2d: " + f[0] + " x " + f[1] + " uint16 elements do not fit in " +
                     std::to_string(bytes) + " bytes");
  m.box_rows = parse_u32(f[2], "--args tmap2d BOX_ROWS");
  m.box_cols = parse_u32(f[3], "--args tmap2d BOX_COLS");
  m.swizzle = parse_choice(f[4], {0, 32, 64, 128}, "--args tmap2d SWIZZLE");
  m.l2 = f.size() > 5 ? parse_choice(f[5], {0, 64, 128, 256}, "--args tmap2d L2") : 0;
  return a;
}

std::vector<Arg> parse_args(const std::string& text, std::uint64_t bytes) {
  std::vector<Arg> args;
  const std::vector<std::string> items = split(text, ',');
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string& item = items[i];
    if (item == "in" || item == "out") {
      args.push_back({item == "in" ? Arg::Kind::in : Arg::Kind::out, 0, {}});
      continue;
    }
    if (item.rfind("tmap2d:", 0) == 0) {
      args.push_back(parse_tmap(items, i, bytes));
      continue;
    }
    auto colon = item.find(':');
    std::string type = item.substr(0, colon);
    if (colon == std::string::npos || (type != "u32" && type != "u64"))
      throw UsageError("--args: '" + item +
                       "' is not in, out, u32:N, u64:N, u32:tiles/B or tmap2d:...");
    std::string value = item.substr(colon + 1);
    Arg a{type == "u32" ? Arg::Kind::u32 : Arg::Kind::u64, 0, {}};
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

/// A ptxgen kernel of the command line (--ptx and the options after it).
struct PtxKernel {
  std::string ptx, entry, label, args_text;
  std::vector<Arg> args; ///< args_text parsed
  std::optional<Dim3> grid, block;
  unsigned smem = 0;
};

struct Options {
  std::uint64_t bytes = std::uint64_t{2} << 30;
  unsigned reps = 50;
  unsigned warmup = 5;
  int device = 0;
  /// The nvcc kernel's grids; 0: multiprocessors x resident blocks per multiprocessor.
  std::vector<unsigned> baseline_grids{0};
  std::vector<std::string> baseline_ptx; ///< empty: the embedded PTX
  std::string dump_baseline_ptx;
  std::vector<unsigned> bulk_grids{0}, tma_grids{0};
  std::vector<std::string> bulk_ptx, tma_ptx; ///< empty: the embedded PTX
  std::string dump_bulk_ptx, dump_tma_ptx;
  std::uint64_t tma_cols = 8192; ///< uint16 columns of the TMA kernel's tensor: 16 KiB rows
  unsigned tma_l2 = 0;           ///< L2 promotion of its maps, bytes
  bool time_nvcc = true, time_bulk = true, time_tma = true; ///< --only
  std::vector<PtxKernel> kernels;
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
    "         [--bulk-grid N[,N...]] [--bulk-ptx FILE]... [--dump-bulk-ptx FILE]\n"
    "         [--tma-grid N[,N...]] [--tma-ptx FILE]... [--dump-tma-ptx FILE]\n"
    "         [--tma-cols N] [--tma-l2 0|64|128|256] [--only nvcc,bulk,tma]\n"
    "         [--ptx FILE --entry NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] --args LIST\n"
    "          [--smem BYTES] [--label NAME]]...\n"
    "  --args: parameters in order: in, out, u32:N, u64:N, u32:tiles/B (BYTES / B),\n"
    "          tmap2d:in|out:ROWS|auto,COLS,BOX_ROWS,BOX_COLS,SWIZZLE[,L2] (uint16)\n";

void parse_only(const std::string& text, Options& o) {
  o.time_nvcc = o.time_bulk = o.time_tma = false;
  for (const std::string& f : split(text, ',')) {
    if (f == "nvcc")
      o.time_nvcc = true;
    else if (f == "bulk")
      o.time_bulk = true;
    else if (f == "tma")
      o.time_tma = true;
    else
      throw UsageError("--only: '" + f + "' is not nvcc, bulk or tma");
  }
}

void check_kernels(Options& o) {
  for (std::size_t k = 0; k < o.kernels.size(); ++k) {
    PtxKernel& p = o.kernels[k];
    if (p.entry.empty() || !p.grid || !p.block || p.args_text.empty())
      throw UsageError("--ptx " + p.ptx + " needs --entry, --grid, --block and --args");
    p.args = parse_args(p.args_text, o.bytes);
    if (p.label.empty())
      p.label = o.kernels.size() == 1 ? std::string("ptxgen")
                                      : "ptxgen:" + std::filesystem::path(p.ptx).stem().string();
  }
}

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
    else if (a == "--bulk-grid")
      o.bulk_grids = parse_grids(value(), a);
    else if (a == "--bulk-ptx")
      o.bulk_ptx.push_back(value());
    else if (a == "--dump-bulk-ptx")
      o.dump_bulk_ptx = value();
    else if (a == "--tma-grid")
      o.tma_grids = parse_grids(value(), a);
    else if (a == "--tma-ptx")
      o.tma_ptx.push_back(value());
    else if (a == "--dump-tma-ptx")
      o.dump_tma_ptx = value();
    else if (a == "--tma-cols")
      o.tma_cols = parse_u64(value(), a);
    else if (a == "--tma-l2")
      o.tma_l2 = parse_choice(value(), {0, 64, 128, 256}, a);
    else if (a == "--only")
      parse_only(value(), o);
    else if (a == "--ptx")
      o.kernels.push_back({value(), "", "", "", {}, {}, {}, 0});
    else if (a == "--entry" || a == "--label" || a == "--args" || a == "--grid" || a == "--block" ||
             a == "--smem") {
      if (o.kernels.empty())
        throw UsageError(a + " goes after the --ptx it describes");
      PtxKernel& k = o.kernels.back();
      if (a == "--entry")
        k.entry = value();
      else if (a == "--label")
        k.label = value();
      else if (a == "--args")
        k.args_text = value();
      else if (a == "--grid")
        k.grid = parse_dim3(value(), a);
      else if (a == "--block")
        k.block = parse_dim3(value(), a);
      else
        k.smem = parse_u32(value(), a);
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else
      throw UsageError("unknown option " + a);
  }
  if (o.bytes == 0 || o.bytes % 16 != 0)
    throw UsageError("--bytes must be a positive multiple of 16");
  if (o.reps == 0)
    throw UsageError("--reps must be at least 1");
  if (o.tma_cols == 0 || o.tma_cols > 0xFFFFFFFFull || o.bytes % (2 * o.tma_cols) != 0)
    throw UsageError("--bytes must be whole rows of --tma-cols uint16 elements");
  check_kernels(o);
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

/// One kernel parameter's bytes: a scalar or pointer in the first 4 or 8
/// (little-endian: a u32 is a u64 slot's first 4 bytes), or a whole
/// CUtensorMap; the driver copies as many as the kernel's parameter has.
struct ParamSlot {
  alignas(alignof(CUtensorMap)) unsigned char bytes[sizeof(CUtensorMap)] = {};
  static ParamSlot of(std::uint64_t v) {
    ParamSlot p;
    std::memcpy(p.bytes, &v, sizeof v);
    return p;
  }
  static ParamSlot of(const CUtensorMap& m) {
    ParamSlot p;
    std::memcpy(p.bytes, &m, sizeof m);
    return p;
  }
};

/// A kernel launch with its packed parameters.
struct Launch {
  CUfunction fn = nullptr;
  Dim3 grid, block;
  unsigned smem = 0;
  std::vector<ParamSlot> slots;
  void enqueue(CUstream stream) {
    std::vector<void*> ptrs;
    for (auto& s : slots)
      ptrs.push_back(s.bytes);
    check(cuLaunchKernel(fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, stream,
                         ptrs.data(), nullptr),
          "cuLaunchKernel");
  }
};

/// The 2-D uint16 tensor map `m` over the buffer at `base` (zero fill, no
/// interleave, element strides 1).
CUtensorMap encode_tmap2d(const TensorMap2d& m, CUdeviceptr base) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {m.cols, m.rows}; // innermost first
  const cuuint64_t strides[1] = {m.cols * 2};  // bytes between rows
  const cuuint32_t box[2] = {m.box_cols, m.box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUtensorMapSwizzle swizzle = m.swizzle == 0    ? CU_TENSOR_MAP_SWIZZLE_NONE
                                     : m.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                     : m.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                       : CU_TENSOR_MAP_SWIZZLE_128B;
  const CUtensorMapL2promotion l2 = m.l2 == 0     ? CU_TENSOR_MAP_L2_PROMOTION_NONE
                                    : m.l2 == 64  ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                    : m.l2 == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                                  : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  check(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2,
                               reinterpret_cast<void*>(static_cast<std::uintptr_t>(base)), dims,
                               strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                               swizzle, l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeTiled (" + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
            ", box " + std::to_string(m.box_rows) + " x " + std::to_string(m.box_cols) +
            ", swizzle " + std::to_string(m.swizzle) + ")");
  return map;
}

std::string describe(const TensorMap2d& m) {
  return "map " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + " uint16, box " +
         std::to_string(m.box_rows) + " x " + std::to_string(m.box_cols) + ", swizzle " +
         (m.swizzle ? std::to_string(m.swizzle) + "B" : std::string("none")) + ", L2 promotion " +
         (m.l2 ? std::to_string(m.l2) + "B" : std::string("none"));
}

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

/// A hand-written kernel's compile-time shape: the `count` unsigned words of
/// its module's `symbol`.
std::vector<unsigned> read_shape(const Kernel& k, const char* symbol, std::size_t count) {
  CUdeviceptr at = 0;
  std::size_t size = 0;
  check(cuModuleGetGlobal(&at, &size, k.module(), symbol),
        std::string("cuModuleGetGlobal ") + symbol);
  std::vector<unsigned> v(count);
  if (size != count * sizeof(unsigned))
    throw std::runtime_error(std::string(symbol) + " has " + std::to_string(size) + " bytes");
  check(cuMemcpyDtoH(v.data(), at, size), std::string("cuMemcpyDtoH ") + symbol);
  return v;
}

/// Sets `l`'s dynamic shared memory and its grid (`grid`, or 0: as many blocks
/// as are resident at once); returns the launch's description.
std::string size_launch(Launch& l, unsigned grid, const std::string& what, CUdevice dev) {
  check(cuFuncSetAttribute(l.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           static_cast<int>(l.smem)),
        "cuFuncSetAttribute (dynamic shared) of " + what);
  int per_sm = 0, sms = 0;
  check(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, l.fn, static_cast<int>(l.block.x),
                                                    l.smem),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
        "multiprocessor count");
  if (per_sm == 0)
    throw std::runtime_error(what + ": no block fits on a multiprocessor");
  l.grid = {grid ? grid : static_cast<unsigned>(per_sm * sms), 1, 1};
  return "grid " + l.grid.str() + " block " + l.block.str() + " dynamic shared " +
         std::to_string(l.smem) + " B; " + std::to_string(per_sm) + " blocks/SM x " +
         std::to_string(sms) + " SMs";
}

/// The pipelined nvcc kernel `k` (pipelined_copy.cu) on `grid`.
Method baseline_method(const Kernel& k, const std::string& name, unsigned grid, const Buffers& b,
                       const Options& o, CUdevice dev) {
  // {stages, threads per block, 16-byte chunks per thread per tile}
  const std::vector<unsigned> s = read_shape(k, "pipelined_copy_shape", 3);
  const std::uint64_t tile_bytes = std::uint64_t{s[1]} * s[2] * 16;
  if (o.bytes % tile_bytes != 0)
    throw UsageError("--bytes must be whole tiles of " + std::to_string(tile_bytes) +
                     " bytes for the nvcc kernel");
  Launch l;
  l.fn = k.fn();
  l.block = {s[1], 1, 1};
  l.smem = static_cast<unsigned>(s[0] * tile_bytes);
  std::string shape = size_launch(l, grid, name, dev);
  const std::uint64_t tiles = o.bytes / tile_bytes;
  l.slots = {ParamSlot::of(b.in.data()), ParamSlot::of(b.out.data()), ParamSlot::of(tiles)};
  shape += "; " + std::to_string(s[0]) + " stages of " + std::to_string(tile_bytes) + " B tiles, " +
           std::to_string(tiles) + " tiles; " + k.resources();
  return {name, shape, [l](CUstream st) mutable { l.enqueue(st); }};
}

/// The 1-D bulk nvcc kernel `k` (bulk_copy.cu) on `grid`.
Method bulk_method(const Kernel& k, const std::string& name, unsigned grid, const Buffers& b,
                   const Options& o, CUdevice dev) {
  // {stages, tile bytes, tiles ahead, threads per block}
  const std::vector<unsigned> s = read_shape(k, "bulk_copy_shape", 4);
  if (o.bytes % s[1] != 0 || o.bytes / s[1] > 0xFFFFFFFFull)
    throw UsageError("--bytes must be whole tiles of " + std::to_string(s[1]) +
                     " bytes for the bulk kernel");
  Launch l;
  l.fn = k.fn();
  l.block = {s[3], 1, 1};
  l.smem = s[0] * s[1];
  std::string shape = size_launch(l, grid, name, dev);
  const std::uint64_t tiles = o.bytes / s[1];
  l.slots = {ParamSlot::of(b.in.data()), ParamSlot::of(b.out.data()), ParamSlot::of(tiles)};
  shape += "; " + std::to_string(s[0]) + " stages of " + std::to_string(s[1]) + " B, " +
           std::to_string(s[2]) + " ahead, " + std::to_string(tiles) + " tiles; " + k.resources();
  return {name, shape, [l](CUstream st) mutable { l.enqueue(st); }};
}

/// The 2-D TMA nvcc kernel `k` (tma_copy.cu) on `grid`: the buffers as a
/// uint16 tensor of --tma-cols columns, both maps encoded from the module's shape.
Method tma_method(const Kernel& k, const std::string& name, unsigned grid, const Buffers& b,
                  const Options& o, CUdevice dev) {
  // {stages, box rows, box columns, swizzle bytes, boxes ahead, threads per block}
  const std::vector<unsigned> s = read_shape(k, "tma_copy_shape", 6);
  TensorMap2d m;
  m.cols = o.tma_cols;
  m.rows = o.bytes / (2 * o.tma_cols);
  m.box_rows = s[1];
  m.box_cols = s[2];
  m.swizzle = s[3];
  m.l2 = o.tma_l2;
  if (m.cols % m.box_cols != 0)
    throw UsageError("--tma-cols must be whole boxes of " + std::to_string(m.box_cols) +
                     " columns for the TMA kernel");
  const std::uint64_t col_tiles = m.cols / m.box_cols;
  const std::uint64_t tiles = col_tiles * ((m.rows + m.box_rows - 1) / m.box_rows);
  if (tiles > 0xFFFFFFFFull)
    throw UsageError("too many boxes for the TMA kernel");
  Launch l;
  l.fn = k.fn();
  l.block = {s[5], 1, 1};
  l.smem = s[0] * s[1] * s[2] * 2 + 1024; // the kernel aligns its ring up to 1024 bytes
  std::string shape = size_launch(l, grid, name, dev);
  TensorMap2d out_map = m;
  out_map.of_input = false;
  l.slots = {ParamSlot::of(encode_tmap2d(m, b.in.data())),
             ParamSlot::of(encode_tmap2d(out_map, b.out.data())), ParamSlot::of(col_tiles),
             ParamSlot::of(tiles)};
  shape += "; " + std::to_string(s[0]) + " stages, " + std::to_string(s[4]) + " ahead, " +
           describe(m) + ", " + std::to_string(tiles) + " boxes; " + k.resources();
  return {name, shape, [l](CUstream st) mutable { l.enqueue(st); }};
}

Method ptxgen_method(const Kernel& k, const PtxKernel& p, const Buffers& b) {
  Launch l;
  l.fn = k.fn();
  l.grid = *p.grid;
  l.block = *p.block;
  l.smem = p.smem;
  if (l.smem > 0)
    check(cuFuncSetAttribute(l.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(l.smem)),
          "cuFuncSetAttribute (dynamic shared) of " + p.entry);
  std::string maps;
  for (const Arg& a : p.args) {
    switch (a.kind) {
    case Arg::Kind::in:
      l.slots.push_back(ParamSlot::of(b.in.data()));
      break;
    case Arg::Kind::out:
      l.slots.push_back(ParamSlot::of(b.out.data()));
      break;
    case Arg::Kind::u32:
    case Arg::Kind::u64:
      l.slots.push_back(ParamSlot::of(a.value));
      break;
    case Arg::Kind::tmap:
      l.slots.push_back(
          ParamSlot::of(encode_tmap2d(a.map, a.map.of_input ? b.in.data() : b.out.data())));
      maps += std::string("; ") + (a.map.of_input ? "in " : "out ") + describe(a.map);
      break;
    }
  }
  std::string shape = "grid " + l.grid.str() + " block " + l.block.str() + " dynamic shared " +
                      std::to_string(l.smem) + " B; args " + p.args_text + maps + "; " +
                      k.resources() + "; " + p.ptx + " entry " + p.entry;
  return {p.label, shape, [l](CUstream st) mutable { l.enqueue(st); }};
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

using MethodMaker = Method (*)(const Kernel&, const std::string&, unsigned, const Buffers&,
                               const Options&, CUdevice);

/// A family of hand-written kernels: the embedded build or the --*-ptx files,
/// each timed on each of its grids.
struct Family {
  bool enabled;
  const char* embedded; ///< the embedded PTX
  const char* entry;
  const char* name; ///< the embedded build's method name; files add ":stem"
  const std::vector<std::string>& files;
  const std::vector<unsigned>& grids;
  MethodMaker make;
};

/// Loads the family's kernels into `modules` and appends one method per
/// kernel and grid.
void add_family(const Family& f, std::vector<std::unique_ptr<Kernel>>& modules,
                std::vector<Method>& methods, const Buffers& b, const Options& o, CUdevice dev) {
  if (!f.enabled)
    return;
  struct Build {
    const Kernel* kernel;
    std::string name;
    std::vector<unsigned> grids;
  };
  std::vector<Build> builds;
  if (f.files.empty()) {
    modules.push_back(std::make_unique<Kernel>(f.embedded, f.entry, std::string(f.name)));
    builds.push_back({modules.back().get(), f.name, f.grids});
  }
  std::size_t methods_of_family = builds.size() * f.grids.size();
  for (const std::string& given : f.files) {
    // FILE@GRIDS: this build on its own grids.
    const auto at = given.rfind('@');
    const std::string path = at == std::string::npos ? given : given.substr(0, at);
    std::vector<unsigned> grids =
        at == std::string::npos ? f.grids : parse_grids(given.substr(at + 1), given);
    // `default`: the embedded build, beside other files.
    const bool embedded = path == "default";
    modules.push_back(std::make_unique<Kernel>(embedded ? std::string(f.embedded) : read_file(path),
                                               f.entry, path));
    methods_of_family += grids.size();
    builds.push_back({modules.back().get(),
                      embedded
                          ? std::string(f.name)
                          : std::string(f.name) + ":" + std::filesystem::path(path).stem().string(),
                      std::move(grids)});
  }
  const bool several = methods_of_family > 1;
  for (const auto& [kernel, base, grids] : builds) {
    for (unsigned grid : grids) {
      std::string name = base;
      if (several)
        name += '@' + (grid ? std::to_string(grid) : std::string("occ"));
      methods.push_back(f.make(*kernel, name, grid, b, o, dev));
    }
  }
}

/// --dump-*-ptx: writes the embedded PTX files asked for; true when any was.
bool dump_embedded(const Options& o) {
  const std::pair<const std::string&, const char*> dumps[] = {
      {o.dump_baseline_ptx, ptxgen_pipelined_copy_ptx},
      {o.dump_bulk_ptx, ptxgen_bulk_copy_ptx},
      {o.dump_tma_ptx, ptxgen_tma_copy_ptx}};
  bool any = false;
  for (const auto& [path, text] : dumps) {
    if (path.empty())
      continue;
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out)
      throw std::runtime_error("cannot write " + path);
    any = true;
  }
  return any;
}

int run(const Options& o) {
  if (dump_embedded(o))
    return 0;
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

  Method memcpy{"memcpyDtoD", "cuMemcpyDtoDAsync of " + std::to_string(o.bytes) + " B",
                [&](CUstream st) {
                  check(cuMemcpyDtoDAsync(out.data(), in.data(), o.bytes, st), "cuMemcpyDtoDAsync");
                }};
  std::vector<Method> methods{memcpy};
  std::vector<std::unique_ptr<Kernel>> modules;
  const Family families[] = {{o.time_nvcc, ptxgen_pipelined_copy_ptx, "pipelined_copy", "nvcc",
                              o.baseline_ptx, o.baseline_grids, baseline_method},
                             {o.time_bulk, ptxgen_bulk_copy_ptx, "bulk_copy", "nvcc-bulk",
                              o.bulk_ptx, o.bulk_grids, bulk_method},
                             {o.time_tma, ptxgen_tma_copy_ptx, "tma_copy", "nvcc-tma", o.tma_ptx,
                              o.tma_grids, tma_method}};
  for (const Family& f : families)
    add_family(f, modules, methods, b, o, dev);
  for (const PtxKernel& p : o.kernels) {
    modules.push_back(std::make_unique<Kernel>(read_file(p.ptx), p.entry, p.ptx));
    methods.push_back(ptxgen_method(*modules.back(), p, b));
  }
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
