// Fuzz target: the simulator's PTX parser (sim::Program::parse).
// Property: it never crashes, and a rejection always comes with an error diagnostic.

#include "driver/sim/simulator.hpp"
#include "libfuzzer/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace ptxgen;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto program = sim::Program::parse(text);
  if (!program)
    fuzz::check(program.diagnostics.has_errors(), "rejected PTX without an error", text);
  return 0;
}
