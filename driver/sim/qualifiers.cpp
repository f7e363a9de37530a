// The simulator's PTX parser: an instruction's qualifiers, read by its form's
// grammar (Quals) with its types checked (Types).

#include "driver/sim/parser_impl.hpp"
#include "emitter/ptx/instruction.hpp"
#include "emitter/ptx/opcode_parser.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <iterator>

namespace ptxgen::sim::detail {
namespace {

/// The setp comparisons, by qualifier: the ten the emitter writes, spelled by it
/// (ptx::CompareOp, whose order ir::Cmp begins with), then the float-only ones.
std::optional<ir::Cmp> parse_cmp(std::string_view s) {
  static_assert(static_cast<unsigned>(ir::Cmp::eq) == static_cast<unsigned>(ptx::CompareOp::eq) &&
                static_cast<unsigned>(ir::Cmp::lt) == static_cast<unsigned>(ptx::CompareOp::lt) &&
                static_cast<unsigned>(ir::Cmp::lo) == static_cast<unsigned>(ptx::CompareOp::lo) &&
                static_cast<unsigned>(ir::Cmp::hs) == static_cast<unsigned>(ptx::CompareOp::hs));
  for (unsigned k = 0; k <= static_cast<unsigned>(ptx::CompareOp::hs); ++k) {
    if (ptx::name(static_cast<ptx::CompareOp>(k)) == s)
      return static_cast<ir::Cmp>(k);
  }
  static constexpr std::pair<std::string_view, ir::Cmp> float_cmps[] = {
      {"equ", ir::Cmp::equ}, {"neu", ir::Cmp::neu}, {"ltu", ir::Cmp::ltu}, {"leu", ir::Cmp::leu},
      {"gtu", ir::Cmp::gtu}, {"geu", ir::Cmp::geu}, {"num", ir::Cmp::num}, {"nan", ir::Cmp::nan}};
  for (const auto& [text, cmp] : float_cmps) {
    if (text == s)
      return cmp;
  }
  return std::nullopt;
}

/// Whether a comparison applies to floats only (equ ... nan) or to integers only (lo ... hs).
bool float_only(ir::Cmp c) {
  return c >= ir::Cmp::equ;
}
bool integer_only(ir::Cmp c) {
  return c == ir::Cmp::lo || c == ir::Cmp::ls || c == ir::Cmp::hi || c == ir::Cmp::hs;
}

/// The rounding modifiers, by qualifier.
std::optional<ir::Round> parse_round(std::string_view s) {
  static constexpr std::pair<std::string_view, ir::Round> rounds[] = {
      {"rn", ir::Round::rn},   {"rz", ir::Round::rz},   {"rm", ir::Round::rm},
      {"rp", ir::Round::rp},   {"rni", ir::Round::rni}, {"rzi", ir::Round::rzi},
      {"rmi", ir::Round::rmi}, {"rpi", ir::Round::rpi}};
  for (const auto& [text, r] : rounds) {
    if (text == s)
      return r;
  }
  return std::nullopt;
}

/// prmt's modes, by qualifier.
std::optional<ir::Permute> parse_permute(std::string_view s) {
  static constexpr std::pair<std::string_view, ir::Permute> modes[] = {
      {"f4e", ir::Permute::f4e}, {"b4e", ir::Permute::b4e}, {"rc8", ir::Permute::rc8},
      {"ecl", ir::Permute::ecl}, {"ecr", ir::Permute::ecr}, {"rc16", ir::Permute::rc16}};
  for (const auto& [text, m] : modes) {
    if (text == s)
      return m;
  }
  return std::nullopt;
}

/// ld / st qualifiers that are hints to the memory system: cache operators,
/// eviction priorities, prefetch sizes.
bool memory_hint(std::string_view q) {
  static constexpr std::string_view hints[] = {"ca",
                                               "cg",
                                               "cs",
                                               "lu",
                                               "cv",
                                               "wb",
                                               "wt",
                                               "nc",
                                               "volatile",
                                               "weak",
                                               "L2::64B",
                                               "L2::128B",
                                               "L2::256B",
                                               "L1::no_allocate",
                                               "L1::evict_normal",
                                               "L1::evict_unchanged",
                                               "L1::evict_first",
                                               "L1::evict_last",
                                               "L2::evict_normal",
                                               "L2::evict_first",
                                               "L2::evict_last"};
  return std::find(std::begin(hints), std::end(hints), q) != std::end(hints);
}

/// The qualifiers of the mbarrier family: `.sem .scope .space .b64` in any order,
/// `.noinc` on cp.async.mbarrier.arrive. Returns an error for the parser to report, or sets
/// op.space (shared, or generic when no space is named), op.noinc and the .b64 type. Forms
/// the simulator does not model (other CTAs' barriers, `.acquire.cluster` waits) are simulated
/// as their CTA-local meaning: with one CTA per cluster `.shared::cluster` names this CTA.
std::optional<std::string> mbarrier_qualifiers(ir::Op& op,
                                               std::span<const std::string_view> quals) {
  bool b64 = false, space = false;
  op.space = ir::Space::generic;
  for (std::string_view q : quals) {
    if (q == "b64" && !b64) {
      b64 = true;
    } else if ((q == "shared" || q == "shared::cta" || q == "shared::cluster") && !space) {
      space = true;
      op.space = ir::Space::shared;
    } else if (q == "release" || q == "relaxed" || q == "acquire" || q == "cta" || q == "cluster") {
      // memory-model qualifiers: the simulator's ordering is exact at CTA scope
    } else if (q == "noComplete" && op.code == ir::Code::mbar_arrive) {
      // an arrival the program promises does not complete the phase (libcu++ -G's
      // arrive(n)); the simulator checks nothing more than for a plain arrive
    } else if (q == "noinc" && op.code == ir::Code::cp_mbar_arrive && !op.noinc) {
      op.noinc = true;
    } else {
      return "`." + std::string(q) + "` is not an mbarrier qualifier here";
    }
  }
  if (!b64)
    return "mbarrier instructions take `.b64`";
  op.type = ir::Type{64, false};
  return std::nullopt;
}

/// cp.async.bulk's qualifiers: `.shared::{cta,cluster} .global .mbarrier::complete_tx::bytes`
/// {.L2::cache_hint}. Other bulk forms (bulk_group completion, multicast, prefetch, tensor) are
/// not simulated.
std::optional<std::string> bulk_qualifiers(ir::Op& op, Decoded& d,
                                           std::span<const std::string_view> quals) {
  static constexpr std::string_view order[] = {"global", "mbarrier::complete_tx::bytes"};
  if (quals.empty() || (quals[0] != "shared::cluster" && quals[0] != "shared::cta"))
    throw Unsupported{
        DiagId::sim_unsupported_form,
        "only cp.async.bulk.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes "
        "is simulated"};
  if (quals.size() < 3 || quals[1] != order[0] || quals[2] != order[1])
    throw Unsupported{
        DiagId::sim_unsupported_form,
        "only cp.async.bulk.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes "
        "is simulated"};
  for (std::string_view q : quals.subspan(3)) {
    if (q == "L2::cache_hint" && !d.hint)
      d.hint = true;
    else if (q == "multicast::cluster")
      throw Unsupported{DiagId::sim_unsupported_form, "multicast bulk copies are not simulated"};
    else
      return "`." + std::string(q) + "` is not a cp.async.bulk qualifier";
  }
  op.space = ir::Space::shared;
  return std::nullopt;
}

/// fence.proxy.async{.global|.shared::{cta,cluster}} and fence.mbarrier_init.release.cluster.
bool fence_qualifiers_ok(std::string_view mnemonic, std::span<const std::string_view> quals) {
  if (mnemonic == "fence.mbarrier_init")
    return quals.size() == 2 && quals[0] == "release" && quals[1] == "cluster";
  return quals.empty() ||
         (quals.size() == 1 &&
          (quals[0] == "global" || quals[0] == "shared::cta" || quals[0] == "shared::cluster"));
}

/// The memory-model scopes.
bool scope_name(std::string_view q) {
  return q == "cta" || q == "cluster" || q == "gpu" || q == "sys";
}

/// The semantics that make an ld/st strong (`.weak` is the default: not strong).
bool strong_qualifier(std::string_view q) {
  return q == "volatile" || q == "relaxed" || q == "acquire" || q == "release";
}

/// fence.sc / fence.acq_rel take one scope; membar one level (`.cta .gl .sys`).
bool scope_qualifier_ok(std::string_view mnemonic, std::span<const std::string_view> quals) {
  if (quals.size() != 1)
    return false;
  if (mnemonic == "membar")
    return quals[0] == "cta" || quals[0] == "gl" || quals[0] == "sys";
  return scope_name(quals[0]);
}

/// atom / red's operations, by qualifier.
std::optional<ir::Atomic> parse_atomic(std::string_view s) {
  static constexpr std::pair<std::string_view, ir::Atomic> ops[] = {
      {"add", ir::Atomic::add}, {"inc", ir::Atomic::inc},   {"dec", ir::Atomic::dec},
      {"cas", ir::Atomic::cas}, {"exch", ir::Atomic::exch}, {"min", ir::Atomic::min},
      {"max", ir::Atomic::max}, {"and", ir::Atomic::and_},  {"or", ir::Atomic::or_},
      {"xor", ir::Atomic::xor_}};
  for (const auto& [text, a] : ops) {
    if (text == s)
      return a;
  }
  return std::nullopt;
}

/// prefetch{.global|.local}.L1|.L2|.L2::evict_last|.L2::evict_normal (prefetchu: .L1): the
/// first qualifier outside these, if any.
std::optional<std::string_view> prefetch_qualifiers(std::span<const std::string_view> quals) {
  for (std::string_view q : quals) {
    if (q != "global" && q != "L1" && q != "L2" && q != "L2::evict_last" && q != "L2::evict_normal")
      return q;
  }
  return std::nullopt;
}

} // namespace

std::string quote(std::string_view s) {
  return "`" + std::string(s) + "`";
}

std::optional<TypeInfo> numeric_type(std::string_view s) {
  static constexpr std::pair<std::string_view, ir::Type> floats[] = {
      {"f16", {16, false, ir::Num::f16}},     {"bf16", {16, false, ir::Num::bf16}},
      {"f32", {32, false, ir::Num::f32}},     {"f64", {64, false, ir::Num::f64}},
      {"f16x2", {32, false, ir::Num::f16x2}}, {"bf16x2", {32, false, ir::Num::bf16x2}}};
  for (const auto& [name, t] : floats) {
    if (name == s)
      return TypeInfo{t, true, false, false};
  }
  return parse_type(s);
}

TypeInfo Parser::checked_type(const Form& f, const Token& opc, std::string_view part) {
  auto t = numeric_type(part);
  if (!t)
    fail(DiagId::sim_qualifier, opc, quote(part) + " is not a PTX type");
  std::string root(split_dots(f.mnemonic).front());
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
  switch (f.types) {
  case Types::none:
    fail(DiagId::sim_qualifier, opc, quote(f.mnemonic) + " takes no type");
  case Types::any:
    break;
  case Types::value:
    no_pred();
    break;
  case Types::integer:
    no_float();
    no_pred();
    break;
  case Types::integer_or_pred:
    no_float();
    break;
  case Types::narrow_integer:
    no_float();
    no_pred();
    if (t->t.bits > 32)
      fail(DiagId::sim_qualifier, opc, quote(f.mnemonic) + " takes 16- or 32-bit sources");
    break;
  case Types::address:
    if ((t->t.bits != 32 && t->t.bits != 64) || t->is_float || t->is_pred)
      fail(DiagId::sim_qualifier, opc, quote(f.mnemonic) + " takes .u32 or .u64");
    break;
  case Types::numeric:
    no_pred();
    break;
  case Types::floating:
    if (!t->is_float)
      fail(DiagId::sim_qualifier, opc, quote(opc.text) + " takes a floating-point type");
    break;
  }
  return *t;
}

Decoded Parser::qualifiers(const Form& f, ir::Op& op, const Token& opc,
                           std::span<const std::string_view> quals) {
  Decoded d;
  const QualifierInput in{f, op, d, opc, quals};
  switch (f.quals) {
  case Quals::none:
    if (!quals.empty())
      fail(DiagId::sim_qualifier, opc,
           "unexpected qualifier `." + std::string(quals.front()) + "` on " + quote(f.mnemonic));
    break;
  case Quals::uni:
    if (quals.size() > 1 || (quals.size() == 1 && quals[0] != "uni"))
      fail(DiagId::sim_qualifier, opc, "unexpected qualifiers on " + quote(opc.text));
    break;
  case Quals::aligned:
    if (quals.size() > 1 || (quals.size() == 1 && quals[0] != "aligned"))
      throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated (only " +
                                                          std::string(f.mnemonic) +
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
    d.type = *parse_type("b64");
    break;
  case Quals::bulk:
    if (auto bad = bulk_qualifiers(op, d, quals))
      fail(DiagId::sim_qualifier, opc, *bad);
    d.type = *parse_type("u32");
    op.type = d.type.t;
    break;
  case Quals::fence:
    if (!fence_qualifiers_ok(f.mnemonic, quals))
      throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated"};
    break;
  case Quals::space:
    space_qualifier(in);
    break;
  case Quals::ldmatrix:
    ldmatrix_qualifiers(in);
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
    if (auto bad = prefetch_qualifiers(quals))
      throw Unsupported{DiagId::sim_unsupported_form,
                        quote(opc.text) + " is not simulated (`." + std::string(*bad) + "`)"};
    break;
  }
  return d;
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
    d.type = checked_type(f, opc, quals[0]);
    op.type = d.type.t;
    return;
  case Quals::type_type:
    if (quals.size() != 2)
      throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated (only " +
                                                          std::string(f.mnemonic) +
                                                          ".dtype.stype)"};
    d.type = checked_type(f, opc, quals[0]);
    d.from = checked_type(f, opc, quals[1]);
    op.type = d.type.t;
    op.type2 = d.from.t;
    return;
  case Quals::bfind:
    op.shiftamt = !quals.empty() && quals[0] == "shiftamt";
    if (quals.size() != (op.shiftamt ? 2u : 1u))
      throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated"};
    d.type = checked_type(f, opc, quals.back());
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
  static constexpr std::pair<std::string_view, ir::Shuffle> shuffles[] = {
      {"up", ir::Shuffle::up},
      {"down", ir::Shuffle::down},
      {"bfly", ir::Shuffle::bfly},
      {"idx", ir::Shuffle::idx}};
  static constexpr std::pair<std::string_view, ir::Vote> votes[] = {{"all", ir::Vote::all},
                                                                    {"any", ir::Vote::any},
                                                                    {"uni", ir::Vote::uni},
                                                                    {"ballot", ir::Vote::ballot}};
  bool known = false;
  if (quals.size() == 2) {
    for (const auto& [text, m] : shuffles)
      if (f.quals == Quals::shfl && text == quals[0] && quals[1] == "b32")
        known = true, op.shuffle = m;
    for (const auto& [text, m] : votes)
      if (f.quals == Quals::vote && text == quals[0] &&
          quals[1] == (m == ir::Vote::ballot ? "b32" : "pred"))
        known = true, op.vote = m;
  }
  if (!known)
    throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated"};
  d.type = *parse_type(quals[1]);
  op.type = d.type.t;
}

void Parser::memory_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  std::optional<ir::Space> space;
  std::optional<std::string_view> type;
  for (std::string_view q : quals) {
    if (q == "param" || q == "global" || q == "shared" || q == "shared::cta") {
      if (space)
        fail(DiagId::sim_qualifier, opc, "two state spaces");
      space = q == "param"    ? ir::Space::param
              : q == "global" ? ir::Space::global
                              : ir::Space::shared;
    } else if (q == "const") {
      if (space)
        fail(DiagId::sim_qualifier, opc, "two state spaces");
      space = ir::Space::global; // the module's .const variables live in the global space
    } else if (q == "local") {
      if (space)
        fail(DiagId::sim_qualifier, opc, "two state spaces");
      space = ir::Space::local;
    } else if (q == "shared::cluster" || q == "tex") {
      throw Unsupported{DiagId::sim_unsupported_form,
                        "the ." + std::string(q) + " state space is not simulated"};
    } else if (q == "v2" || q == "v4") {
      op.vec = q == "v2" ? 2 : 4;
    } else if (q == "L2::cache_hint") {
      d.hint = true; // a policy operand follows the address / data
    } else if (strong_qualifier(q)) {
      op.strong = true; // .volatile / .relaxed / .acquire / .release: see ir::Op::strong
    } else if (scope_name(q)) {
      // the scope of a strong access: one CTA is simulated, every scope includes it
    } else if (memory_hint(q)) {
      // cache operators, eviction priorities and prefetch sizes are hints
    } else if (numeric_type(q)) {
      if (type)
        fail(DiagId::sim_qualifier, opc, "two types");
      type = q;
    } else {
      throw Unsupported{DiagId::sim_unsupported_form, "`." + std::string(q) + "` on " +
                                                          std::string(f.mnemonic) +
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
  if (quals.empty())
    fail(DiagId::sim_qualifier, opc, quote(opc.text) + " needs a type");
  for (std::string_view q : quals.first(quals.size() - 1)) {
    auto r = parse_round(q);
    if (r && *r <= ir::Round::rp && op.round == ir::Round::none)
      op.round = *r;
    else if (q == "ftz" && !op.ftz)
      op.ftz = true;
    else if (q == "sat" && !op.sat)
      op.sat = true;
    else
      throw Unsupported{DiagId::sim_unsupported_form,
                        quote(opc.text) + " is not simulated (`." + std::string(q) + "`)"};
  }
  d.type = checked_type(f, opc, quals.back());
  op.type = d.type.t;
  const bool add_sub = op.code == ir::Code::add || op.code == ir::Code::sub;
  if (!d.type.is_float && (op.round != ir::Round::none || op.ftz ||
                           (op.sat && !(add_sub && op.type.bits == 32 && op.type.is_signed))))
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (integer rounding or saturation)"};
  if (op.type.num == ir::Num::f64 && op.code == ir::Code::fma && op.round != ir::Round::rn)
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (f64 fma rounds only to nearest here)"};
}

/// `cvt{.rnd}{.ftz}{.sat}.dtype.atype`.
void Parser::cvt_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  if (quals.size() < 2)
    fail(DiagId::sim_qualifier, opc, "expected cvt{.rnd}{.ftz}{.sat}.dtype.atype");
  for (std::string_view q : quals.first(quals.size() - 2)) {
    auto r = parse_round(q);
    if (r && op.round == ir::Round::none)
      op.round = *r;
    else if (q == "ftz" && !op.ftz)
      op.ftz = true;
    else if (q == "sat" && !op.sat)
      op.sat = true;
    else
      throw Unsupported{DiagId::sim_unsupported_form,
                        quote(opc.text) + " is not simulated (`." + std::string(q) + "`)"};
  }
  d.type = checked_type(f, opc, quals[quals.size() - 2]);
  d.from = checked_type(f, opc, quals.back());
  op.type = d.type.t;
  op.type2 = d.from.t;
  auto packed = [](ir::Num n) { return n == ir::Num::f16x2 || n == ir::Num::bf16x2; };
  if (packed(op.type2.num) || (packed(op.type.num) && op.type2.num != ir::Num::f32))
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) +
                          " is not simulated (packed: only .f16x2/.bf16x2 from .f32)"};
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
    if (quals.size() != 3 || (quals[0] != "l" && quals[0] != "r") ||
        (quals[1] != "wrap" && quals[1] != "clamp"))
      fail(DiagId::sim_qualifier, opc, "expected shf.{l,r}.{wrap,clamp}.b32");
    op.left = quals[0] == "l";
    op.clamp = quals[1] == "clamp";
    type_at = 2;
  }
  if (quals[type_at] != "b32")
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (only .b32)"};
  d.type = *parse_type("b32");
  op.type = d.type.t;
}

/// ldmatrix.sync.aligned.m8n8.x1|.x2|.x4{.trans}.shared{::cta}.b16 (other shapes unsupported).
void Parser::ldmatrix_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  std::size_t k = 0;
  // The qualifiers by name, not by the structured binding (clang 14 cannot capture one).
  auto take = [&k, qs = in.quals](std::string_view q) {
    const bool here = k < qs.size() && qs[k] == q;
    k += here ? 1 : 0;
    return here;
  };
  if (!take("sync") || !take("aligned"))
    fail(DiagId::sim_qualifier, opc, "ldmatrix needs .sync.aligned");
  if (!take("m8n8"))
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (only the .m8n8 shape)"};
  op.vec = take("x1") ? 1 : take("x2") ? 2 : take("x4") ? 4 : 0;
  if (op.vec == 0)
    fail(DiagId::sim_qualifier, opc, "ldmatrix needs .x1, .x2 or .x4");
  op.trans = take("trans");
  if (!take("shared") && !take("shared::cta"))
    fail(DiagId::sim_qualifier, opc, "ldmatrix reads .shared");
  if (!take("b16") || k != quals.size())
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (only .b16 elements)"};
  op.space = ir::Space::shared;
  d.type = *parse_type("b16");
  op.type = d.type.t;
}

void Parser::cvta_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  std::size_t k = 0;
  op.to = k < quals.size() && quals[k] == "to";
  if (op.to)
    ++k;
  if (quals.size() != k + 2)
    fail(DiagId::sim_qualifier, opc, "expected cvta{.to}.space.type");
  std::string_view sp = quals[k];
  if (sp == "global")
    op.space = ir::Space::global;
  else if (sp == "shared" || sp == "shared::cta")
    op.space = ir::Space::shared;
  else if (sp == "local")
    op.space = ir::Space::local;
  else
    throw Unsupported{DiagId::sim_unsupported_form,
                      "cvta for ." + std::string(sp) + " is not simulated"};
  d.type = checked_type(f, opc, quals[k + 1]);
  op.type = d.type.t;
}

/// The copy: cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB}, read by the
/// emitter's opcode grammar (ptx::parse_opcode), so that the two read cp.async alike. Its
/// rejection is this parser's sim_qualifier error, with the emitter's words and caret.
void Parser::cp_async_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  if (!quals.empty() && quals[0] == "mbarrier")
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
  while (k < quals.size() && quals[k].starts_with("L2::evict_")) {
    if (!ptx::parse_eviction_priority(quals[k].substr(4)))
      fail(DiagId::sim_qualifier, opc,
           "`." + std::string(quals[k]) + "` is not an L2 eviction priority");
    ++k;
  }
  if (k == 0 || k > 2 || k + 1 != quals.size() || quals[k] != "b64")
    fail(DiagId::sim_qualifier, opc,
         "expected createpolicy.fractional.L2::evict_*{.L2::evict_*}.b64");
  d.type = *parse_type("b64");
  op.type = d.type.t;
}

/// setp's `.cmp{.ftz}.type`.
void Parser::compare_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  op.ftz = quals.size() == 3 && quals[1] == "ftz";
  if (quals.size() != (op.ftz ? 3u : 2u))
    throw Unsupported{DiagId::sim_unsupported_form, quote(opc.text) + " is not simulated (only " +
                                                        std::string(f.mnemonic) +
                                                        ".cmp{.ftz}.type)"};
  auto cmp = parse_cmp(quals[0]);
  if (!cmp)
    throw Unsupported{DiagId::sim_unsupported_form,
                      "comparison `." + std::string(quals[0]) + "` is not simulated"};
  op.cmp = *cmp;
  d.type = checked_type(f, opc, quals.back());
  op.type = d.type.t;
  if (op.type.num == ir::Num::f16x2 || op.type.num == ir::Num::bf16x2)
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (packed comparisons)"};
  if (d.type.is_float ? integer_only(*cmp) : float_only(*cmp) || op.ftz)
    fail(DiagId::sim_qualifier, opc,
         quote(opc.text) + ": the comparison or .ftz does not apply to this type");
}

/// atom / red: `{.sem}{.scope}{.space}.op.type`, the first three in any order.
void Parser::atomic_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  std::optional<ir::Space> space;
  std::optional<ir::Atomic> atomic;
  std::optional<std::string_view> type;
  for (std::string_view q : quals) {
    if (q == "global" || q == "shared" || q == "shared::cta") {
      if (space)
        fail(DiagId::sim_qualifier, opc, "two state spaces");
      space = q == "global" ? ir::Space::global : ir::Space::shared;
    } else if (q == "relaxed" || q == "acquire" || q == "release" || q == "acq_rel" ||
               scope_name(q)) {
      // the simulator runs one thread at a time: every atomic is sequentially consistent
    } else if (auto a = parse_atomic(q); a && !atomic && !type) {
      atomic = a;
    } else if (numeric_type(q) && atomic && !type) {
      type = q;
    } else {
      throw Unsupported{DiagId::sim_unsupported_form, "`." + std::string(q) + "` on " +
                                                          std::string(f.mnemonic) +
                                                          " is not simulated"};
    }
  }
  if (!atomic || !type)
    fail(DiagId::sim_qualifier, opc, quote(opc.text) + " needs an operation and a type");
  d.type = checked_type(f, opc, *type);
  op.type = d.type.t;
  if (op.type.bits < 32)
    fail(DiagId::sim_qualifier, opc, quote(opc.text) + ": atomics take 32- or 64-bit types");
  op.atomic = *atomic;
  op.strong = true;
  op.space = space.value_or(ir::Space::generic);
}

} // namespace ptxgen::sim::detail
