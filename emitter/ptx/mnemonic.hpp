#pragma once
// The PTX mnemonics of mnemonics.def: one enum and one spelling each, and the
// longest-prefix reading of an opcode that the simulator's decoder uses.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ptxgen::ptx {

/// A PTX mnemonic: the fixed dotted prefix of an opcode ("mul.lo", "bar.sync").
enum class Mnemonic : std::uint8_t {
#define PTXGEN_PTX_MNEMONIC(id, spelling) id,
#include "emitter/ptx/mnemonics.def"
#undef PTXGEN_PTX_MNEMONIC
};

/// "mul.lo" for Mnemonic::mul_lo.
std::string_view spelling(Mnemonic m);

/// An opcode's mnemonic and how many of its dotted words it spans.
struct MnemonicMatch {
  Mnemonic mnemonic;
  std::size_t words = 0; ///< "mul.lo.s32" -> 2 (`mul`, `lo`); the rest are qualifiers
};

/// The mnemonic that is the longest dotted prefix of `opcode` ("mul.lo.s32" -> mul_lo,
/// "mul.f32" -> mul); nullopt when none is.
std::optional<MnemonicMatch> parse_mnemonic(std::string_view opcode);

/// Whether some mnemonic's first word is `root` ("mad" for `mad.hi`): an opcode with a known
/// root but no matching mnemonic names a form of a known instruction.
bool known_root(std::string_view root);

} // namespace ptxgen::ptx
