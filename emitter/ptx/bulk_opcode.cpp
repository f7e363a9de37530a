#include "emitter/ptx/bulk_opcode.hpp"

#include "emitter/ptx/opcode_words.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::ptx {

namespace {

/// The qualifier words of one opcode, taken one by one by the form's grammar; the first
/// problem found is kept.
class BulkWords {
public:
  BulkWords(std::string_view text, OpcodeWords words)
      : text_(text), words_(std::move(words)), used_(words_.qualifiers.size(), false) {
    for (const OpcodeWord& w : words_.qualifiers)
      if (w.text.empty())
        fail(DiagId::ptx_opcode_empty_qualifier, w,
             "empty qualifier: two dots in a row or a "
             "trailing dot");
  }

  Mnemonic mnemonic() const { return words_.mnemonic; }

  /// Takes `q` if it is there (at most once).
  bool take(Qualifier q) { return take_one_of({q}).has_value(); }

  /// Takes the one of `qs` that is there, if any; two of them is an error.
  std::optional<Qualifier> take_one_of(std::initializer_list<Qualifier> qs) {
    std::optional<Qualifier> found;
    for (std::size_t k = 0; k < words_.qualifiers.size(); ++k) {
      const OpcodeWord& w = words_.qualifiers[k];
      if (!w.qualifier || std::find(qs.begin(), qs.end(), *w.qualifier) == qs.end())
        continue;
      if (found)
        fail(DiagId::ptx_opcode_duplicate_qualifier, w,
             "`." + std::string(w.text) + "` after `." + std::string(spelling(*found)) +
                 "`: " + mnemonic_text() + " takes one of them");
      found = *w.qualifier;
      used_[k] = true;
    }
    return found;
  }

  /// Takes every one of `qs` that is there, without judging them.
  void skip(std::initializer_list<Qualifier> qs) {
    for (std::size_t k = 0; k < words_.qualifiers.size(); ++k) {
      const std::optional<Qualifier> q = words_.qualifiers[k].qualifier;
      if (q && std::find(qs.begin(), qs.end(), *q) != qs.end())
        used_[k] = true;
    }
  }

  /// Takes the type word `b64`, which mbarrier instructions need.
  bool take_b64() {
    for (std::size_t k = 0; k < words_.qualifiers.size(); ++k)
      if (words_.qualifiers[k].text == name(ScalarType::b64) && !used_[k]) {
        used_[k] = true;
        return true;
      }
    return false;
  }

  /// A qualifier the form needs is not there: the caret goes just past the opcode. A word
  /// that is there but does not belong says more, so finish() reports that first.
  void require(bool present, const std::string& what) {
    if (!present && !missing_)
      missing_ = error_at(DiagId::ptx_opcode_missing_qualifier, text_, text_.size(), 1,
                          mnemonic_text() + " needs " + what);
  }

  /// Two words that come together (`.relaxed` and its scope): one alone is an error at it.
  void together(bool a, bool b, const std::string& what) {
    if (a != b && !error_)
      error_ = error_at(DiagId::ptx_opcode_missing_qualifier, text_, text_.size(), 1,
                        mnemonic_text() + ": " + what);
  }

  /// The diagnostic for the first problem: a word that is wrong, a word no rule took, then a
  /// missing one.
  std::optional<Diagnostic> finish() {
    for (std::size_t k = 0; k < words_.qualifiers.size() && !error_; ++k) {
      if (used_[k])
        continue;
      const OpcodeWord& w = words_.qualifiers[k];
      if (w.qualifier == Qualifier::multicast_cluster || w.text.starts_with("im2col") ||
          (w.qualifier == Qualifier::shared_cluster && !bulk_copy()))
        fail(DiagId::ptx_opcode_out_of_scope, w,
             "`." + std::string(w.text) +
                 "` is PTX that ptxgen does not build yet (multicast, clusters and im2col "
                 "are the next steps of the bulk-copy family)");
      else
        fail(DiagId::ptx_opcode_unknown_qualifier, w,
             "`." + std::string(w.text) + "` is not a qualifier of this " + mnemonic_text() +
                 " form");
    }
    return error_ ? error_ : missing_;
  }

private:
  std::string mnemonic_text() const { return "`" + std::string(spelling(words_.mnemonic)) + "`"; }

  bool bulk_copy() const {
    return words_.mnemonic == Mnemonic::cp_async_bulk ||
           words_.mnemonic == Mnemonic::cp_async_bulk_tensor;
  }

  void fail(DiagId id, const OpcodeWord& w, std::string message) {
    if (error_)
      return;
    const auto offset = static_cast<std::size_t>(w.text.data() - text_.data());
    // The caret covers the dot too, as the cp.async opcode parser's does.
    error_ = error_at(id, text_, offset - 1, w.text.size() + 1, std::move(message));
  }

  std::string_view text_;
  OpcodeWords words_;
  std::vector<bool> used_;
  std::optional<Diagnostic> error_;
  std::optional<Diagnostic> missing_;
};

std::optional<TensorRank> rank_of(std::optional<Qualifier> q) {
  for (TensorRank r :
       {TensorRank::d1, TensorRank::d2, TensorRank::d3, TensorRank::d4, TensorRank::d5})
    if (q && spelling(*q) == name(r))
      return r;
  return std::nullopt;
}

BulkDst dst_of(std::optional<Qualifier> q) {
  return q == Qualifier::shared_cta ? BulkDst::shared_cta : BulkDst::shared_cluster;
}

constexpr std::string_view kDirections =
    "`.mbarrier::complete_tx::bytes` (global to shared, with its destination space) or "
    "`.bulk_group` (shared to global)";

/// The direction words both bulk copies share: `.mbarrier::complete_tx::bytes` with the
/// destination and source spaces (a load), `.bulk_group` with `.global` and `.shared::cta`
/// (a store), or neither (reported; the spaces cannot be judged then).
struct BulkDirection {
  enum class Kind : std::uint8_t { load, store, missing };
  Kind kind = Kind::missing;
  BulkDst dst = BulkDst::shared_cluster; ///< a load's destination space
};

BulkDirection read_direction(BulkWords& w) {
  if (w.take(Qualifier::complete_tx_bytes)) {
    const auto dst = w.take_one_of({Qualifier::shared_cluster, Qualifier::shared_cta});
    w.require(dst.has_value(), "a destination space, `.shared::cluster` or `.shared::cta`");
    w.require(w.take(Qualifier::global), "the source space `.global`");
    return {BulkDirection::Kind::load, dst_of(dst)};
  }
  if (!w.take(Qualifier::bulk_group)) {
    w.skip({Qualifier::shared_cluster, Qualifier::shared_cta, Qualifier::global});
    w.require(false, std::string(kDirections));
    return {};
  }
  w.require(w.take(Qualifier::global), "the destination space `.global`");
  w.require(w.take(Qualifier::shared_cta), "the source space `.shared::cta`");
  return {BulkDirection::Kind::store};
}

/// The copy of each direction, with the fields both kinds of copy share set (`rank` too
/// for the tensor forms); a missing direction gives a store with nothing set.
template <class Load, class Store, class... Rank>
BulkKind make_bulk(const BulkDirection& d, bool hint, Rank... rank) {
  if (d.kind == BulkDirection::Kind::load) {
    Load c;
    c.dst_space = d.dst;
    c.cache_hint = hint;
    ((c.rank = rank), ...);
    return c;
  }
  Store c;
  if (d.kind == BulkDirection::Kind::store) {
    c.cache_hint = hint;
    ((c.rank = rank), ...);
  }
  return c;
}

/// cp.async.bulk: a load by its completion, or a store by its bulk group.
BulkKind read_bulk_copy(BulkWords& w) {
  const bool hint = w.take(Qualifier::L2_cache_hint);
  return make_bulk<CpAsyncBulkLoad, CpAsyncBulkStore>(read_direction(w), hint);
}

/// cp.async.bulk.tensor: `.Nd`, `.tile` (the default mode), then as cp.async.bulk.
BulkKind read_bulk_tensor(BulkWords& w) {
  const auto rank = rank_of(w.take_one_of(
      {Qualifier::dim1, Qualifier::dim2, Qualifier::dim3, Qualifier::dim4, Qualifier::dim5}));
  w.require(rank.has_value(), "a dimensionality, `.1d` ... `.5d`");
  w.take(Qualifier::tile);
  const bool hint = w.take(Qualifier::L2_cache_hint);
  return make_bulk<CpAsyncBulkTensorLoad, CpAsyncBulkTensorStore>(read_direction(w), hint,
                                                                  rank.value_or(TensorRank::d1));
}

/// `.sem.scope` of the mbarrier forms, both or neither.
std::optional<MbarrierOrder> read_order(BulkWords& w, bool release_allowed) {
  const auto sem = release_allowed ? w.take_one_of({Qualifier::release, Qualifier::relaxed})
                                   : w.take_one_of({Qualifier::relaxed});
  const auto scope = w.take_one_of({Qualifier::cta, Qualifier::cluster});
  w.together(sem.has_value(), scope.has_value(),
             "ptxas 13.0 takes the semantics and the scope together (`.relaxed.cta`), or "
             "neither");
  if (!sem || !scope)
    return std::nullopt;
  return MbarrierOrder{*sem == Qualifier::relaxed ? MbarrierSem::relaxed : MbarrierSem::release,
                       *scope == Qualifier::cluster ? MbarrierScope::cluster : MbarrierScope::cta};
}

std::optional<SharedSpace> read_mbarrier_space(BulkWords& w) {
  const auto space = w.take_one_of({Qualifier::shared, Qualifier::shared_cta});
  w.require(w.take_b64(), "the type `.b64`");
  if (!space)
    return std::nullopt;
  return *space == Qualifier::shared ? SharedSpace::shared : SharedSpace::shared_cta;
}

/// The kind `w`'s mnemonic names, its qualifiers taken from `w`.
BulkKind read_kind(BulkWords& w) {
  switch (w.mnemonic()) {
  case Mnemonic::cp_async_bulk:
    return read_bulk_copy(w);
  case Mnemonic::cp_async_bulk_tensor:
    return read_bulk_tensor(w);
  case Mnemonic::cp_async_bulk_commit_group:
    return CpAsyncBulkCommitGroup{};
  case Mnemonic::cp_async_bulk_wait_group:
    return CpAsyncBulkWaitGroup{0, w.take(Qualifier::read)};
  case Mnemonic::cp_async_bulk_prefetch: {
    w.require(w.take(Qualifier::L2), "the level `.L2`");
    w.require(w.take(Qualifier::global), "the space `.global`");
    CpAsyncBulkPrefetch p;
    p.cache_hint = w.take(Qualifier::L2_cache_hint);
    return p;
  }
  case Mnemonic::cp_async_bulk_prefetch_tensor: {
    CpAsyncBulkPrefetchTensor p;
    const auto rank = rank_of(w.take_one_of(
        {Qualifier::dim1, Qualifier::dim2, Qualifier::dim3, Qualifier::dim4, Qualifier::dim5}));
    w.require(rank.has_value(), "a dimensionality, `.1d` ... `.5d`");
    p.rank = rank.value_or(TensorRank::d1);
    w.require(w.take(Qualifier::L2), "the level `.L2`");
    w.require(w.take(Qualifier::global), "the space `.global`");
    w.take(Qualifier::tile);
    p.cache_hint = w.take(Qualifier::L2_cache_hint);
    return p;
  }
  case Mnemonic::mbarrier_expect_tx: {
    MbarrierExpectTx m;
    if (const auto order = read_order(w, false))
      m.relaxed = order->scope;
    m.space = read_mbarrier_space(w);
    return m;
  }
  case Mnemonic::mbarrier_arrive_expect_tx: {
    MbarrierArriveExpectTx m;
    m.order = read_order(w, true);
    m.space = read_mbarrier_space(w);
    return m;
  }
  case Mnemonic::fence_proxy_async: {
    FenceProxyAsync f;
    if (const auto s =
            w.take_one_of({Qualifier::global, Qualifier::shared_cta, Qualifier::shared_cluster}))
      f.space = *s == Qualifier::global       ? ProxySpace::global
                : *s == Qualifier::shared_cta ? ProxySpace::shared_cta
                                              : ProxySpace::shared_cluster;
    return f;
  }
  case Mnemonic::fence_mbarrier_init:
    w.require(w.take(Qualifier::release), "`.release`");
    w.require(w.take(Qualifier::cluster), "`.cluster`");
    return FenceMbarrierInit{};
  default:
    unreachable("read_kind(): parse_bulk_opcode() reads only bulk_family() mnemonics");
  }
}

} // namespace

bool bulk_family(Mnemonic m) {
  switch (m) {
  case Mnemonic::cp_async_bulk:
  case Mnemonic::cp_async_bulk_commit_group:
  case Mnemonic::cp_async_bulk_wait_group:
  case Mnemonic::cp_async_bulk_prefetch:
  case Mnemonic::cp_async_bulk_tensor:
  case Mnemonic::cp_async_bulk_prefetch_tensor:
  case Mnemonic::mbarrier_expect_tx:
  case Mnemonic::mbarrier_arrive_expect_tx:
  case Mnemonic::fence_proxy_async:
  case Mnemonic::fence_mbarrier_init:
    return true;
  default:
    return false;
  }
}

InstructionBody body_of(BulkKind k) {
  return std::visit([](auto&& kind) -> InstructionBody { return std::move(kind); }, std::move(k));
}

Result<BulkKind> parse_bulk_opcode(std::string_view text) {
  using R = Result<BulkKind>;
  std::optional<OpcodeWords> words = read_opcode(text);
  if (!words || !bulk_family(words->mnemonic))
    return R::failure(error_at(DiagId::ptx_opcode_root, text, 0,
                               std::max<std::size_t>(text.size(), 1),
                               "expected an opcode of the bulk-copy family, e.g. "
                               "`cp.async.bulk.global.shared::cta.bulk_group`"));
  BulkWords w(text, std::move(*words));
  BulkKind body = read_kind(w);
  if (std::optional<Diagnostic> d = w.finish())
    return R::failure(std::move(*d));
  return R::success(std::move(body));
}

} // namespace ptxgen::ptx
