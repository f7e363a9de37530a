// Fuzz target: the whole path from spec text to printed PTX: the loader
// (driver::load_spec_text), the contract checker and lowering (lower::lower),
// the validator and the printer.
// Properties, for whatever lowers: ptx::validate accepts the module with no error,
// the printer prints it deterministically, and the simulator's own PTX parser
// (sim::Program::parse) accepts what the printer printed.

#include "driver/sim/simulator.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/lower/lower.hpp"
#include "emitter/ptx/printer.hpp"
#include "emitter/ptx/validator.hpp"
#include "libfuzzer/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace ptxgen;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto kernel = driver::load_spec_text(text, "fuzz.toml");
  if (!kernel) {
    fuzz::check(kernel.diagnostics.has_errors(), "rejected spec without an error", text);
    return 0;
  }
  lower::LowerOptions options;
  auto module = lower::lower(**kernel, options);
  if (!module) {
    fuzz::check(module.diagnostics.has_errors(), "lowering failed without an error", text);
    return 0;
  }
  const Diagnostics checked = ptx::validate(*module);
  fuzz::check(!checked.has_errors(), "lowered module fails validation", checked.format_all());
  const std::string ptx = ptx::print(*module);
  fuzz::check(ptx == ptx::print(*module), "printing is not deterministic", text);
  auto program = sim::Program::parse(ptx);
  fuzz::check(program.value.has_value(), "the simulator rejects printed PTX",
              program.diagnostics.format_all() + "\n" + ptx);
  return 0;
}
