#pragma once
// The cluster kernels the simulator and the GPU both run (tools/sim_cluster_device.sh): the
// hand-written ones of tests/data/sim_cluster/cluster.ptx and nvcc's of
// tests/data/sim_cluster_nvcc/cluster_kernels.ptx. One table for both sides: the GPU program
// (run.cu) launches each case with random inputs and records the inputs and its outputs; the
// unit test (unit.sim_cluster_nvcc) runs the same launch on the simulator and compares bytes.
// Plain C++17: nvcc compiles it too.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace sim_cluster_device {

/// How a case's parameters are laid out: the buffers `in` then `out`, with scalars between or
/// after them as the kernel declares.
enum class Params : std::uint8_t {
  out,       ///< (u64 out)
  in_out,    ///< (u64 in, u64 out)
  histogram, ///< (u64 in, u32 n, u64 bins, u32 nbins): n = in words, nbins = out words
};

struct Case {
  const char* file;   ///< the PTX file under tests/data
  const char* kernel; ///< the entry
  unsigned grid[3];
  unsigned block;
  unsigned cluster[3]; ///< the launch's cluster attribute; {0,0,0}: the entry's own
  unsigned dynamic_smem;
  unsigned in_words;  ///< random 32-bit inputs (0: none)
  unsigned out_words; ///< outputs, zeroed before the launch
  Params params;
  unsigned modulus; ///< inputs reduced modulo this (0: full 32 bits)
};

inline constexpr Case cases[] = {
    {"sim_cluster/cluster.ptx", "cluster_regs", {4, 2, 1}, 32, {2, 1, 1}, 0, 0, 96, Params::out, 0},
    {"sim_cluster/cluster.ptx",
     "dsmem_exchange",
     {4, 1, 1},
     32,
     {0, 0, 0},
     0,
     0,
     128,
     Params::out,
     0},
    {"sim_cluster/cluster.ptx",
     "remote_arrive",
     {4, 1, 1},
     32,
     {2, 1, 1},
     0,
     0,
     128,
     Params::out,
     0},
    {"sim_cluster/cluster.ptx", "peer_bulk", {2, 1, 1}, 32, {0, 0, 0}, 0, 0, 32, Params::out, 0},
    {"sim_cluster/cluster.ptx",
     "multicast",
     {4, 1, 1},
     32,
     {0, 0, 0},
     0,
     16,
     64,
     Params::in_out,
     0},
    {"sim_cluster_nvcc/cluster_kernels.ptx",
     "cluster_swap_reverse",
     {8, 1, 1},
     128,
     {0, 0, 0},
     0,
     1024,
     1024,
     Params::in_out,
     0},
    {"sim_cluster_nvcc/cluster_kernels.ptx",
     "cluster_histogram",
     {8, 1, 1},
     64,
     {0, 0, 0},
     64,
     4096,
     64,
     Params::histogram,
     0},
};

/// One run: the case, its inputs and the outputs it produced.
struct Record {
  std::string kernel;
  std::vector<std::uint32_t> in, out;
};

/// The seed-th input of `c`: splitmix64 words.
inline std::vector<std::uint32_t> random_inputs(const Case& c, std::uint64_t seed) {
  std::vector<std::uint32_t> v(c.in_words);
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + c.in_words;
  for (auto& w : v) {
    s += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    w = static_cast<std::uint32_t>(z ^ (z >> 31));
    if (c.modulus != 0)
      w %= c.modulus;
  }
  return v;
}

inline void write_words(std::FILE* f, const std::vector<std::uint32_t>& v) {
  const std::uint64_t n = v.size();
  std::fwrite(&n, sizeof n, 1, f);
  if (n != 0)
    std::fwrite(v.data(), 4, v.size(), f);
}

inline bool read_words(std::FILE* f, std::vector<std::uint32_t>& v) {
  std::uint64_t n = 0;
  if (std::fread(&n, sizeof n, 1, f) != 1 || n > (1u << 24))
    return false;
  v.resize(n);
  return n == 0 || std::fread(v.data(), 4, n, f) == n;
}

inline void write_record(std::FILE* f, const Record& r) {
  const std::uint64_t n = r.kernel.size();
  std::fwrite(&n, sizeof n, 1, f);
  std::fwrite(r.kernel.data(), 1, n, f);
  write_words(f, r.in);
  write_words(f, r.out);
}

/// The records of a results file, in order; empty when it cannot be read.
inline std::vector<Record> read_records(const std::string& path) {
  std::vector<Record> out;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    return out;
  while (true) {
    std::uint64_t n = 0;
    if (std::fread(&n, sizeof n, 1, f) != 1 || n > 256)
      break;
    Record r;
    r.kernel.resize(n);
    if (std::fread(r.kernel.data(), 1, n, f) != n || !read_words(f, r.in) || !read_words(f, r.out))
      break;
    out.push_back(std::move(r));
  }
  std::fclose(f);
  return out;
}

} // namespace sim_cluster_device
