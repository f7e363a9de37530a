#include "emitter/ptx/mnemonic.hpp"

#include <algorithm>
#include <array>
#include <iterator>

namespace ptxgen::ptx {

namespace {

constexpr std::string_view mnemonic_spellings[] = {
#define PTXGEN_PTX_MNEMONIC(id, spelling) spelling,
#include "emitter/ptx/mnemonics.def"
#undef PTXGEN_PTX_MNEMONIC
};

/// How many dotted words `text` has ("mul.lo" -> 2).
std::size_t word_count(std::string_view text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '.')) + 1;
}

/// Whether `prefix` is `text` or a dotted prefix of it ("mul.lo" of "mul.lo.s32", not of
/// "mul.long").
bool dotted_prefix(std::string_view prefix, std::string_view text) {
  return text.starts_with(prefix) && (text.size() == prefix.size() || text[prefix.size()] == '.');
}

} // namespace

std::string_view spelling(Mnemonic m) {
  return mnemonic_spellings[static_cast<std::size_t>(m)];
}

std::optional<MnemonicMatch> parse_mnemonic(std::string_view opcode) {
  std::optional<MnemonicMatch> best;
  for (std::size_t k = 0; k < std::size(mnemonic_spellings); ++k) {
    const std::string_view m = mnemonic_spellings[k];
    if (dotted_prefix(m, opcode) && (!best || word_count(m) > best->words))
      best = MnemonicMatch{static_cast<Mnemonic>(k), word_count(m)};
  }
  return best;
}

bool known_root(std::string_view root) {
  return std::any_of(std::begin(mnemonic_spellings), std::end(mnemonic_spellings),
                     [&](std::string_view m) { return m.substr(0, m.find('.')) == root; });
}

} // namespace ptxgen::ptx
