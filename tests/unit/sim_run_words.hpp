#pragma once
// Shared by the simulator's tests of single kernels (sim_arith, sim_int_forms,
// sim_generated_forms, sim_library_idioms): a one-CTA kernel whose parameter points at zeroed
// 32-bit words of global memory, run on the simulator, and the first diagnostic of a kind in a
// parse.

#include "driver/sim/simulator.hpp"
#include "emitter/support/diagnostic.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace ptxgen::sim_run_words {

/// Runs entry `k` of `ptx` on one CTA of `threads` threads with its one parameter pointing at
/// `words` zeroed 32-bit words of global memory; what the kernel left there.
inline std::vector<std::uint32_t> run_words(const std::string& ptx, std::size_t words,
                                            std::uint32_t threads = 1) {
  std::vector<std::uint8_t> out(4 * words, 0);
  std::vector<sim::GlobalBuffer> mem = {{0x1000, &out, "out"}};
  sim::Launch l;
  l.block_dim = {threads, 1, 1};
  l.params = {0x1000};
  sim::SimResult r = sim::run(ptx, "k", l, mem);
  REQUIRE_MESSAGE(!r.fault, r.fault->message);
  std::vector<std::uint32_t> got(words);
  std::memcpy(got.data(), out.data(), out.size());
  return got;
}

/// The first diagnostic of `ds` with `id`, or nullptr.
inline const Diagnostic* first_diagnostic(const Diagnostics& ds, DiagId id) {
  for (const auto& d : ds.items())
    if (d.id == id)
      return &d;
  return nullptr;
}

} // namespace ptxgen::sim_run_words
