// A consumer of the installed package that uses only `ptxgen::api` (docs/library.md): it
// builds a copy through shared memory with the barrier left out, runs it on the simulator
// against the reference, and checks that the race is reported at this file's line of the
// read. Exit 0 when it is, 1 when not, 77 when there is no ptxas to run with.

#include "driver/api/driver.hpp"
#include "emitter/api/api.hpp"

#include <iostream>
#include <string>

int main() {
  using namespace ptxgen::api;

  KernelBuilder k("race");
  k.launch({1}, {32});
  Tensor A = k.global("A", {32, 16}, DType::uint8, {.init = random_init(5)});
  Tensor B = k.global("B", {32, 16}, DType::uint8, {.output = true});
  Tensor S = k.shared("S", {32, 16}, DType::uint8);
  k.apply(cp_async(CacheOp::cg), S.sub({tid(), all}), A.sub({tid(), all}), 16);
  k.commit_group();
  k.wait_all();
  // Each thread reads the row its neighbour's copy wrote, with no cta_sync() before it.
  const unsigned read_line = __LINE__ + 1;
  k.copy(B.sub({tid(), all}), S.sub({(tid() + 1) % 32, all}));

  const ConformanceReport report = run_kernel(k, Backend::sim);
  if (report.setup != ConformanceReport::Setup::ready || report.cases.empty()) {
    std::cerr << "race_kernel: not run: " << report.backend_description << "\n";
    return 77;
  }
  const CaseResult& c = report.cases.front();
  for (const Diagnostic& d : c.diagnostics) {
    std::cerr << format(d);
    if (d.id == DiagId::check_read_without_sync && d.line == read_line &&
        d.file.find("race_kernel.cpp") != std::string::npos) {
      std::cout << "race_kernel: the race was reported at race_kernel.cpp:" << read_line << " ("
                << name(c.status) << ")\n";
      return 0;
    }
  }
  std::cerr << "race_kernel: no race reported at line " << read_line << "; the case was "
            << name(c.status) << ": " << c.detail << "\n";
  return 1;
}
