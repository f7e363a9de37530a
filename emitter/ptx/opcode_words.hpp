#pragma once
// An opcode read by the PTX vocabulary: its mnemonic (mnemonics.def) and each qualifier
// after it, with the word of qualifiers.def it is. The simulator's decoder starts here.

#include "emitter/ptx/mnemonic.hpp"
#include "emitter/ptx/qualifier.hpp"

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace ptxgen::ptx {

/// One qualifier as written, without its dot.
struct OpcodeWord {
  std::string_view text;              ///< "L2::128B", "u32", "foo"
  std::optional<Qualifier> qualifier; ///< the word of qualifiers.def; none for a type or other
};

/// An opcode's mnemonic and the qualifiers after it, in order.
struct OpcodeWords {
  Mnemonic mnemonic;
  std::vector<OpcodeWord> qualifiers;
};

/// Reads `opcode` ("ld.global.v2.u32"): the longest mnemonic that is a dotted prefix of it
/// (parse_mnemonic), then its dot-separated qualifiers; an empty one (`ld..u32`) is kept,
/// empty. nullopt when no mnemonic is a dotted prefix of `opcode`.
std::optional<OpcodeWords> read_opcode(std::string_view opcode);

} // namespace ptxgen::ptx
