// Fuzz target: the simulator's PTX parser (sim::Program::parse).
// Property: it never crashes, a rejection always comes with an error diagnostic, and every
// diagnostic says where (a line of the input and a column): the reader refuses a line, never
// a file without saying which line.

#include "driver/sim/simulator.hpp"
#include "libfuzzer/fuzz_check.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace ptxgen;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto program = sim::Program::parse(text);
  if (!program)
    fuzz::check(program.diagnostics.has_errors(), "rejected PTX without an error", text);
  const auto lines = static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n') + 1);
  for (const Diagnostic& d : program.diagnostics.items())
    fuzz::check(d.line >= 1 && d.line <= lines && d.column >= 1, "a diagnostic with no position",
                d.message);
  return 0;
}
