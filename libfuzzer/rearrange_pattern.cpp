// Fuzz target: the einops rearrange-pattern parser.
// Property: an accepted pattern printed group by group (PatternGroup::str())
// parses back to the same names and groups; every span lies inside the text.

#include "emitter/tile/rearrange_pattern.hpp"

#include "libfuzzer/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace ptxgen;
using namespace ptxgen::tile;

namespace {

std::string side(const std::vector<PatternGroup>& groups) {
  std::string s;
  for (const PatternGroup& g : groups) {
    if (!s.empty())
      s += ' ';
    s += g.str();
  }
  return s;
}

bool same_groups(const std::vector<PatternGroup>& a, const std::vector<PatternGroup>& b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].parenthesised != b[i].parenthesised || a[i].names.size() != b[i].names.size())
      return false;
    for (std::size_t j = 0; j < a[i].names.size(); ++j)
      if (a[i].names[j].name != b[i].names[j].name)
        return false;
  }
  return true;
}

void check_spans(const std::vector<PatternGroup>& groups, std::size_t size, std::string_view text) {
  for (const PatternGroup& g : groups) {
    fuzz::check(g.offset <= size && g.length <= size - g.offset, "group span outside text", text);
    for (const PatternName& n : g.names)
      fuzz::check(n.offset <= size && n.name.size() <= size - n.offset, "name span outside text",
                  text);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = parse_rearrange_pattern(text, 0, text.size());
  if (!r) {
    fuzz::check(r.diagnostics.has_errors(), "rejected pattern without an error", text);
    return 0;
  }
  check_spans(r->inputs, size, text);
  check_spans(r->outputs, size, text);
  const std::string printed = side(r->inputs) + " -> " + side(r->outputs);
  auto again = parse_rearrange_pattern(printed, 0, printed.size());
  fuzz::check(again.value.has_value(), "printed pattern does not parse back", printed);
  fuzz::check(same_groups(again->inputs, r->inputs) && same_groups(again->outputs, r->outputs),
              "printed pattern parses to different groups", printed);
  return 0;
}
