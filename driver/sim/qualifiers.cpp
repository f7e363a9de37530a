// The simulator's PTX parser: an instruction's qualifiers, read by its form's
// grammar (Quals) with its types checked (Types).

#include "driver/sim/parser_impl.hpp"
#include "emitter/ptx/instruction.hpp"
#include "emitter/ptx/opcode_parser.hpp"
#include "emitter/ptx/opcode_words.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <iterator>

namespace ptxgen::sim::detail {
namespace {

/// Whether a comparison applies to integers only (lo ... hs); ptx::float_only() says the
/// converse.
bool integer_only(ir::Cmp c) {
  return c == ir::Cmp::lo || c == ir::Cmp::ls || c == ir::Cmp::hi || c == ir::Cmp::hs;
}

/// The qualifier word `q` is (qualifiers.def), if any: the emitter read it (ptx::read_opcode).
std::optional<ptx::Qualifier> word(const ptx::OpcodeWord& q) {
  return q.qualifier;
}

/// Whether `q` is the type `t` (`b32`).
bool is_type(const ptx::OpcodeWord& q, ptx::ScalarType t) {
  return ptx::parse_scalar_type(q.text) == t;
}

/// The simulator's value of a qualifier word, by a table of {word, value} rows.
template <class T, std::size_t N>
std::optional<T> lookup(const std::pair<ptx::Qualifier, T> (&rows)[N], const ptx::OpcodeWord& q) {
  const std::optional<ptx::Qualifier> w = word(q);
  for (const auto& [key, value] : rows) {
    if (w == key)
      return value;
  }
  return std::nullopt;
}

/// prmt's modes.
std::optional<ir::Permute> parse_permute(const ptx::OpcodeWord& q) {
  static constexpr std::pair<ptx::Qualifier, ir::Permute> modes[] = {
      {ptx::Qualifier::f4e, ir::Permute::f4e}, {ptx::Qualifier::b4e, ir::Permute::b4e},
      {ptx::Qualifier::rc8, ir::Permute::rc8}, {ptx::Qualifier::ecl, ir::Permute::ecl},
      {ptx::Qualifier::ecr, ir::Permute::ecr}, {ptx::Qualifier::rc16, ir::Permute::rc16}};
  return lookup(modes, q);
}

/// ld / st qualifiers that are hints to the memory system: cache operators,
/// eviction priorities, prefetch sizes, and `.weak` (the default semantics).
bool memory_hint(const ptx::OpcodeWord& q) {
  const std::optional<ptx::Qualifier> w = word(q);
  if (!w)
    return false;
  const ptx::QualifierGroup g = ptx::group(*w);
  return g == ptx::QualifierGroup::cache_operator || g == ptx::QualifierGroup::eviction ||
         g == ptx::QualifierGroup::prefetch_size || w == ptx::Qualifier::weak;
}

/// The simulated space of a state-space word: `.shared::cluster` is shared memory (Op::cluster
/// says an address may name a peer's), the module's `.const` variables live in the global space.
ir::Space space_of(ptx::Qualifier q) {
  switch (q) {
  case ptx::Qualifier::param:
    return ir::Space::param;
  case ptx::Qualifier::shared:
  case ptx::Qualifier::shared_cta:
  case ptx::Qualifier::shared_cluster:
    return ir::Space::shared;
  case ptx::Qualifier::local:
    return ir::Space::local;
  default:
    return ir::Space::global;
  }
}

/// The qualifiers of the mbarrier family: `.sem .scope .space .b64` in any order,
/// `.noinc` on cp.async.mbarrier.arrive. Returns an error for the parser to report, or sets
/// op.space (shared, or generic when no space is named), op.cluster, op.noinc and the .b64 type.
/// The scopes and semantics are accepted as written; a `.shared::cluster` address may name a
/// peer CTA's barrier (cta_cluster.cpp).
std::optional<std::string> mbarrier_qualifiers(ir::Op& op, std::span<const ptx::OpcodeWord> quals) {
  bool b64 = false, space = false;
  op.space = ir::Space::generic;
  for (const ptx::OpcodeWord& q : quals) {
    const std::optional<ptx::Qualifier> w = word(q);
    if (is_type(q, ptx::ScalarType::b64) && !b64) {
      b64 = true;
    } else if ((w == ptx::Qualifier::shared || w == ptx::Qualifier::shared_cta ||
                w == ptx::Qualifier::shared_cluster) &&
               !space) {
      space = true;
      op.space = ir::Space::shared;
      op.cluster = w == ptx::Qualifier::shared_cluster; // a peer's barrier (cta_cluster.cpp)
    } else if (w == ptx::Qualifier::release || w == ptx::Qualifier::relaxed ||
               w == ptx::Qualifier::acquire || w == ptx::Qualifier::cta ||
               w == ptx::Qualifier::cluster) {
      // memory-model qualifiers: the simulator's ordering is exact at CTA scope
    } else if (w == ptx::Qualifier::noComplete && op.code == ir::Code::mbar_arrive) {
      // an arrival the program promises does not complete the phase (libcu++ -G's
      // arrive(n)); the simulator checks nothing more than for a plain arrive
    } else if (w == ptx::Qualifier::noinc && op.code == ir::Code::cp_mbar_arrive && !op.noinc) {
      op.noinc = true;
    } else {
      return "`." + std::string(q.text) + "` is not an mbarrier qualifier here";
    }
  }
  if (!b64)
    return "mbarrier instructions take `.b64`";
  op.type = ir::Type{64, false};
  return std::nullopt;
}

/// Why a bulk form other than the 1-D load and store is refused.
constexpr std::string_view only_bulk_1d_simulated =
    "only cp.async.bulk.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes{.multicast::"
    "cluster}, cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes and "
    "cp.async.bulk.global.shared::cta.bulk_group are simulated";

/// Which way a bulk or tensor copy goes, by its destination's and source's state spaces.
enum class CopyWay : std::uint8_t { none, load, store, peer };

CopyWay copy_way(std::optional<ptx::Qualifier> dst, std::optional<ptx::Qualifier> src) {
  const bool into_shared =
      dst == ptx::Qualifier::shared_cluster || dst == ptx::Qualifier::shared_cta;
  if (into_shared && src == ptx::Qualifier::global)
    return CopyWay::load;
  if (dst == ptx::Qualifier::global && src == ptx::Qualifier::shared_cta)
    return CopyWay::store;
  if (dst == ptx::Qualifier::shared_cluster && src == ptx::Qualifier::shared_cta)
    return CopyWay::peer;
  return CopyWay::none;
}

/// The completion a copy of that way names: a store's bulk group, else the mbarrier's bytes.
ptx::Qualifier completion_of(CopyWay way) {
  return way == CopyWay::store ? ptx::Qualifier::bulk_group : ptx::Qualifier::complete_tx_bytes;
}

/// One word of the optional tail both copies share: `.L2::cache_hint`, and a load's
/// `.multicast::cluster` (a CTA mask operand follows the mbarrier). False for another word.
bool copy_tail_word(const ptx::OpcodeWord& q, CopyWay way, ir::Op& op, Decoded& d) {
  if (word(q) == ptx::Qualifier::L2_cache_hint && !d.hint)
    d.hint = true;
  else if (word(q) == ptx::Qualifier::multicast_cluster && way == CopyWay::load && !op.multicast)
    op.multicast = true;
  else
    return false;
  return true;
}

/// cp.async.bulk's qualifiers: the load `.shared::{cta,cluster} .global
/// .mbarrier::complete_tx::bytes` or the store `.global .shared::cta .bulk_group`, then
/// {.L2::cache_hint}, a load's {.multicast::cluster}; or the copy to a peer CTA
/// `.shared::cluster .shared::cta .mbarrier::complete_tx::bytes`. The store's code becomes
/// bulk_store, the peer copy's bulk_peer.
/// cp.reduce.async.bulk's `.op{.noftz}.type` after its spaces: op.atomic and the element type
/// (op.type2). The pairs are cp.reduce.async.bulk's (ptx::bulk_red_form).
std::optional<std::string> reduce_qualifiers(ir::Op& op, std::span<const ptx::OpcodeWord> quals) {
  static constexpr std::pair<ptx::Qualifier, ir::Atomic> ops[] = {
      {ptx::Qualifier::add, ir::Atomic::add}, {ptx::Qualifier::min, ir::Atomic::min},
      {ptx::Qualifier::max, ir::Atomic::max}, {ptx::Qualifier::inc, ir::Atomic::inc},
      {ptx::Qualifier::dec, ir::Atomic::dec}, {ptx::Qualifier::and_, ir::Atomic::and_},
      {ptx::Qualifier::or_, ir::Atomic::or_}, {ptx::Qualifier::xor_, ir::Atomic::xor_}};
  static constexpr std::string_view types[] = {"b32", "b64", "u32",  "s32", "u64",
                                               "s64", "f16", "bf16", "f32", "f64"};
  const std::string_view usage = "cp.reduce.async.bulk takes `.op{.noftz}.type` last";
  if (quals.size() < 2 || quals.size() > 3)
    return std::string(usage);
  const auto w = word(quals[0]);
  const auto* o =
      std::find_if(std::begin(ops), std::end(ops), [&](const auto& p) { return w == p.first; });
  const auto* ty = std::find(std::begin(types), std::end(types), quals.back().text);
  if (o == std::end(ops) || ty == std::end(types))
    return std::string(usage);
  const auto red_op = static_cast<ptx::BulkRedOp>(o - std::begin(ops));
  const auto red_type = static_cast<ptx::BulkRedType>(ty - std::begin(types));
  const bool noftz = quals.size() == 3;
  if ((noftz && word(quals[1]) != ptx::Qualifier::noftz) ||
      noftz != ptx::bulk_red_noftz(red_op, red_type) || !ptx::bulk_red_form(red_op, red_type))
    return "cp.reduce.async.bulk has no `." + std::string(quals[0].text) +
           (noftz ? ".noftz." : ".") + std::string(*ty) + "` form";
  op.atomic = o->second;
  const auto info = numeric_type(*ty);
  op.type2 = info->t;
  return std::nullopt;
}

std::optional<std::string> bulk_qualifiers(ir::Op& op, Decoded& d,
                                           std::span<const ptx::OpcodeWord> quals) {
  if (op.code == ir::Code::bulk_reduce) {
    // `.global .shared::cta .bulk_group {.L2::cache_hint}` then the reduction.
    const bool spaces = quals.size() >= 3 && word(quals[0]) == ptx::Qualifier::global &&
                        word(quals[1]) == ptx::Qualifier::shared_cta &&
                        word(quals[2]) == ptx::Qualifier::bulk_group;
    if (!spaces)
      return "cp.reduce.async.bulk is simulated as `.global.shared::cta.bulk_group` only";
    std::size_t k = 3;
    if (k < quals.size() && word(quals[k]) == ptx::Qualifier::L2_cache_hint) {
      d.hint = true;
      ++k;
    }
    op.space = ir::Space::shared;
    return reduce_qualifiers(op, quals.subspan(k));
  }
  if (quals.size() < 3)
    throw Unsupported{DiagId::sim_unsupported_form, std::string(only_bulk_1d_simulated)};
  const auto w0 = word(quals[0]);
  const CopyWay way = copy_way(w0, word(quals[1]));
  if (way == CopyWay::none || word(quals[2]) != completion_of(way))
    throw Unsupported{DiagId::sim_unsupported_form, std::string(only_bulk_1d_simulated)};
  for (const ptx::OpcodeWord& q : quals.subspan(3)) {
    if (!copy_tail_word(q, way, op, d))
      return "`." + std::string(q.text) + "` is not a cp.async.bulk qualifier";
  }
  if (way == CopyWay::store)
    op.code = ir::Code::bulk_store;
  if (way == CopyWay::peer)
    op.code = ir::Code::bulk_peer;
  op.cluster = w0 == ptx::Qualifier::shared_cluster;
  op.space = ir::Space::shared;
  return std::nullopt;
}

/// cp.async.bulk.tensor's qualifiers: `.Nd`, the load's `.shared::{cluster,cta} .global` or the
/// store's `.global .shared::cta`, `{.tile}`, the completion (the load's
/// `.mbarrier::complete_tx::bytes`, the store's `.bulk_group`), `{.L2::cache_hint}`, a load's
/// `{.multicast::cluster}`. The store's code becomes tensor_store. A load's `.im2col` (rank 3..5)
/// sets Op::im2col; the other im2col modes and CTA groups are not simulated.
/// The rank a `.1d` ... `.5d` word names; 0 for another word.
std::uint8_t tensor_rank(std::optional<ptx::Qualifier> w) {
  static constexpr ptx::Qualifier dims[] = {ptx::Qualifier::dim1, ptx::Qualifier::dim2,
                                            ptx::Qualifier::dim3, ptx::Qualifier::dim4,
                                            ptx::Qualifier::dim5};
  const auto* dim = std::find(std::begin(dims), std::end(dims), w);
  return dim == std::end(dims) ? 0 : static_cast<std::uint8_t>(dim - std::begin(dims) + 1);
}

std::optional<ir::Atomic> parse_atomic(const ptx::OpcodeWord& q); // atom / red's, below

/// cp.reduce.async.bulk.tensor's: `.Nd .global .shared::cta .op {.tile} .bulk_group
/// {.L2::cache_hint}`; op.atomic is the reduction (its element type is the map's, at run time).
std::optional<std::string> tensor_reduce_qualifiers(ir::Op& op, Decoded& d,
                                                    std::span<const ptx::OpcodeWord> quals) {
  const auto at = [&](std::size_t k) {
    return k < quals.size() ? word(quals[k]) : std::optional<ptx::Qualifier>{};
  };
  if (at(1) != ptx::Qualifier::global || at(2) != ptx::Qualifier::shared_cta)
    return "cp.reduce.async.bulk.tensor reduces `.shared::cta` into `.global`";
  std::size_t k = 3;
  const std::optional<ir::Atomic> red = k < quals.size() ? parse_atomic(quals[k]) : std::nullopt;
  if (!red || *red == ir::Atomic::cas || *red == ir::Atomic::exch)
    return "cp.reduce.async.bulk.tensor takes `.add .min .max .inc .dec .and .or .xor` after its "
           "spaces";
  op.atomic = *red;
  ++k;
  if (k < quals.size() && quals[k].text.starts_with("im2col"))
    throw Unsupported{DiagId::sim_unsupported_form, "im2col tensor reductions are not simulated"};
  if (at(k) == ptx::Qualifier::tile)
    ++k;
  if (at(k) != ptx::Qualifier::bulk_group)
    return "a tensor reduction completes with `.bulk_group`";
  ++k;
  if (at(k) == ptx::Qualifier::L2_cache_hint) {
    d.hint = true;
    ++k;
  }
  if (k < quals.size())
    return "`." + std::string(quals[k].text) + "` is not a cp.reduce.async.bulk.tensor qualifier";
  op.space = ir::Space::shared;
  return std::nullopt;
}

std::optional<std::string> tensor_qualifiers(ir::Op& op, Decoded& d,
                                             std::span<const ptx::OpcodeWord> quals) {
  const auto at = [&](std::size_t k) {
    return k < quals.size() ? word(quals[k]) : std::optional<ptx::Qualifier>{};
  };
  op.rank = tensor_rank(at(0));
  if (op.rank == 0)
    return std::string(op.code == ir::Code::tensor_reduce ? "cp.reduce.async.bulk.tensor"
                                                          : "cp.async.bulk.tensor") +
           " takes its dimensions first (`.1d` to `.5d`)";
  if (op.code == ir::Code::tensor_reduce)
    return tensor_reduce_qualifiers(op, d, quals);
  const CopyWay way = copy_way(at(1), at(2));
  if (way != CopyWay::load && way != CopyWay::store)
    return "cp.async.bulk.tensor copies `.global` to `.shared::{cluster,cta}` or `.shared::cta` "
           "to `.global`";
  std::size_t k = 3;
  // `.im2col` loads are simulated; `.im2col::w` (sm_100) and `.im2col_no_offs` stores not.
  if (way == CopyWay::load && op.rank >= 3 && at(k) == ptx::Qualifier::im2col) {
    op.im2col = true;
    ++k;
  } else if (k < quals.size() && quals[k].text.starts_with("im2col")) {
    throw Unsupported{DiagId::sim_unsupported_form,
                      "this im2col tensor copy is not simulated (only `.im2col` loads are)"};
  }
  if (at(k) == ptx::Qualifier::tile)
    ++k;
  if (at(k) != completion_of(way))
    return way == CopyWay::load ? "a tensor load completes with `.mbarrier::complete_tx::bytes`"
                                : "a tensor store completes with `.bulk_group`";
  for (const ptx::OpcodeWord& q : quals.subspan(k + 1)) {
    if (copy_tail_word(q, way, op, d))
      continue;
    if (q.text.starts_with("cta_group"))
      throw Unsupported{DiagId::sim_unsupported_form, "CTA-group tensor copies are not simulated"};
    return "`." + std::string(q.text) + "` is not a cp.async.bulk.tensor qualifier";
  }
  if (way == CopyWay::store)
    op.code = ir::Code::tensor_store;
  op.cluster = at(1) == ptx::Qualifier::shared_cluster;
  op.space = ir::Space::shared;
  return std::nullopt;
}

/// The bulk prefetches: cp.async.bulk.prefetch `.L2 .global {.L2::cache_hint}`, and
/// cp.async.bulk.prefetch.tensor `.Nd .L2 .global {.tile} {.L2::cache_hint}` (Op::rank set).
std::optional<std::string> bulk_prefetch_qualifiers(ir::Op& op, Decoded& d,
                                                    std::span<const ptx::OpcodeWord> quals) {
  std::size_t k = 0;
  if (op.code == ir::Code::tensor_prefetch) {
    op.rank = k < quals.size() ? tensor_rank(word(quals[k])) : 0;
    if (op.rank == 0)
      return "cp.async.bulk.prefetch.tensor takes its dimensions first (`.1d` to `.5d`)";
    ++k;
  }
  if (quals.size() < k + 2 || word(quals[k]) != ptx::Qualifier::L2 ||
      word(quals[k + 1]) != ptx::Qualifier::global)
    return "a bulk prefetch is `.L2.global`";
  k += 2;
  if (op.code == ir::Code::tensor_prefetch && k < quals.size() &&
      quals[k].text.starts_with("im2col"))
    throw Unsupported{DiagId::sim_unsupported_form, "im2col tensor prefetches are not simulated"};
  if (op.code == ir::Code::tensor_prefetch && k < quals.size() &&
      word(quals[k]) == ptx::Qualifier::tile)
    ++k;
  if (k < quals.size() && word(quals[k]) == ptx::Qualifier::L2_cache_hint) {
    d.hint = true;
    ++k;
  }
  if (k < quals.size())
    return "`." + std::string(quals[k].text) + "` is not a bulk prefetch qualifier here";
  return std::nullopt;
}

/// fence.proxy.async{.global|.shared::{cta,cluster}} and fence.mbarrier_init.release.cluster.
bool fence_qualifiers_ok(ptx::Mnemonic mnemonic, std::span<const ptx::OpcodeWord> quals) {
  if (mnemonic == ptx::Mnemonic::fence_mbarrier_init)
    return quals.size() == 2 && word(quals[0]) == ptx::Qualifier::release &&
           word(quals[1]) == ptx::Qualifier::cluster;
  if (quals.empty())
    return true;
  const std::optional<ptx::Qualifier> w = quals.size() == 1 ? word(quals[0]) : std::nullopt;
  return w == ptx::Qualifier::global || w == ptx::Qualifier::shared_cta ||
         w == ptx::Qualifier::shared_cluster;
}

/// The words of `quals` are exactly `want`, in order.
bool words_are(std::span<const ptx::OpcodeWord> quals, std::initializer_list<ptx::Qualifier> want) {
  if (quals.size() != want.size())
    return false;
  std::size_t i = 0;
  for (ptx::Qualifier w : want)
    if (word(quals[i++]) != w)
      return false;
  return true;
}

/// tensormap.replace's `.tile.field.space.b1024.type` (op.n the field, op.space the map's),
/// tensormap.cp_fenceproxy's one spelling, fence.proxy.tensormap's `.release|.acquire .gpu`
/// (op.n: 1 for acquire). The reason it is not simulated, or nullopt.
std::optional<std::string> tensormap_qualifiers(ptx::Mnemonic m, ir::Op& op,
                                                std::span<const ptx::OpcodeWord> quals) {
  using Q = ptx::Qualifier;
  if (m == ptx::Mnemonic::fence_proxy_tensormap) {
    if (words_are(quals, {Q::release, Q::gpu}) || words_are(quals, {Q::acquire, Q::gpu})) {
      op.n = word(quals[0]) == Q::acquire ? 1 : 0;
      return std::nullopt;
    }
    return "only .release.gpu and .acquire.gpu";
  }
  if (m == ptx::Mnemonic::tensormap_cp_fenceproxy)
    return words_are(quals, {Q::global, Q::shared_cta, Q::tensormap_generic, Q::release, Q::gpu,
                             Q::sync, Q::aligned})
               ? std::nullopt
               : std::optional<std::string>(
                     "only .global.shared::cta.tensormap::generic.release.gpu.sync.aligned");
  if (quals.size() != 5 || word(quals[0]) != Q::tile || word(quals[3]) != Q::b1024)
    return "only .tile.FIELD.{global,shared::cta}.b1024.TYPE";
  // the PTX ISA's fields and their types (swizzle_atomicity, sm_100's, is not simulated)
  struct Field {
    std::string_view name;
    std::int64_t n;
    bool b64;
  };
  static constexpr Field fields[] = {
      {"global_address", ir::tensormap_address, true},
      {"rank", ir::tensormap_rank, false},
      {"box_dim", ir::tensormap_box, false},
      {"global_dim", ir::tensormap_dim, false},
      {"global_stride", ir::tensormap_stride, true},
      {"element_stride", ir::tensormap_element_stride, false},
      {"elemtype", ir::tensormap_elemtype, false},
      {"interleave_layout", ir::tensormap_interleave, false},
      {"swizzle_mode", ir::tensormap_swizzle, false},
      {"fill_mode", ir::tensormap_fill, false},
  };
  const Field* field = nullptr;
  for (const Field& f : fields)
    if (quals[1].text == f.name)
      field = &f;
  if (field == nullptr ||
      !is_type(quals[4], field->b64 ? ptx::ScalarType::b64 : ptx::ScalarType::b32))
    return "the fields simulated are global_address and global_stride (.b64), rank, box_dim, "
           "global_dim, element_stride, elemtype, interleave_layout, swizzle_mode and fill_mode "
           "(.b32)";
  op.n = field->n;
  const std::optional<Q> space = word(quals[2]);
  if (space != Q::global && space != Q::shared_cta)
    return "the map lies in .global or .shared::cta memory";
  op.space = space == Q::global ? ir::Space::global : ir::Space::shared;
  return std::nullopt;
}

/// The memory-model scopes.
bool scope_name(const ptx::OpcodeWord& q) {
  return q.qualifier && ptx::group(*q.qualifier) == ptx::QualifierGroup::scope;
}

/// The semantics that make an ld/st strong (`.weak` is the default: not strong).
bool strong_qualifier(const ptx::OpcodeWord& q) {
  const std::optional<ptx::Qualifier> w = word(q);
  return w == ptx::Qualifier::volatile_ || w == ptx::Qualifier::relaxed ||
         w == ptx::Qualifier::acquire || w == ptx::Qualifier::release;
}

/// fence.sc / fence.acq_rel take one scope; membar one level (`.cta .gl .sys`).
bool scope_qualifier_ok(ptx::Mnemonic mnemonic, std::span<const ptx::OpcodeWord> quals) {
  if (quals.size() != 1)
    return false;
  if (mnemonic == ptx::Mnemonic::membar)
    return word(quals[0]) == ptx::Qualifier::cta || word(quals[0]) == ptx::Qualifier::gl ||
           word(quals[0]) == ptx::Qualifier::sys;
  return scope_name(quals[0]);
}

/// atom / red's operations.
std::optional<ir::Atomic> parse_atomic(const ptx::OpcodeWord& q) {
  static constexpr std::pair<ptx::Qualifier, ir::Atomic> ops[] = {
      {ptx::Qualifier::add, ir::Atomic::add},   {ptx::Qualifier::inc, ir::Atomic::inc},
      {ptx::Qualifier::dec, ir::Atomic::dec},   {ptx::Qualifier::cas, ir::Atomic::cas},
      {ptx::Qualifier::exch, ir::Atomic::exch}, {ptx::Qualifier::min, ir::Atomic::min},
      {ptx::Qualifier::max, ir::Atomic::max},   {ptx::Qualifier::and_, ir::Atomic::and_},
      {ptx::Qualifier::or_, ir::Atomic::or_},   {ptx::Qualifier::xor_, ir::Atomic::xor_}};
  return lookup(ops, q);
}

/// prefetch{.global|.local}.L1|.L2|.L2::evict_last|.L2::evict_normal (prefetchu: .L1): the
/// first qualifier outside these, if any.
std::optional<std::string_view> prefetch_qualifiers(std::span<const ptx::OpcodeWord> quals) {
  for (const ptx::OpcodeWord& q : quals) {
    const std::optional<ptx::Qualifier> w = word(q);
    if (w != ptx::Qualifier::global && w != ptx::Qualifier::L1 && w != ptx::Qualifier::L2 &&
        w != ptx::Qualifier::L2_evict_last && w != ptx::Qualifier::L2_evict_normal)
      return q.text;
  }
  return std::nullopt;
}

} // namespace

std::string quote(std::string_view s) {
  return "`" + std::string(s) + "`";
}

std::optional<TypeInfo> numeric_type(std::string_view s) {
  // The spellings are the emitter's: ScalarType's, then bf16 and the packed pairs.
  if (std::optional<TypeInfo> t = parse_type(s)) {
    if (t->is_float)
      t->t.num = t->t.bits == 16 ? ir::Num::f16 : t->t.bits == 32 ? ir::Num::f32 : ir::Num::f64;
    return t;
  }
  static constexpr std::pair<ptx::Qualifier, ir::Type> others[] = {
      {ptx::Qualifier::bf16, {16, false, ir::Num::bf16}},
      {ptx::Qualifier::f16x2, {32, false, ir::Num::f16x2}},
      {ptx::Qualifier::bf16x2, {32, false, ir::Num::bf16x2}},
      {ptx::Qualifier::e4m3x2, {16, false, ir::Num::e4m3x2}},
      {ptx::Qualifier::e5m2x2, {16, false, ir::Num::e5m2x2}}};
  if (std::optional<ir::Type> t = lookup(others, ptx::OpcodeWord{s, ptx::parse_qualifier(s)}))
    return TypeInfo{*t, true, false, false};
  return std::nullopt;
}

TypeInfo Parser::checked_type(const Form& f, const Token& opc, std::string_view part) {
  auto t = numeric_type(part);
  // The packed 16-bit integer pairs of add / min / max are read by integer_pair(); the other
  // instructions do not take them (ptxas refuses sub.u16x2, neg.s16x2).
  const std::optional<ptx::Qualifier> w = ptx::parse_qualifier(part);
  if (!t && w && ptx::group(*w) == ptx::QualifierGroup::integer_pair)
    throw Unsupported{DiagId::sim_unsupported_form,
                      "packed 16-bit integer arithmetic (`." + std::string(part) +
                          "`) is simulated for add, min and max only"};
  if (!t)
    fail(DiagId::sim_qualifier, opc, quote(part) + " is not a PTX type");
  std::string root(split_dots(ptx::spelling(f.mnemonic)).front());
  auto no_pred = [&] {
    if (t->is_pred)
      fail(DiagId::sim_qualifier, opc, quote(root) + " does not take .pred");
  };
  auto no_float = [&] {
    if (t->is_float)
      throw Unsupported{DiagId::sim_unsupported_form, "floating-point arithmetic (`." +
                                                          std::string(part) +
                                                          "`) is not simulated"};
  };
  if ((t->t.num == ir::Num::e4m3x2 || t->t.num == ir::Num::e5m2x2) && f.code != ir::Code::cvt)
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (8-bit floats: only cvt)"};
  // Which of .pred and the floats the form's kind of type admits.
  bool pred_ok = false;
  bool float_ok = false;
  switch (f.types) {
  case Types::none:
    fail(DiagId::sim_qualifier, opc, quote(ptx::spelling(f.mnemonic)) + " takes no type");
  case Types::any:
    return *t;
  case Types::value:
  case Types::numeric:
    float_ok = true;
    break;
  case Types::integer_or_pred:
    pred_ok = true;
    break;
  case Types::integer:
  case Types::narrow_integer:
    break;
  case Types::address:
    if ((t->t.bits != 32 && t->t.bits != 64) || t->is_float || t->is_pred)
      fail(DiagId::sim_qualifier, opc, quote(ptx::spelling(f.mnemonic)) + " takes .u32 or .u64");
    return *t;
  case Types::floating:
    if (!t->is_float)
      fail(DiagId::sim_qualifier, opc, quote(opc.text) + " takes a floating-point type");
    return *t;
  }
  if (!float_ok)
    no_float();
  if (!pred_ok)
    no_pred();
  if (f.types == Types::narrow_integer && t->t.bits > 32)
    fail(DiagId::sim_qualifier, opc,
         quote(ptx::spelling(f.mnemonic)) + " takes 16- or 32-bit sources");
  return *t;
}

Decoded Parser::qualifiers(const Form& f, ir::Op& op, const Token& opc,
                           std::span<const ptx::OpcodeWord> quals) {
  Decoded d;
  const QualifierInput in{f, op, d, opc, quals};
  switch (f.quals) {
  case Quals::none:
    if (!quals.empty())
      fail(DiagId::sim_qualifier, opc,
           "unexpected qualifier `." + std::string(quals.front().text) + "` on " +
               quote(ptx::spelling(f.mnemonic)));
    break;
  case Quals::uni:
    if (quals.size() > 1 || (quals.size() == 1 && word(quals[0]) != ptx::Qualifier::uni))
      fail(DiagId::sim_qualifier, opc, "unexpected qualifiers on " + quote(opc.text));
    break;
  case Quals::aligned:
    if (quals.size() > 1 || (quals.size() == 1 && word(quals[0]) != ptx::Qualifier::aligned))
      throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated (only " +
                                                          std::string(ptx::spelling(f.mnemonic)) +
                                                          "{.aligned} N)"};
    break;
  case Quals::type:
  case Quals::type_type:
  case Quals::bfind:
    type_qualifiers(in);
    break;
  case Quals::cmp_type:
    compare_qualifiers(in);
    break;
  case Quals::memory:
    memory_qualifiers(in);
    break;
  case Quals::cvta:
    cvta_qualifiers(in);
    break;
  case Quals::cp_async:
    cp_async_qualifiers(in);
    break;
  case Quals::createpolicy:
    createpolicy_qualifiers(in);
    break;
  case Quals::arith:
    arith_qualifiers(in);
    break;
  case Quals::cvt:
    cvt_qualifiers(in);
    break;
  case Quals::prmt:
  case Quals::shf:
    bit_qualifiers(in);
    break;
  case Quals::mbarrier:
    if (auto bad = mbarrier_qualifiers(op, quals))
      fail(DiagId::sim_qualifier, opc, *bad);
    d.type = *parse_type(ptx::name(ptx::ScalarType::b64));
    break;
  case Quals::bulk:
  case Quals::tensor:
  case Quals::bulk_prefetch:
  case Quals::tensor_prefetch:
  case Quals::bulk_wait:
    bulk_family_qualifiers(in);
    break;
  case Quals::tensormap:
    if (auto bad = tensormap_qualifiers(f.mnemonic, op, quals))
      throw Unsupported{DiagId::sim_unsupported_form,
                        quote(opc.text) + " is not simulated: " + *bad};
    d.type = *parse_type(f.mnemonic == ptx::Mnemonic::tensormap_replace &&
                                 op.n != ir::tensormap_address && op.n != ir::tensormap_stride
                             ? ptx::name(ptx::ScalarType::b32)
                             : ptx::name(ptx::ScalarType::b64));
    op.type = d.type.t;
    break;
  case Quals::fence:
    if (!fence_qualifiers_ok(f.mnemonic, quals))
      throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated"};
    // the state spaces it orders: no space is both; .global no shared bytes; .shared::cta and
    // .shared::cluster (which holds the CTA's own shared memory) no global bytes
    op.n = quals.empty()                              ? ir::fence_shared | ir::fence_global
           : word(quals[0]) == ptx::Qualifier::global ? ir::fence_global
                                                      : ir::fence_shared;
    break;
  case Quals::space:
    space_qualifier(in);
    break;
  case Quals::ldmatrix:
    ldmatrix_qualifiers(in);
    break;
  case Quals::tensor_core: // read with the operands (tensor_parse.cpp)
    break;
  case Quals::shfl:
  case Quals::vote:
    warp_qualifiers(in);
    break;
  case Quals::atomic:
    atomic_qualifiers(in);
    break;
  case Quals::scope:
    if (!scope_qualifier_ok(f.mnemonic, quals))
      throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated"};
    break;
  case Quals::prefetch:
    if (quals.size() == 1 && word(quals[0]) == ptx::Qualifier::tensormap) {
      op.code = ir::Code::prefetch_tensormap; // the map at a generic address
      break;
    }
    if (auto bad = prefetch_qualifiers(quals))
      throw Unsupported{DiagId::sim_unsupported_form,
                        quote(opc.text) + " is not simulated (`." + std::string(*bad) + "`)"};
    break;
  case Quals::bar_red:
  case Quals::redux:
  case Quals::setmaxnreg:
  case Quals::math:
    kernel_qualifiers(in);
    break;
  case Quals::cluster_barrier:
  case Quals::mapa:
    cluster_qualifiers(in);
    break;
  case Quals::dot:
    dot_qualifiers(in);
    break;
  }
  return d;
}

/// The bulk copies (1-D and tensor), their prefetches and cp.async.bulk.wait_group.
void Parser::bulk_family_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  if (f.quals == Quals::bulk_wait) {
    if (quals.size() > 1 || (quals.size() == 1 && word(quals[0]) != ptx::Qualifier::read))
      fail(DiagId::sim_qualifier, opc, "cp.async.bulk.wait_group takes only `.read`");
    op.read = !quals.empty();
    return;
  }
  const std::optional<std::string> bad = f.quals == Quals::bulk ? bulk_qualifiers(op, d, quals)
                                         : f.quals == Quals::tensor
                                             ? tensor_qualifiers(op, d, quals)
                                             : bulk_prefetch_qualifiers(op, d, quals);
  if (bad)
    fail(DiagId::sim_qualifier, opc, *bad);
  // a 1-D copy's size is a u32 register or immediate; tensor coordinates are s32
  d.type =
      *parse_type(ptx::name(f.quals == Quals::bulk ? ptx::ScalarType::u32 : ptx::ScalarType::s32));
  op.type = d.type.t;
}

/// The forms whose qualifiers are their types alone: one type, cvt-like `.dtype.stype`, and
/// bfind's `{.shiftamt}` then one type.
void Parser::type_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  switch (f.quals) {
  case Quals::type:
    if (quals.size() != 1)
      throw Unsupported{DiagId::sim_unsupported_form,
                        quote(opc.text) + " (with these qualifiers) is not simulated"};
    d.type = checked_type(f, opc, quals[0].text);
    op.type = d.type.t;
    return;
  case Quals::type_type:
    if (quals.size() != 2)
      throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated (only " +
                                                          std::string(ptx::spelling(f.mnemonic)) +
                                                          ".dtype.stype)"};
    d.type = checked_type(f, opc, quals[0].text);
    d.from = checked_type(f, opc, quals[1].text);
    op.type = d.type.t;
    op.type2 = d.from.t;
    return;
  case Quals::bfind:
    op.shiftamt = !quals.empty() && word(quals[0]) == ptx::Qualifier::shiftamt;
    if (quals.size() != (op.shiftamt ? 2u : 1u))
      throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated"};
    d.type = checked_type(f, opc, quals.back().text);
    op.type = d.type.t;
    return;
  default:
    unreachable("type_qualifiers(): not a types-only qualifier grammar");
  }
}

/// shfl.sync's `.up|.down|.bfly|.idx .b32` and vote.sync's `.all|.any|.uni .pred` /
/// `.ballot .b32`.
void Parser::warp_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  static constexpr std::pair<ptx::Qualifier, ir::Shuffle> shuffles[] = {
      {ptx::Qualifier::up, ir::Shuffle::up},
      {ptx::Qualifier::down, ir::Shuffle::down},
      {ptx::Qualifier::bfly, ir::Shuffle::bfly},
      {ptx::Qualifier::idx, ir::Shuffle::idx}};
  static constexpr std::pair<ptx::Qualifier, ir::Vote> votes[] = {
      {ptx::Qualifier::all, ir::Vote::all},
      {ptx::Qualifier::any, ir::Vote::any},
      {ptx::Qualifier::uni, ir::Vote::uni},
      {ptx::Qualifier::ballot, ir::Vote::ballot}};
  bool known = false;
  if (quals.size() == 2) {
    if (auto m = lookup(shuffles, quals[0]);
        m && f.quals == Quals::shfl && is_type(quals[1], ptx::ScalarType::b32))
      known = true, op.shuffle = *m;
    if (auto m = lookup(votes, quals[0]);
        m && f.quals == Quals::vote &&
        is_type(quals[1], *m == ir::Vote::ballot ? ptx::ScalarType::b32 : ptx::ScalarType::pred))
      known = true, op.vote = *m;
  }
  if (!known)
    throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated"};
  d.type = *parse_type(quals[1].text);
  op.type = d.type.t;
}

void Parser::memory_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  std::optional<ir::Space> space;
  std::optional<std::string_view> type;
  for (const ptx::OpcodeWord& q : quals) {
    const std::optional<ptx::Qualifier> w = word(q);
    if (w == ptx::Qualifier::tex) {
      throw Unsupported{DiagId::sim_unsupported_form,
                        "the ." + std::string(q.text) + " state space is not simulated"};
    } else if (w && ptx::group(*w) == ptx::QualifierGroup::state_space) {
      if (space)
        fail(DiagId::sim_qualifier, opc, "two state spaces");
      space = space_of(*w);
      op.cluster = w == ptx::Qualifier::shared_cluster; // a peer's shared memory (cta_cluster.cpp)
    } else if (w == ptx::Qualifier::v2 || w == ptx::Qualifier::v4) {
      op.vec = w == ptx::Qualifier::v2 ? 2 : 4;
    } else if (w == ptx::Qualifier::L2_cache_hint) {
      d.hint = true; // a policy operand follows the address / data
    } else if (strong_qualifier(q)) {
      op.strong = true; // .volatile / .relaxed / .acquire / .release: see ir::Op::strong
    } else if (scope_name(q)) {
      // the scope of a strong access: one CTA is simulated, every scope includes it
    } else if (memory_hint(q)) {
      // cache operators, eviction priorities and prefetch sizes are hints
    } else if (numeric_type(q.text)) {
      if (type)
        fail(DiagId::sim_qualifier, opc, "two types");
      type = q.text;
    } else {
      throw Unsupported{DiagId::sim_unsupported_form, "`." + std::string(q.text) + "` on " +
                                                          std::string(ptx::spelling(f.mnemonic)) +
                                                          " is not simulated"};
    }
  }
  if (!type)
    fail(DiagId::sim_qualifier, opc, quote(opc.text) + " needs a type");
  d.type = checked_type(f, opc, *type);
  op.type = d.type.t;
  op.space = space.value_or(ir::Space::generic);
}

/// `{.rn|.rz|.rm|.rp}{.ftz}{.sat}.type`: float arithmetic, and integer add/sub.sat.s32.
void Parser::arith_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  // nvcc writes min / max's `.relu` after the type (`max.s32.relu`), as ptxas takes it
  const bool min_max = op.code == ir::Code::min || op.code == ir::Code::max;
  const bool relu_last = min_max && quals.size() > 1 && word(quals.back()) == ptx::Qualifier::relu;
  op.relu = relu_last;
  if (relu_last)
    quals = quals.first(quals.size() - 1);
  if (quals.empty())
    fail(DiagId::sim_qualifier, opc, quote(opc.text) + " needs a type");
  const bool div = op.code == ir::Code::div;
  bool approx = false; // div.approx / div.full: Round::none, Op::full tells them apart
  for (const ptx::OpcodeWord& q : quals.first(quals.size() - 1)) {
    auto r = ptx::parse_rounding(q.text);
    if (r && !ptx::integral(*r) && op.round == ir::Round::none && !approx)
      op.round = *r;
    else if (div && (word(q) == ptx::Qualifier::approx || q.text == "full") && !approx &&
             op.round == ir::Round::none) {
      approx = true;
      op.full = q.text == "full";
    } else if (word(q) == ptx::Qualifier::ftz && !op.ftz)
      op.ftz = true;
    else if (word(q) == ptx::Qualifier::sat && !op.sat)
      op.sat = true;
    else if (word(q) == ptx::Qualifier::relu && !op.relu && min_max)
      op.relu = true;
    else if (q.text == "NaN" && !op.nan && min_max) // LLVM's fmaximum / fminimum (sm_80)
      op.nan = true;
    else
      throw Unsupported{DiagId::sim_unsupported_form,
                        quote(opc.text) + " is not simulated (`." + std::string(q.text) + "`)"};
  }
  const std::optional<TypeInfo> pair = integer_pair(op.code, quals.back());
  d.type = pair ? *pair : checked_type(f, opc, quals.back().text);
  op.type = d.type.t;
  op.halves = pair.has_value();
  integer_arith_checks(in);
  if (op.nan && (!d.type.is_float || op.type.num == ir::Num::f64))
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (.NaN: f32, f16, bf16 and their pairs)"};
  const bool add_sub = op.code == ir::Code::add || op.code == ir::Code::sub;
  if (!d.type.is_float && (op.round != ir::Round::none || op.ftz ||
                           (op.sat && !(add_sub && op.type.bits == 32 && op.type.is_signed))))
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (integer rounding or saturation)"};
  // Float division: .rnd for .f32 and .f64, .approx and .full for .f32 (ptxas refuses the
  // others, a missing mode included: what it accepts is simulated, the rest is not).
  if (div && d.type.is_float &&
      (op.sat || (op.type.num != ir::Num::f32 && op.type.num != ir::Num::f64) ||
       (op.round == ir::Round::none) != (approx && op.type.num == ir::Num::f32)))
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (float division: div.rnd.f32, "
                                        "div.rnd.f64, div.approx.f32, div.full.f32)"};
  if (div && !d.type.is_float && approx)
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (an integer division is exact)"};
  if (op.type.num == ir::Num::f64 && op.code == ir::Code::fma && op.round != ir::Round::rn)
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (f64 fma rounds only to nearest here)"};
}

/// `cvt{.rnd}{.ftz}{.sat}.dtype.atype`.
void Parser::cvt_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  if (quals.size() < 2)
    fail(DiagId::sim_qualifier, opc, "expected cvt{.rnd}{.ftz}{.sat}.dtype.atype");
  if (quals[quals.size() - 2].text == "tf32") {
    tf32_cvt_qualifiers(in);
    return;
  }
  for (const ptx::OpcodeWord& q : quals.first(quals.size() - 2)) {
    auto r = ptx::parse_rounding(q.text);
    if (r && op.round == ir::Round::none)
      op.round = *r;
    else if (word(q) == ptx::Qualifier::ftz && !op.ftz)
      op.ftz = true;
    else if (word(q) == ptx::Qualifier::sat && !op.sat)
      op.sat = true;
    else if (word(q) == ptx::Qualifier::relu && !op.relu)
      op.relu = true;
    else if (word(q) == ptx::Qualifier::satfinite && !op.satfinite)
      op.satfinite = true;
    else
      throw Unsupported{DiagId::sim_unsupported_form,
                        quote(opc.text) + " is not simulated (`." + std::string(q.text) + "`)"};
  }
  d.type = checked_type(f, opc, quals[quals.size() - 2].text);
  d.from = checked_type(f, opc, quals.back().text);
  op.type = d.type.t;
  op.type2 = d.from.t;
  packed_cvt_qualifiers(in);
}

/// `cvt.{rna,rn,rz}{.satfinite}.tf32.f32` (tf32 is no register type: the result is an f32's bits
/// with the 13 low fraction bits zero; ptxas takes .rna from sm_80, .rn / .rz from sm_90).
void Parser::tf32_cvt_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  for (const ptx::OpcodeWord& q : quals.first(quals.size() - 2)) {
    auto r = ptx::parse_rounding(q.text);
    if (q.text == "rna" && op.round == ir::Round::none && !op.ties_away)
      op.ties_away = true;
    else if (r && (*r == ir::Round::rn || *r == ir::Round::rz) && op.round == ir::Round::none &&
             !op.ties_away)
      op.round = *r;
    else if (word(q) == ptx::Qualifier::satfinite && !op.satfinite)
      op.satfinite = true;
    else
      throw Unsupported{DiagId::sim_unsupported_form,
                        quote(opc.text) + " is not simulated (`." + std::string(q.text) + "`)"};
  }
  if (quals.back().text != "f32" || (op.round == ir::Round::none && !op.ties_away))
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) +
                          " is not simulated (cvt.{rna,rn,rz}{.satfinite}.tf32.f32 only)"};
  op.to_tf32 = true;
  d.type = checked_type(f, opc, "f32");
  d.from = d.type;
  op.type = d.type.t;
  op.type2 = d.from.t;
}

/// The packed conversions: .f16x2/.bf16x2 from two .f32; .e4m3x2/.e5m2x2 from two .f32 or one
/// .f16x2 (`.rn.satfinite{.relu}`); .f16x2 from .e4m3x2/.e5m2x2 (`.rn{.relu}`). .relu and
/// .satfinite only there.
void Parser::packed_cvt_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  auto x2 = [](ir::Num n) { return n == ir::Num::f16x2 || n == ir::Num::bf16x2; };
  auto fp8 = [](ir::Num n) { return n == ir::Num::e4m3x2 || n == ir::Num::e5m2x2; };
  const ir::Num to = op.type.num, from = op.type2.num;
  const bool half_from_single = x2(to) && from == ir::Num::f32;
  const bool fp8_from = fp8(to) && (from == ir::Num::f32 || from == ir::Num::f16x2);
  const bool fp8_to_half = to == ir::Num::f16x2 && fp8(from);
  if ((x2(to) || fp8(to) || x2(from) || fp8(from)) && !half_from_single && !fp8_from &&
      !fp8_to_half)
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (packed: .f16x2/.bf16x2 from .f32, "
                                        ".e4m3x2/.e5m2x2 from .f32 or .f16x2, and back to .f16x2)"};
  // Other spellings of these (ptxas decides which exist) run as nothing here.
  if (((op.relu || op.satfinite) && !half_from_single && !fp8_from && !fp8_to_half) ||
      (fp8_from && (op.round != ir::Round::rn || !op.satfinite)) ||
      (fp8_to_half && (op.round != ir::Round::rn || op.satfinite)) ||
      ((fp8_from || fp8_to_half) && (op.ftz || op.sat)))
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (.relu and .satfinite: the packed "
                                        "forms; 8-bit floats: .rn.satfinite{.relu} to them, "
                                        ".rn{.relu} from them)"};
}

/// prmt.b32{.mode} and shf.{l,r}.{wrap,clamp}.b32.
void Parser::bit_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  std::size_t type_at = 0;
  if (f.quals == Quals::prmt) {
    if (quals.empty() || quals.size() > 2 || (quals.size() == 2 && !parse_permute(quals[1])))
      fail(DiagId::sim_qualifier, opc, "expected prmt.b32{.f4e|.b4e|.rc8|.ecl|.ecr|.rc16}");
    if (quals.size() == 2)
      op.prmt = *parse_permute(quals[1]);
  } else {
    const std::optional<ptx::Qualifier> side = quals.size() == 3 ? word(quals[0]) : std::nullopt;
    const std::optional<ptx::Qualifier> mode = quals.size() == 3 ? word(quals[1]) : std::nullopt;
    if ((side != ptx::Qualifier::l && side != ptx::Qualifier::r) ||
        (mode != ptx::Qualifier::wrap && mode != ptx::Qualifier::clamp))
      fail(DiagId::sim_qualifier, opc, "expected shf.{l,r}.{wrap,clamp}.b32");
    op.left = side == ptx::Qualifier::l;
    op.clamp = mode == ptx::Qualifier::clamp;
    type_at = 2;
  }
  if (!is_type(quals[type_at], ptx::ScalarType::b32))
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (only .b32)"};
  d.type = *parse_type(ptx::name(ptx::ScalarType::b32));
  op.type = d.type.t;
}

/// ldmatrix.sync.aligned.m8n8.x1|.x2|.x4{.trans}.shared{::cta}.b16, the first three in any
/// order (other shapes unsupported).
void Parser::ldmatrix_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  std::size_t k = 0;
  // The qualifiers by name, not by the structured binding (clang 14 cannot capture one).
  auto take = [&k, qs = in.quals](ptx::Qualifier q) {
    const bool here = k < qs.size() && word(qs[k]) == q;
    k += here ? 1 : 0;
    return here;
  };
  if (!take(ptx::Qualifier::sync) || !take(ptx::Qualifier::aligned))
    fail(DiagId::sim_qualifier, opc, "ldmatrix needs .sync.aligned");
  // The shape, the count and .trans in any order, as ptxas takes them (CUTLASS writes
  // `.x4.m8n8`, `.x4.trans.m8n8`).
  bool shape = false;
  std::uint8_t count = 0;
  for (int i = 0; i < 3; ++i) {
    if (!shape && take(ptx::Qualifier::m8n8))
      shape = true;
    else if (count == 0 && take(ptx::Qualifier::x1))
      count = 1;
    else if (count == 0 && take(ptx::Qualifier::x2))
      count = 2;
    else if (count == 0 && take(ptx::Qualifier::x4))
      count = 4;
    else if (!op.trans && take(ptx::Qualifier::trans))
      op.trans = true;
  }
  if (!shape)
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (only the .m8n8 shape)"};
  if (count == 0)
    fail(DiagId::sim_qualifier, opc, "ldmatrix needs .x1, .x2 or .x4");
  op.vec = count;
  if (!take(ptx::Qualifier::shared) && !take(ptx::Qualifier::shared_cta))
    fail(DiagId::sim_qualifier, opc, "ldmatrix reads .shared");
  const bool b16 = k < quals.size() && is_type(quals[k], ptx::ScalarType::b16);
  if (!b16 || k + 1 != quals.size())
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (only .b16 elements)"};
  op.space = ir::Space::shared;
  d.type = *parse_type(ptx::name(ptx::ScalarType::b16));
  op.type = d.type.t;
}

void Parser::cvta_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  std::size_t k = 0;
  op.to = k < quals.size() && word(quals[k]) == ptx::Qualifier::to;
  if (op.to)
    ++k;
  if (quals.size() != k + 2)
    fail(DiagId::sim_qualifier, opc, "expected cvta{.to}.space.type");
  std::string_view sp = quals[k].text;
  const std::optional<ptx::Qualifier> w = word(quals[k]);
  if (w == ptx::Qualifier::global || w == ptx::Qualifier::shared ||
      w == ptx::Qualifier::shared_cta || w == ptx::Qualifier::local || w == ptx::Qualifier::param)
    op.space = space_of(*w);
  else
    throw Unsupported{DiagId::sim_unsupported_form,
                      "cvta for ." + std::string(sp) + " is not simulated"};
  d.type = checked_type(f, opc, quals[k + 1].text);
  op.type = d.type.t;
}

/// The copy: cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB}, read by the
/// emitter's opcode grammar (ptx::parse_opcode), so that the two read cp.async alike. Its
/// rejection is this parser's sim_qualifier error, with the emitter's words and caret.
void Parser::cp_async_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  if (!quals.empty() && quals[0].text == "mbarrier")
    throw Unsupported{DiagId::sim_unsupported_form,
                      "only cp.async.mbarrier.arrive{.noinc} of the cp.async.mbarrier forms is "
                      "simulated"};
  const Result<ptx::CpAsyncOpcode> parsed = ptx::parse_opcode(opc.text);
  if (!parsed) {
    const Diagnostic& why = parsed.diagnostics.items().front();
    throw ParseError{DiagId::sim_qualifier, opc.pos + why.column - 1,
                     std::max<std::size_t>(why.length, 1), why.message};
  }
  d.cg = parsed->cache_op == ptx::CacheOp::cg;
  d.hint = parsed->cache_hint;
  op.space = ir::Space::shared;
}

void Parser::createpolicy_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  // The spellings are PTX's, declared once in emitter/ptx (`L2::` + the spec spelling).
  std::size_t k = 0;
  while (k < quals.size() && quals[k].text.starts_with("L2::evict_")) {
    if (!ptx::parse_eviction_priority(quals[k].text.substr(4)))
      fail(DiagId::sim_qualifier, opc,
           "`." + std::string(quals[k].text) + "` is not an L2 eviction priority");
    ++k;
  }
  if (k == 0 || k > 2 || k + 1 != quals.size() || !is_type(quals[k], ptx::ScalarType::b64))
    fail(DiagId::sim_qualifier, opc,
         "expected createpolicy.fractional.L2::evict_*{.L2::evict_*}.b64");
  d.type = *parse_type(ptx::name(ptx::ScalarType::b64));
  op.type = d.type.t;
}

/// setp's `.cmp{.bop}{.ftz}.type` (ptxas takes .bop and .ftz in either order).
void Parser::compare_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  std::size_t k = 1;
  for (; k + 1 < quals.size(); ++k) {
    const std::optional<ptx::Qualifier> w = word(quals[k]);
    if (w == ptx::Qualifier::ftz && !op.ftz)
      op.ftz = true;
    else if (w == ptx::Qualifier::and_ && op.bop == ir::BoolOp::none)
      op.bop = ir::BoolOp::and_;
    else if (w == ptx::Qualifier::or_ && op.bop == ir::BoolOp::none)
      op.bop = ir::BoolOp::or_;
    else if (w == ptx::Qualifier::xor_ && op.bop == ir::BoolOp::none)
      op.bop = ir::BoolOp::xor_;
    else
      break;
  }
  if (quals.size() < 2 || k + 1 != quals.size())
    throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated (only " +
                                                        std::string(ptx::spelling(f.mnemonic)) +
                                                        ".cmp{.and|.or|.xor}{.ftz}.type)"};
  auto cmp = ptx::parse_compare_op(quals[0].text);
  if (!cmp)
    throw Unsupported{DiagId::sim_unsupported_form,
                      "comparison `." + std::string(quals[0].text) + "` is not simulated"};
  op.cmp = *cmp;
  d.type = checked_type(f, opc, quals.back().text);
  op.type = d.type.t;
  if (op.type.num == ir::Num::f16x2 || op.type.num == ir::Num::bf16x2)
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (packed comparisons)"};
  if (d.type.is_float ? integer_only(*cmp) : ptx::float_only(*cmp) || op.ftz)
    fail(DiagId::sim_qualifier, opc,
         quote(opc.text) + ": the comparison or .ftz does not apply to this type");
}

/// atom / red: `{.sem}{.scope}{.space}.op.type`, the first three in any order.
void Parser::atomic_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  std::optional<ir::Space> space;
  std::optional<ir::Atomic> atomic;
  std::optional<std::string_view> type;
  for (const ptx::OpcodeWord& q : quals) {
    const std::optional<ptx::Qualifier> w = word(q);
    if (w == ptx::Qualifier::global || w == ptx::Qualifier::shared ||
        w == ptx::Qualifier::shared_cta || w == ptx::Qualifier::shared_cluster) {
      if (space)
        fail(DiagId::sim_qualifier, opc, "two state spaces");
      space = space_of(*w);
      op.cluster = w == ptx::Qualifier::shared_cluster;
    } else if (w == ptx::Qualifier::relaxed || w == ptx::Qualifier::acquire ||
               w == ptx::Qualifier::release || w == ptx::Qualifier::acq_rel || scope_name(q)) {
      // the simulator runs one thread at a time: every atomic is sequentially consistent
    } else if (auto a = parse_atomic(q); a && !atomic && !type) {
      atomic = a;
    } else if (numeric_type(q.text) && atomic && !type) {
      type = q.text;
    } else {
      throw Unsupported{DiagId::sim_unsupported_form, "`." + std::string(q.text) + "` on " +
                                                          std::string(ptx::spelling(f.mnemonic)) +
                                                          " is not simulated"};
    }
  }
  if (!atomic || !type)
    fail(DiagId::sim_qualifier, opc, quote(opc.text) + " needs an operation and a type");
  d.type = checked_type(f, opc, *type);
  op.type = d.type.t;
  if (d.type.is_float &&
      !(*atomic == ir::Atomic::add && (op.type.num == ir::Num::f32 || op.type.num == ir::Num::f64)))
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (float atomics: .add.f32 and .add.f64)"};
  if (op.type.bits < 32)
    fail(DiagId::sim_qualifier, opc, quote(opc.text) + ": atomics take 32- or 64-bit types");
  op.atomic = *atomic;
  op.strong = true;
  op.space = space.value_or(ir::Space::generic);
}

} // namespace ptxgen::sim::detail
