// Clusters in the simulator on nvcc's output: tests/data/sim_cluster_nvcc/cluster_kernels.ptx,
// compiled from cluster_kernels.cu there (cooperative_groups' this_cluster(), map_shared_rank,
// cluster.sync(): generic mapa, generic ld and atom on a peer's shared memory). Expected values
// are computed here from the kernels' definitions in the .cu; checks key on FaultKind / RaceKind.

#include "driver/sim/simulator.hpp"
#include "sim_test_data.hpp"
#include "tools/sim_cluster_device/cases.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace unit_sim_cluster_nvcc {

using namespace ptxgen::sim;
using ptxgen::test::word_at;

namespace {

constexpr std::uint64_t in_base = 0x100000;
constexpr std::uint64_t out_base = 0x200000;

std::string data() {
  return ptxgen::test::read_test_data("sim_cluster_nvcc", "cluster_kernels.ptx");
}

std::vector<std::uint8_t> words(const std::vector<std::uint32_t>& w) {
  std::vector<std::uint8_t> b(w.size() * 4);
  if (!w.empty()) // memcpy from an empty vector's null data() is undefined
    std::memcpy(b.data(), w.data(), b.size());
  return b;
}

std::vector<std::uint32_t> inputs(std::size_t n) {
  std::vector<std::uint32_t> v(n);
  std::uint32_t x = 12345;
  for (auto& e : v) {
    x = x * 1664525u + 1013904223u;
    e = x >> 8;
  }
  return v;
}

/// `text` with its `nth` (0-based) `find` replaced by `by`.
std::string replace_nth(std::string text, const std::string& find, const std::string& by,
                        std::size_t nth) {
  std::size_t at = text.find(find);
  for (std::size_t k = 0; k < nth && at != std::string::npos; ++k)
    at = text.find(find, at + 1);
  REQUIRE(at != std::string::npos);
  return text.replace(at, find.size(), by);
}

/// cluster_swap_reverse over `ctas` CTAs of 128 threads.
SimResult swap(const std::string& ptx, const std::vector<std::uint32_t>& in,
               std::vector<std::uint8_t>& out, Observer* o) {
  std::vector<std::uint8_t> inb = words(in);
  std::vector<GlobalBuffer> mem{{in_base, &inb, "in"}, {out_base, &out, "out"}};
  Launch l;
  l.grid_dim = {static_cast<std::uint32_t>(in.size() / 128), 1, 1};
  l.block_dim = {128, 1, 1};
  l.params = {in_base, out_base};
  l.observer = o;
  return run(ptx, "cluster_swap_reverse", l, mem);
}

/// A device case on the simulator with the record's inputs: its outputs, in `out`.
SimResult run_case(const sim_cluster_device::Case& c, const std::vector<std::uint32_t>& in,
                   std::vector<std::uint32_t>& out) {
  namespace scd = sim_cluster_device;
  std::vector<std::uint8_t> inb = words(in);
  inb.resize(inb.size() + 16, 0);
  std::vector<std::uint8_t> outb(c.out_words * 4 + 16, 0);
  std::vector<GlobalBuffer> mem{{in_base, &inb, "in"}, {out_base, &outb, "out"}};
  Launch l;
  l.grid_dim = {c.grid[0], c.grid[1], c.grid[2]};
  l.block_dim = {c.block, 1, 1};
  if (c.cluster[0] != 0)
    l.cluster_dim = Dim3{c.cluster[0], c.cluster[1], c.cluster[2]};
  l.dynamic_shared_bytes = c.dynamic_smem;
  l.params = c.params == scd::Params::out ? std::vector<std::uint64_t>{out_base}
             : c.params == scd::Params::in_out
                 ? std::vector<std::uint64_t>{in_base, out_base}
                 : std::vector<std::uint64_t>{in_base, c.in_words, out_base, c.out_words};
  const std::string file = c.file; // "dir/name" under tests/data
  const std::size_t slash = file.find('/');
  const SimResult r =
      run(ptxgen::test::read_test_data(file.substr(0, slash), file.substr(slash + 1)), c.kernel, l,
          mem);
  out.assign(c.out_words, 0);
  std::memcpy(out.data(), outb.data(), c.out_words * 4);
  return r;
}

std::string results_path() {
  const char* env = std::getenv("PTXGEN_SIM_CLUSTER_RESULTS");
  return env != nullptr ? env
                        : std::string(PTXGEN_SOURCE_DIR) + "/tests/data/sim_cluster_nvcc/h200.bin";
}

} // namespace

TEST_CASE("every device case runs on the simulator without a fault") {
  for (const auto& c : sim_cluster_device::cases) {
    CAPTURE(c.kernel);
    std::vector<std::uint32_t> out;
    const SimResult r = run_case(c, sim_cluster_device::random_inputs(c, 1), out);
    INFO((r.fault ? r.fault->message : std::string()));
    REQUIRE_FALSE(r.fault.has_value());
  }
}

// The records are checked in: a missing file is a failure, never a skip.
TEST_CASE("the simulator against the H200's cluster records (tools/sim_cluster_device.sh)") {
  REQUIRE_MESSAGE(std::ifstream(results_path()).good(), "no records at " << results_path());
  const std::vector<sim_cluster_device::Record> records =
      sim_cluster_device::read_records(results_path());
  REQUIRE(!records.empty());
  std::size_t compared = 0;
  for (const auto& gpu : records) {
    const sim_cluster_device::Case* c = nullptr;
    for (const auto& k : sim_cluster_device::cases)
      c = gpu.kernel == k.kernel ? &k : c;
    REQUIRE_MESSAGE(c != nullptr, "no case " << gpu.kernel);
    CAPTURE(c->kernel);
    std::vector<std::uint32_t> out;
    const SimResult r = run_case(*c, gpu.in, out);
    INFO((r.fault ? r.fault->message : std::string()));
    REQUIRE_FALSE(r.fault.has_value());
    REQUIRE(out == gpu.out); // byte for byte
    ++compared;
  }
  MESSAGE(compared << " records compared");
}

TEST_CASE("nvcc cluster_swap_reverse: each CTA reads its peer's tile through map_shared_rank") {
  const std::vector<std::uint32_t> in = inputs(4 * 128);
  for (bool observe : {false, true}) {
    std::vector<std::uint8_t> out(in.size() * 4, 0);
    Observer o;
    const SimResult r = swap(data(), in, out, observe ? &o : nullptr);
    INFO((r.fault ? r.fault->message : std::string()));
    REQUIRE_FALSE(r.fault.has_value());
    CHECK(o.races.empty());
    for (std::uint32_t b = 0; b < 4; ++b) {
      const std::uint32_t peer = b ^ 1u; // clusters of 2: ranks 0, 1 are CTAs 2k, 2k+1
      for (std::uint32_t t = 0; t < 128; ++t)
        REQUIRE(word_at(out, b * 128 + t) == in[peer * 128 + 127 - t] * 3u + peer % 2);
    }
  }
}

TEST_CASE("nvcc cluster_swap_reverse without its last cluster.sync: a peer exits too early") {
  const std::string mutant =
      replace_nth(data(), "barrier.cluster.arrive;\n\tbarrier.cluster.wait;", "", 1);
  const std::vector<std::uint32_t> in = inputs(2 * 128);
  std::vector<std::uint8_t> out(in.size() * 4, 0);
  Observer o;
  swap(mutant, in, out, &o);
  bool found = false;
  for (const Fault& f : o.races)
    found = found || (f.race && f.race->kind == RaceKind::cluster_peer_exit);
  CHECK(found);
}

TEST_CASE("nvcc cluster_histogram: atomics into the owning CTA's shared bins") {
  constexpr std::uint32_t n = 1000, nbins = 64, ctas = 8;
  const std::vector<std::uint32_t> in = inputs(n);
  std::vector<std::uint8_t> inb = words(in);
  std::vector<std::uint8_t> bins(nbins * 4, 0);
  std::vector<GlobalBuffer> mem{{in_base, &inb, "in"}, {out_base, &bins, "bins"}};
  Launch l;
  l.grid_dim = {ctas, 1, 1};
  l.block_dim = {64, 1, 1};
  l.dynamic_shared_bytes = nbins / 4 * 4; // bins / cluster size, 4 bytes each
  l.params = {in_base, n, out_base, nbins};
  Observer o;
  l.observer = &o;
  const SimResult r = run(data(), "cluster_histogram", l, mem);
  INFO((r.fault ? r.fault->message : std::string()));
  REQUIRE_FALSE(r.fault.has_value());
  CHECK(o.races.empty());
  std::vector<std::uint32_t> want(nbins, 0);
  for (std::uint32_t v : in)
    ++want[v % nbins];
  for (std::uint32_t k = 0; k < nbins; ++k)
    REQUIRE(word_at(bins, k) == want[k]);
}

} // namespace unit_sim_cluster_nvcc
