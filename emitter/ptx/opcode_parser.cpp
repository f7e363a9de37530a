#include "emitter/ptx/opcode_parser.hpp"

#include "emitter/ptx/qualifier.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::ptx {

namespace {

struct Token {
  std::string_view text;
  std::size_t offset = 0; ///< of the token's first byte (after its dot)
};

constexpr std::string_view kCacheOps = "`.ca` (4, 8 or 16 bytes, cached in L1 and L2) or `.cg` "
                                       "(16 bytes, L2 only)";

std::string quoted(std::string_view qualifier) {
  return "`." + std::string(qualifier) + "`";
}

/// The opcode does not start with `cp.async`: the caret goes on the part that is wrong,
/// `cp` or `async` (`cp.asnyc`), not on the whole opcode.
Diagnostic root_error(std::string_view text) {
  constexpr std::string_view expected = "expected a `cp.async` opcode such as "
                                        "`cp.async.cg.shared.global`; ";
  const std::size_t first_end = std::min(text.find_first_of(". \t"), text.size());
  const std::string_view first = text.substr(0, first_end);
  if (first != "cp")
    return error_at(DiagId::ptx_opcode_root, text, 0, std::max<std::size_t>(first_end, 1),
                    std::string(expected) + (first.empty()
                                                 ? "the opcode is empty"
                                                 : "`" + std::string(first) + "` is not `cp`"));
  if (first_end == text.size() || text[first_end] != '.')
    return error_at(DiagId::ptx_opcode_root, text, first_end, 1,
                    std::string(expected) + "`cp` needs `.async`");
  const std::size_t second = first_end + 1;
  const std::size_t second_end = std::min(text.find_first_of(". \t", second), text.size());
  const std::string_view wrong = text.substr(second, second_end - second);
  return error_at(DiagId::ptx_opcode_root, text, second, std::max<std::size_t>(wrong.size(), 1),
                  std::string(expected) + (wrong.empty()
                                               ? "`async` is missing after `cp.`"
                                               : "`" + std::string(wrong) + "` is not `async`"));
}

/// The qualifiers seen so far, for duplicate checks and the layout.
struct FoundQualifiers {
  std::optional<Token> cache_op, dst, src, hint, prefetch;
};

/// Takes one qualifier into `op`, or says why it does not belong.
std::optional<Diagnostic> take_qualifier(const Token& t, std::string_view text, CpAsyncOpcode& op,
                                         FoundQualifiers& found) {
  auto& [cache_op, dst, src, hint, prefetch] = found;
  const std::string_view q = t.text;
  const std::optional<Qualifier> w = parse_qualifier(q);
  if (w == Qualifier::ca || w == Qualifier::cg) {
    if (cache_op)
      return error_at(DiagId::ptx_opcode_duplicate_qualifier, text, t.offset - 1, q.size() + 1,
                      "a second cache operator " + quoted(q) + "; cp.async takes exactly one of " +
                          std::string(kCacheOps) + ", and " + quoted(cache_op->text) +
                          " came first");
    cache_op = t;
    op.cache_op = w == Qualifier::ca ? CacheOp::ca : CacheOp::cg;
  } else if (w == Qualifier::cs || w == Qualifier::lu || w == Qualifier::cv || w == Qualifier::wb ||
             w == Qualifier::wt || q.substr(0, 4) == "L1::") {
    return error_at(DiagId::ptx_opcode_cache_op, text, t.offset - 1, q.size() + 1,
                    quoted(q) + " is not a cp.async cache operator; use " + std::string(kCacheOps));
  } else if (w == Qualifier::shared || w == Qualifier::shared_cta) {
    if (src)
      return error_at(DiagId::ptx_opcode_space_order, text, src->offset - 1, src->text.size() + 1,
                      "cp.async copies global to shared only: the destination space " + quoted(q) +
                          " must come first and the source space `.global` second");
    if (dst)
      return error_at(DiagId::ptx_opcode_duplicate_qualifier, text, t.offset - 1, q.size() + 1,
                      "a second destination space " + quoted(q) +
                          "; cp.async takes one shared destination and the "
                          "`.global` source");
    dst = t;
    op.dst_space = w == Qualifier::shared ? SharedSpace::shared : SharedSpace::shared_cta;
  } else if (w == Qualifier::shared_cluster) {
    return error_at(DiagId::ptx_opcode_space, text, t.offset - 1, q.size() + 1,
                    "ptxas rejects .shared::cluster on every target; use .shared "
                    "or .shared::cta");
  } else if (w == Qualifier::global) {
    if (src)
      return error_at(DiagId::ptx_opcode_duplicate_qualifier, text, t.offset - 1, q.size() + 1,
                      "a second `.global`; cp.async takes one shared destination "
                      "and one `.global` source");
    src = t;
  } else if (w == Qualifier::local || w == Qualifier::param || w == Qualifier::const_ ||
             q == "generic" || q.substr(0, 6) == "shared") {
    return error_at(DiagId::ptx_opcode_space, text, t.offset - 1, q.size() + 1,
                    "cp.async copies global to shared only: " + quoted(q) +
                        " is not allowed; the spaces are `.shared` (or "
                        "`.shared::cta`) then `.global`");
  } else if (w == Qualifier::L2_cache_hint) {
    if (hint)
      return error_at(DiagId::ptx_opcode_duplicate_qualifier, text, t.offset - 1, q.size() + 1,
                      "`.L2::cache_hint` may appear at most once");
    hint = t;
    op.cache_hint = true;
  } else if (w && group(*w) == QualifierGroup::prefetch_size) {
    if (prefetch)
      return error_at(DiagId::ptx_opcode_duplicate_qualifier, text, t.offset - 1, q.size() + 1,
                      "at most one L2 prefetch size; " + quoted(prefetch->text) + " came first");
    prefetch = t;
    op.prefetch = w == Qualifier::L2_64B    ? L2Prefetch::b64
                  : w == Qualifier::L2_128B ? L2Prefetch::b128
                                            : L2Prefetch::b256;
  } else if (q.substr(0, 4) == "L2::" && !q.empty() && q.back() == 'B') {
    return error_at(DiagId::ptx_opcode_prefetch, text, t.offset - 1, q.size() + 1,
                    "unknown L2 prefetch size " + quoted(q) +
                        "; expected `.L2::64B`, `.L2::128B` or `.L2::256B`");
  } else if (q == "commit_group" || q == "wait_group" || q == "wait_all" || q == "mbarrier") {
    return error_at(DiagId::ptx_opcode_not_a_copy, text, t.offset - 1, q.size() + 1,
                    "`cp.async." + std::string(q) +
                        "` is a separate instruction, not a copy opcode; expected "
                        "e.g. `cp.async.cg.shared.global`");
  } else {
    return error_at(DiagId::ptx_opcode_unknown_qualifier, text, t.offset - 1, q.size() + 1,
                    "unknown cp.async qualifier " + quoted(q) +
                        "; expected `.ca`/`.cg`, `.shared`/`.shared::cta`, "
                        "`.global`, `.L2::cache_hint` or `.L2::64B`/`128B`/`256B`");
  }
  return std::nullopt;
}

} // namespace

Result<CpAsyncOpcode> parse_opcode(std::string_view text, OpcodeLayout* layout) {
  using R = Result<CpAsyncOpcode>;
  constexpr std::string_view head = "cp.async";
  if (text.substr(0, head.size()) != head ||
      (text.size() > head.size() && text[head.size()] != '.')) {
    return R::failure(root_error(text));
  }

  // Split the qualifiers after "cp.async" on '.'; `::` stays inside a qualifier.
  std::vector<Token> tokens;
  std::size_t pos = head.size();
  while (pos < text.size()) {
    std::size_t start = pos + 1; // skip the '.'
    std::size_t end = text.find('.', start);
    if (end == std::string_view::npos)
      end = text.size();
    if (end == start)
      return R::failure(error_at(DiagId::ptx_opcode_empty_qualifier, text, pos, 1,
                                 "empty qualifier: two dots in a row or a "
                                 "trailing dot"));
    tokens.push_back({text.substr(start, end - start), start});
    pos = end;
  }

  CpAsyncOpcode op;
  FoundQualifiers seen;
  for (const Token& t : tokens) {
    if (auto d = take_qualifier(t, text, op, seen))
      return R::failure(std::move(*d));
  }

  const auto& [cache_op, dst, src, hint, prefetch] = seen;
  if (!cache_op)
    return R::failure(error_at(DiagId::ptx_opcode_missing_qualifier, text, text.size(), 1,
                               "missing cache operator; cp.async needs " + std::string(kCacheOps)));
  if (!dst)
    return R::failure(error_at(DiagId::ptx_opcode_missing_qualifier, text, text.size(), 1,
                               "missing destination space; cp.async needs `.shared` (or "
                               "`.shared::cta`) then `.global`"));
  if (!src)
    return R::failure(error_at(DiagId::ptx_opcode_missing_qualifier, text, text.size(), 1,
                               "missing source space `.global`; cp.async copies global to "
                               "shared"));
  if (layout) {
    *layout = OpcodeLayout{};
    const std::pair<OpcodePart, const std::optional<Token>*> found[] = {
        {OpcodePart::cache_op, &cache_op}, {OpcodePart::dst_space, &dst},
        {OpcodePart::src_space, &src},     {OpcodePart::cache_hint, &hint},
        {OpcodePart::prefetch, &prefetch},
    };
    for (const auto& [part, token] : found)
      if (*token)
        layout->at(part) = {(*token)->offset - 1, (*token)->text.size() + 1};
  }
  return R::success(op);
}

} // namespace ptxgen::ptx
