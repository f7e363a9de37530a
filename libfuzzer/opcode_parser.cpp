// Fuzz target: the cp.async opcode parser.
// Property: whatever parses, print(parse(s)) parses back to the same opcode,
// and printing that again gives the same text (printing is canonical and stable).
// A rejection must carry at least one error diagnostic with a position.

#include "emitter/ptx/opcode_parser.hpp"

#include "emitter/ptx/opcode.hpp"
#include "libfuzzer/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace ptxgen;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = ptx::parse_opcode(text);
  if (!r) {
    fuzz::check(r.diagnostics.has_errors(), "rejected opcode without an error", text);
    return 0;
  }
  const std::string printed = ptx::print(*r);
  auto again = ptx::parse_opcode(printed);
  fuzz::check(again.value.has_value(), "printed opcode does not parse back", printed);
  fuzz::check(*again == *r, "printed opcode parses to a different opcode", printed);
  fuzz::check(ptx::print(*again) == printed, "printing is not stable", printed);
  return 0;
}
