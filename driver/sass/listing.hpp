#pragma once
// SASS as text (what `cuobjdump -sass` or `nvdisasm` prints for a cubin) parsed
// into functions and instructions, with the uniform registers (UR0..UR62) each
// instruction writes and reads: what the miscompile signatures of traps.hpp
// look at. The parser is lenient: a line that is not an instruction inside a
// function (headers, labels, encodings, data sections) is skipped.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver::sass {

/// One SASS instruction, e.g. `@!P0 LDGSTS.E.BYPASS.128 [R9+UR0], desc[UR1][R2.64]`.
struct Instruction {
  std::size_t line = 0;                ///< 1-based line of the SASS text
  std::optional<std::uint64_t> offset; ///< the address in `/*0180*/`
  std::string guard;                   ///< the predicate guard ("@!P0"), or empty
  std::string mnemonic;                ///< "LDGSTS": the opcode without its modifiers
  std::vector<std::string> modifiers;  ///< "E", "BYPASS", "128"
  std::vector<std::string> operands;   ///< as written, trimmed, split at top-level commas
  /// Uniform registers the instruction writes: its first operand when that is a bare
  /// URn (SASS names destinations first), with n+1 (.64, .WIDE) or n+1..n+3 (.128).
  /// An instruction with no destination whose first operand is a bare URn is counted
  /// as writing it: an over-approximation, which only makes a "never written"
  /// signature more cautious.
  std::vector<unsigned> uniform_written;
  /// Uniform registers named by the other operands (URZ excluded); inside brackets
  /// (`[R9+UR0]`, `desc[UR1]`) they are addresses or memory descriptors.
  std::vector<unsigned> uniform_read;
  std::string text; ///< the instruction as written, without address, encoding and ';'
};

/// One kernel or device function of the listing.
struct Function {
  std::string name;
  std::size_t line = 0; ///< 1-based line of the header that names it
  std::vector<Instruction> instructions;
};

struct Listing {
  std::vector<Function> functions;
};

/// Parses cuobjdump's (`Function : NAME` headers) or nvdisasm's (`.text.NAME:`
/// labels) SASS listing. Never fails: text that is not SASS gives no functions.
Listing parse_sass(std::string_view text);

/// The instruction without its address and encoding: `LDGSTS ... ;` parsed from
/// `text` (one line, the address already removed); nullopt when it is not one.
std::optional<Instruction> parse_instruction(std::string_view text);

/// The uniform registers (URn, not URZ) an operand names, in order.
std::vector<unsigned> uniform_registers(std::string_view operand);

/// True when `operand` is a register inside brackets or a descriptor: `[R9+UR0]`,
/// `desc[UR1][R2.64]`, `c[0x0][0x28]`.
bool is_memory_operand(std::string_view operand);

} // namespace ptxgen::driver::sass
