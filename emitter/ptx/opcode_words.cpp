#include "emitter/ptx/opcode_words.hpp"

#include <algorithm>

namespace ptxgen::ptx {

std::optional<OpcodeWords> read_opcode(std::string_view opcode) {
  const std::optional<MnemonicMatch> m = parse_mnemonic(opcode);
  if (!m)
    return std::nullopt;
  OpcodeWords out{m->mnemonic, {}};
  const std::size_t end = spelling(m->mnemonic).size();
  for (std::size_t start = end + 1; start <= opcode.size();) {
    const std::size_t dot = std::min(opcode.find('.', start), opcode.size());
    const std::string_view text = opcode.substr(start, dot - start);
    out.qualifiers.push_back({text, parse_qualifier(text)});
    start = dot + 1;
  }
  return out;
}

} // namespace ptxgen::ptx
