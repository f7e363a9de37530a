#include "emitter/lower/lower.hpp"

#include "emitter/lower/abi.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/tile/contract.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace ptxgen::lower {

namespace {

using namespace ptxgen::ptx;
using tile::Expr;
using tile::ExprKind;
using tile::ExprOp;
using tile::ExprPtr;

/// A linear combination of "atoms" (leaves, or sub-expressions that are not
/// linear) with integer coefficients, plus a constant. Address arithmetic is
/// built from it so that constants fold into [reg+imm] and warp/lane pairs
/// that recombine into tid are recombined.
struct Linear {
  struct Term {
    ExprPtr atom;
    std::int64_t coeff = 0;
  };
  std::map<std::string, Term> terms; ///< keyed by the atom's canonical text
  std::int64_t constant = 0;
  /// A constant already added into the address register (see address()).
  std::int64_t folded = 0;

  void add(const Linear& o, std::int64_t scale) {
    constant += o.constant * scale;
    for (const auto& [k, t] : o.terms) {
      auto& slot = terms[k];
      slot.atom = t.atom;
      slot.coeff += t.coeff * scale;
      if (slot.coeff == 0)
        terms.erase(k);
    }
  }
  void add_atom(const ExprPtr& atom, std::int64_t coeff) {
    if (coeff == 0)
      return;
    std::string key = tile::print(*atom);
    auto& slot = terms[key];
    slot.atom = atom;
    slot.coeff += coeff;
    if (slot.coeff == 0)
      terms.erase(key);
  }
  /// The canonical text of the non-constant part, for caching address registers.
  std::string key() const {
    std::string s;
    for (const auto& [k, t] : terms)
      s += std::to_string(t.coeff) + "*(" + k + ")+";
    return s;
  }
};

Linear linearize(const ExprPtr& e) {
  Linear l;
  if (auto c = tile::constant_value(*e)) {
    l.constant = *c;
    return l;
  }
  if (e->kind == ExprKind::binary) {
    const auto& a = e->args[0];
    const auto& b = e->args[1];
    switch (e->op) {
    case ExprOp::add:
      l.add(linearize(a), 1);
      l.add(linearize(b), 1);
      return l;
    case ExprOp::sub:
      l.add(linearize(a), 1);
      l.add(linearize(b), -1);
      return l;
    case ExprOp::mul:
      if (auto c = tile::constant_value(*b)) {
        l.add(linearize(a), *c);
        return l;
      }
      if (auto c = tile::constant_value(*a)) {
        l.add(linearize(b), *c);
        return l;
      }
      break;
    case ExprOp::shl:
      if (auto c = tile::constant_value(*b); c && *c >= 0 && *c < 31) {
        l.add(linearize(a), std::int64_t{1} << *c);
        return l;
      }
      break;
    default:
      break;
    }
  }
  if (e->kind == ExprKind::unary && e->op == ExprOp::neg) {
    l.add(linearize(e->args[0]), -1);
    return l;
  }
  l.add_atom(e, 1);
  return l;
}

/// warp*32c + lane*c == tid*c for every tid >= 0: recombine such pairs.
void recombine_warp_lane(Linear& l) {
  auto w = l.terms.find("warp");
  auto n = l.terms.find("lane");
  if (w == l.terms.end() || n == l.terms.end())
    return;
  std::int64_t c = n->second.coeff;
  if (w->second.coeff != 32 * c)
    return;
  l.terms.erase("warp");
  l.terms.erase("lane");
  l.add_atom(tile::make_leaf(ExprKind::tid), c);
}

class Lowerer {
public:
  Lowerer(const tile::Kernel& k, const LowerOptions& o) : k_(k), o_(o) {}

  Module run() {
    Module m;
    m.header_comments = o_.header_comments;
    m.version = o_.version;
    m.target = o_.target;
    Entry e;
    e.name = k_.name;
    for (const auto& p : kernel_params(k_))
      e.params.push_back(
          {p.ptx_name, p.kind == ParamBinding::Kind::u32 ? ScalarType::u32 : ScalarType::u64});
    for (const auto& t : k_.tensors)
      if (t->tensor.space == tile::Space::shared)
        e.shared.push_back({shared_symbol(t->tensor), std::max<std::uint32_t>(t->tensor.align, 16),
                            static_cast<std::uint64_t>(t->tensor.size_bytes())});
    e.reqntid = static_cast<std::uint32_t>(k_.block);
    entry_ = &e;
    for (const auto& op : k_.ops)
      std::visit([&](const auto& body) { lower(body); }, op.body);
    emit(Ret{});
    m.entries.push_back(std::move(e));
    return m;
  }

private:
  const tile::Kernel& k_;
  const LowerOptions& o_;
  Entry* entry_ = nullptr;
  std::map<std::string, Register> value_cache_;   ///< u32 values by expression text
  std::map<std::string, Register> pred_cache_;    ///< predicates by expression text
  std::map<std::string, Register> base_cache_;    ///< tensor base addresses
  std::map<std::string, Register> address_cache_; ///< per-thread addresses by tensor + linear key
  std::map<std::string, Register> policy_cache_;

  Register reg(RegClass c) { return entry_->registers.make(c); }
  void emit(InstructionBody b, std::optional<Guard> g = std::nullopt, std::string comment = {}) {
    entry_->body.push_back(Instruction{g, std::move(b), std::move(comment)});
  }

  // --- values ---------------------------------------------------------------

  Register leaf(ExprKind kind, const std::string& pname = {}) {
    std::string key =
        kind == ExprKind::param ? "param:" + pname : tile::print(*tile::make_leaf(kind, pname));
    if (auto it = value_cache_.find(key); it != value_cache_.end())
      return it->second;
    // warp and lane are computed from tid, which is defined first.
    const bool from_tid = kind == ExprKind::warp || kind == ExprKind::lane;
    const Register tid = from_tid ? leaf(ExprKind::tid) : Register{};
    Register r = reg(RegClass::b32);
    switch (kind) {
    case ExprKind::tid:
      emit(Mov{ScalarType::u32, r, SpecialRegister::tid_x});
      break;
    case ExprKind::bid:
      emit(Mov{ScalarType::u32, r, SpecialRegister::ctaid_x});
      break;
    case ExprKind::warp:
      emit(Binary{BinaryOp::shr, ScalarType::u32, r, tid, Immediate{5}});
      break;
    case ExprKind::lane:
      emit(Binary{BinaryOp::and_, ScalarType::b32, r, tid, Immediate{31}});
      break;
    case ExprKind::param:
      emit(Ld{StateSpace::param, ScalarType::u32, {r}, Address{Symbol{"arg_" + pname}, 0}});
      break;
    default:
      break;
    }
    value_cache_[key] = r;
    return r;
  }

  static bool is_predicate_op(ExprOp op) {
    switch (op) {
    case ExprOp::lt:
    case ExprOp::le:
    case ExprOp::gt:
    case ExprOp::ge:
    case ExprOp::eq:
    case ExprOp::ne:
    case ExprOp::logical_and:
    case ExprOp::logical_or:
    case ExprOp::logical_not:
      return true;
    default:
      return false;
    }
  }

  /// The u32 value of e: an immediate when constant, else a register.
  Operand value(const ExprPtr& e) {
    if (auto c = tile::constant_value(*e))
      return Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(*c))};
    switch (e->kind) {
    case ExprKind::tid:
    case ExprKind::bid:
    case ExprKind::warp:
    case ExprKind::lane:
      return leaf(e->kind);
    case ExprKind::param:
      return leaf(e->kind, e->name);
    default:
      break;
    }
    std::string key = tile::print(*e);
    if (auto it = value_cache_.find(key); it != value_cache_.end())
      return it->second;
    // Operands first, then the result register: registers are numbered in
    // order of definition.
    auto result = [&] { return reg(RegClass::b32); };
    Register r;
    if (e->kind == ExprKind::select) {
      Guard g = predicate(e->args[0]);
      Operand a = value(e->args[1]);
      Operand b = value(e->args[2]);
      if (g.negated)
        std::swap(a, b);
      r = result();
      emit(Selp{ScalarType::u32, r, a, b, g.predicate});
    } else if (is_predicate_op(e->op)) {
      Guard g = predicate(e);
      r = result();
      emit(Selp{ScalarType::u32, r, Immediate{g.negated ? 0 : 1}, Immediate{g.negated ? 1 : 0},
                g.predicate});
    } else if (e->kind == ExprKind::unary) { // neg
      Register x = operand_reg(value(e->args[0]));
      r = result();
      emit(Binary{BinaryOp::sub, ScalarType::u32, r, Immediate{0}, x});
    } else {
      BinaryOp op = BinaryOp::add;
      ScalarType type = ScalarType::u32;
      bool commutative = true;
      switch (e->op) {
      case ExprOp::add:
        op = BinaryOp::add;
        break;
      case ExprOp::sub:
        op = BinaryOp::sub;
        commutative = false;
        break;
      case ExprOp::mul:
        op = BinaryOp::mul_lo;
        break;
      case ExprOp::div:
        op = BinaryOp::div;
        commutative = false;
        break;
      case ExprOp::rem:
        op = BinaryOp::rem;
        commutative = false;
        break;
      case ExprOp::shl:
        op = BinaryOp::shl;
        type = ScalarType::b32;
        commutative = false;
        break;
      case ExprOp::shr:
        op = BinaryOp::shr;
        commutative = false;
        break;
      case ExprOp::bit_and:
        op = BinaryOp::and_;
        type = ScalarType::b32;
        break;
      case ExprOp::bit_or:
        op = BinaryOp::or_;
        type = ScalarType::b32;
        break;
      default:
        break;
      }
      Operand a = value(e->args[0]);
      Operand b = value(e->args[1]);
      if (std::holds_alternative<Immediate>(a)) {
        if (commutative)
          std::swap(a, b);
        else
          a = operand_reg(a);
      }
      r = result();
      emit(Binary{op, type, r, a, b});
    }
    value_cache_[key] = r;
    return r;
  }

  /// An operand in a register (moves an immediate into one).
  Register operand_reg(const Operand& o) {
    if (const auto* r = std::get_if<Register>(&o))
      return *r;
    Register r = reg(RegClass::b32);
    emit(Mov{ScalarType::u32, r, o});
    return r;
  }

  static CompareOp compare_op(ExprOp op) {
    switch (op) {
    case ExprOp::lt:
      return CompareOp::lo;
    case ExprOp::le:
      return CompareOp::ls;
    case ExprOp::gt:
      return CompareOp::hi;
    case ExprOp::ge:
      return CompareOp::hs;
    case ExprOp::eq:
      return CompareOp::eq;
    default:
      return CompareOp::ne;
    }
  }
  static CompareOp swapped(CompareOp c) {
    switch (c) {
    case CompareOp::lo:
      return CompareOp::hi;
    case CompareOp::ls:
      return CompareOp::hs;
    case CompareOp::hi:
      return CompareOp::lo;
    case CompareOp::hs:
      return CompareOp::ls;
    default:
      return c;
    }
  }

  /// e as a guard: a predicate register, possibly negated (so `!c` costs nothing).
  Guard predicate(const ExprPtr& e) {
    if (e->kind == ExprKind::unary && e->op == ExprOp::logical_not) {
      Guard g = predicate(e->args[0]);
      g.negated = !g.negated;
      return g;
    }
    std::string key = tile::print(*e);
    if (auto it = pred_cache_.find(key); it != pred_cache_.end())
      return Guard{it->second, false};
    Register p;
    if (auto c = tile::constant_value(*e)) {
      p = reg(RegClass::pred);
      emit(Mov{ScalarType::pred, p, Immediate{*c != 0 ? 1 : 0}});
    } else if (e->kind == ExprKind::binary &&
               (e->op == ExprOp::logical_and || e->op == ExprOp::logical_or)) {
      Register a = materialise(predicate(e->args[0]));
      Register b = materialise(predicate(e->args[1]));
      p = reg(RegClass::pred);
      emit(Binary{e->op == ExprOp::logical_and ? BinaryOp::and_ : BinaryOp::or_, ScalarType::pred,
                  p, a, b});
    } else if (e->kind == ExprKind::binary && is_predicate_op(e->op)) {
      CompareOp cmp = compare_op(e->op);
      Operand a = value(e->args[0]);
      Operand b = value(e->args[1]);
      if (std::holds_alternative<Immediate>(a)) {
        std::swap(a, b);
        cmp = swapped(cmp);
      }
      p = reg(RegClass::pred);
      emit(Setp{cmp, ScalarType::u32, p, a, b});
    } else {
      Operand v = value(e);
      p = reg(RegClass::pred);
      emit(Setp{CompareOp::ne, ScalarType::u32, p, v, Immediate{0}});
    }
    pred_cache_[key] = p;
    return Guard{p, false};
  }

  Register materialise(Guard g) {
    if (!g.negated)
      return g.predicate;
    Register p = reg(RegClass::pred);
    emit(Unary{UnaryOp::not_, ScalarType::pred, p, g.predicate});
    return p;
  }

  // --- addresses --------------------------------------------------------------

  Register tensor_base(const tile::Tensor& t) {
    if (auto it = base_cache_.find(t.name); it != base_cache_.end())
      return it->second;
    Register r;
    if (t.space == tile::Space::global) {
      Register raw = reg(RegClass::b64);
      emit(Ld{StateSpace::param, ScalarType::u64, {raw}, Address{Symbol{"arg_" + t.name}, 0}});
      r = reg(RegClass::b64);
      emit(Cvta{StateSpace::global, ScalarType::u64, r, raw});
    } else {
      r = reg(RegClass::b32);
      emit(Mov{ScalarType::u32, r, Symbol{shared_symbol(t)}});
    }
    base_cache_[t.name] = r;
    return r;
  }

  /// The thread-dependent part of a view's address as a linear form. With
  /// `group_axes` == 2, the first two axes are bound to (warp, lane).
  static Linear thread_linear(const tile::View& v, std::size_t group_axes) {
    Linear l;
    l.constant = v.offset_bytes;
    for (const auto& t : v.terms)
      l.add(linearize(t.index), t.stride_bytes);
    if (group_axes == 2) {
      l.add_atom(tile::make_leaf(ExprKind::warp), v.axes[0].stride_bytes);
      l.add_atom(tile::make_leaf(ExprKind::lane), v.axes[1].stride_bytes);
    }
    recombine_warp_lane(l);
    return l;
  }

  /// The largest power of two (up to 16) that divides the register part of
  /// the address for every thread.
  static std::int64_t register_alignment(const tile::Tensor& t, const Linear& l) {
    std::int64_t a = std::min<std::int64_t>(t.align, 16);
    for (const auto& [k, term] : l.terms)
      a = std::gcd(a, term.coeff < 0 ? -term.coeff : term.coeff);
    if (l.folded != 0)
      a = std::gcd(a, l.folded < 0 ? -l.folded : l.folded);
    return a;
  }

  /// A register holding base(t) + the non-constant part of l; the constant
  /// part is left in l.constant for the caller to fold into [reg+imm].
  /// When a coefficient is negative (`127 - tid`), the non-constant part alone
  /// would be negative, so the constant goes into the register instead: the
  /// register then holds the true offset, which the contract proved lies in
  /// 0..size-1, and no address arithmetic relies on wrapping.
  ///
  /// The same holds when an atom itself may be negative or leave 32 bits
  /// (`tid < 1 ? -1 : 0` inside an index): its register holds the value
  /// modulo 2^32, which `mad.wide.u32` would widen to a huge offset.
  Register address(const tile::Tensor& t, Linear& l) {
    const tile::LaunchBounds lb = k_.launch_bounds();
    bool any_negative = std::any_of(l.terms.begin(), l.terms.end(), [&](const auto& kv) {
      auto b = tile::bounds(*kv.second.atom, lb);
      return kv.second.coeff < 0 || !b || b->lo < 0 || b->hi > 0xFFFFFFFF;
    });
    if (any_negative && l.folded == 0) {
      l.folded = l.constant;
      l.constant = 0;
    }
    std::string key = t.name + "|" + l.key() + "|" + std::to_string(l.folded);
    if (auto it = address_cache_.find(key); it != address_cache_.end())
      return it->second;
    Register base = tensor_base(t);
    Register acc = base;
    bool global = t.space == tile::Space::global;
    if (any_negative) {
      Register sum = sum32(l);
      if (global) {
        Register wide = reg(RegClass::b64);
        emit(Cvt{ScalarType::u64, ScalarType::u32, wide, sum});
        acc = reg(RegClass::b64);
        emit(Binary{BinaryOp::add, ScalarType::s64, acc, base, wide});
      } else {
        acc = reg(RegClass::b32);
        emit(Binary{BinaryOp::add, ScalarType::u32, acc, base, sum});
      }
    } else {
      for (const auto& [k, term] : l.terms) {
        Register atom = operand_reg(value(term.atom));
        Register next = reg(global ? RegClass::b64 : RegClass::b32);
        emit(Mad{global, ScalarType::u32, next, atom, Immediate{term.coeff}, acc});
        acc = next;
      }
    }
    address_cache_[key] = acc;
    return acc;
  }

  /// l.folded + the sum of l's terms, in 32 bits (exact modulo 2^32).
  Register sum32(const Linear& l) {
    auto u32 = [](std::int64_t v) {
      return Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(v))};
    };
    std::optional<Operand> acc;
    if (l.folded != 0)
      acc = u32(l.folded);
    for (const auto& [k, term] : l.terms) {
      Register atom = operand_reg(value(term.atom));
      Register next = reg(RegClass::b32);
      if (!acc)
        emit(Binary{BinaryOp::mul_lo, ScalarType::u32, next, atom, u32(term.coeff)});
      else
        emit(Mad{false, ScalarType::u32, next, atom, u32(term.coeff), *acc});
      acc = next;
    }
    return std::get<Register>(*acc);
  }

  /// Calls f(coords, constant byte offset) for every coordinate of the axes
  /// from `first` on, in row-major order.
  template <class F>
  static void for_each_coord(const tile::View& v, std::size_t first, std::size_t end, F&& f) {
    std::vector<std::int64_t> c(v.axes.size(), 0);
    for (;;) {
      std::int64_t off = 0;
      for (std::size_t i = first; i < end; ++i)
        off += c[i] * v.axes[i].stride_bytes;
      f(c, off);
      std::size_t i = end;
      while (i > first) {
        --i;
        if (++c[i] < v.axes[i].size)
          break;
        c[i] = 0;
        if (i == first)
          return;
      }
      if (end == first)
        return;
    }
  }

  // --- ops ----------------------------------------------------------------------

  void lower(const tile::ApplyOp& a) {
    const tile::View& dv = a.dst.value;
    const tile::View& sv = a.src.value;
    // Unchecked kernels may lack the group axes; bind none then.
    const std::size_t group_axes =
        a.scope == tile::Scope::cta && dv.rank() >= 3 && sv.rank() >= 3 ? 2 : 0;
    Linear dl = thread_linear(dv, group_axes);
    Linear sl = thread_linear(sv, group_axes);
    Register dreg = address(*dv.tensor, dl);
    Register sreg = address(*sv.tensor, sl);

    std::variant<std::monostate, SrcSize, IgnoreSrc> zero_fill;
    if (a.src_size) {
      Operand v = value(a.src_size->value);
      if (const auto* imm = std::get_if<Immediate>(&v))
        zero_fill = SrcSize{static_cast<std::uint32_t>(imm->value)};
      else
        zero_fill = SrcSize{std::get<Register>(v)};
    } else if (a.ignore_src) {
      Guard g = predicate(a.ignore_src->value);
      zero_fill = IgnoreSrc{g.predicate, g.negated};
    }
    std::optional<std::variant<Register, Immediate>> policy;
    if (a.cache_policy)
      policy = cache_policy(a.cache_policy->value);
    std::optional<Guard> guard;
    if (a.pred) {
      auto c = tile::constant_value(*a.pred->value);
      if (!c || *c == 0)
        guard = predicate(a.pred->value);
    }
    const std::size_t rank = dv.rank();
    // Repeat coordinates walk the axes between the group axes and the chunk axis.
    std::vector<std::pair<std::int64_t, std::int64_t>> offsets; // (dst, src) per repeat
    for_each_coord(dv, group_axes, rank - 1,
                   [&](const std::vector<std::int64_t>& c, std::int64_t d) {
                     std::int64_t s = 0;
                     for (std::size_t i = group_axes; i + 1 < rank; ++i)
                       s += c[i] * sv.axes[i].stride_bytes;
                     offsets.emplace_back(d, s);
                   });
    for (std::size_t r = 0; r < offsets.size(); ++r) {
      CpAsync cp;
      cp.opcode = a.opcode.value;
      cp.dst = Address{dreg, dl.constant + offsets[r].first};
      cp.src = Address{sreg, sl.constant + offsets[r].second};
      cp.cp_size = static_cast<std::uint32_t>(a.chunk_bytes.value);
      cp.zero_fill = zero_fill;
      cp.cache_policy = policy;
      emit(cp, guard, offsets.size() > 1 ? "repeat " + std::to_string(r) : std::string{});
    }
  }

  std::variant<Register, Immediate> cache_policy(const tile::CachePolicy& p) {
    if (const auto* from = std::get_if<tile::CachePolicyFromParam>(&p)) {
      std::string key = "param:" + from->param;
      if (auto it = policy_cache_.find(key); it != policy_cache_.end())
        return it->second;
      Register r = reg(RegClass::b64);
      emit(Ld{StateSpace::param, ScalarType::u64, {r}, Address{Symbol{"arg_" + from->param}, 0}});
      policy_cache_[key] = r;
      return r;
    }
    const auto& c = std::get<tile::CachePolicyCreate>(p);
    std::string key = "create:" + std::string(name(c.primary)) + ":" +
                      (c.secondary ? std::string(name(*c.secondary)) : "") + ":" +
                      std::to_string(c.fraction);
    if (auto it = policy_cache_.find(key); it != policy_cache_.end())
      return it->second;
    Register r = reg(RegClass::b64);
    emit(CreatePolicyFractional{r, c.primary, c.secondary, c.fraction});
    policy_cache_[key] = r;
    return r;
  }

  void lower(const tile::CommitGroupOp&) { emit(CpAsyncCommitGroup{}); }
  void lower(const tile::WaitGroupOp& w) { emit(CpAsyncWaitGroup{w.n}); }
  void lower(const tile::WaitAllOp&) { emit(CpAsyncWaitAll{}); }
  void lower(const tile::CtaSyncOp&) { emit(BarSync{0}); }

  static StateSpace space_of(const tile::Tensor& t) {
    return t.space == tile::Space::global ? StateSpace::global : StateSpace::shared;
  }

  /// The widest access (16, 8, 4, 2 or 1 bytes) at byte `i` of a run of
  /// `run` bytes whose address is reg + `off` with reg aligned to `align`.
  static std::int64_t widest(std::int64_t off, std::int64_t run, std::int64_t align) {
    for (std::int64_t w : {16, 8, 4, 2}) {
      if (w <= run && w <= align && ((off % w) + w) % w == 0)
        return w;
    }
    return 1;
  }

  void lower(const tile::FillOp& f) {
    const tile::View& v = f.dst.value;
    Linear l = thread_linear(v, 0);
    Register base = address(*v.tensor, l);
    const std::int64_t align = register_alignment(*v.tensor, l);
    const std::int64_t elem = tile::size_bytes(v.dtype);
    // Byte k of the view (row-major, element by element) gets pattern[k % size].
    std::map<std::int64_t, std::uint8_t> bytes;
    std::int64_t k = 0;
    for_each_coord(v, 0, v.rank(), [&](const std::vector<std::int64_t>&, std::int64_t off) {
      for (std::int64_t b = 0; b < elem; ++b, ++k)
        bytes.emplace(l.constant + off + b,
                      f.pattern[static_cast<std::size_t>(k) % f.pattern.size()]);
    });
    for (auto it = bytes.begin(); it != bytes.end();) {
      std::int64_t start = it->first;
      std::int64_t run = 0;
      for (auto j = it; j != bytes.end() && j->first == start + run; ++j)
        ++run;
      std::int64_t w = widest(start, run, align);
      std::vector<std::uint8_t> chunk;
      for (std::int64_t b = 0; b < w; ++b, ++it)
        chunk.push_back(it->second);
      store_constant(space_of(*v.tensor), Address{base, start}, chunk);
    }
  }

  void store_constant(StateSpace space, Address addr, const std::vector<std::uint8_t>& bytes) {
    auto word = [&](std::size_t at, std::size_t n) {
      std::uint64_t x = 0;
      for (std::size_t i = 0; i < n; ++i)
        x |= std::uint64_t{bytes[at + i]} << (8 * i);
      return static_cast<std::int64_t>(x);
    };
    const std::size_t n = bytes.size();
    St st;
    st.space = space;
    st.address = addr;
    if (n >= 8) {
      st.type = ScalarType::u32;
      for (std::size_t i = 0; i < n; i += 4)
        st.src.push_back(Immediate{word(i, 4)});
    } else {
      st.type = n == 4 ? ScalarType::u32 : n == 2 ? ScalarType::u16 : ScalarType::u8;
      st.src.push_back(Immediate{word(0, n)});
    }
    emit(st);
  }

  void lower(const tile::CopyOp& c) {
    const tile::View& dv = c.dst.value;
    const tile::View& sv = c.src.value;
    Linear dl = thread_linear(dv, 0);
    Linear sl = thread_linear(sv, 0);
    Register dreg = address(*dv.tensor, dl);
    Register sreg = address(*sv.tensor, sl);
    const std::int64_t dalign = register_alignment(*dv.tensor, dl);
    const std::int64_t salign = register_alignment(*sv.tensor, sl);
    const std::int64_t elem = tile::size_bytes(dv.dtype);
    // (dst byte offset -> src byte offset) for every byte, in dst order.
    std::map<std::int64_t, std::int64_t> pairs;
    for_each_coord(dv, 0, dv.rank(), [&](const std::vector<std::int64_t>& coord, std::int64_t d) {
      std::int64_t s = 0;
      for (std::size_t i = 0; i < coord.size(); ++i)
        s += coord[i] * sv.axes[i].stride_bytes;
      for (std::int64_t b = 0; b < elem; ++b)
        pairs.emplace(dl.constant + d + b, sl.constant + s + b);
    });
    for (auto it = pairs.begin(); it != pairs.end();) {
      const std::int64_t d0 = it->first;
      const std::int64_t s0 = it->second;
      std::int64_t run = 0;
      for (auto j = it; j != pairs.end() && j->first == d0 + run && j->second == s0 + run; ++j)
        ++run;
      std::int64_t w = std::min(widest(d0, run, dalign), widest(s0, run, salign));
      copy_chunk(space_of(*dv.tensor), Address{dreg, d0}, space_of(*sv.tensor), Address{sreg, s0},
                 w);
      std::advance(it, w);
    }
  }

  void copy_chunk(StateSpace dspace, Address dst, StateSpace sspace, Address src, std::int64_t w) {
    Ld ld;
    ld.space = sspace;
    ld.address = src;
    St st;
    st.space = dspace;
    st.address = dst;
    if (w >= 4) {
      ld.type = st.type = ScalarType::b32;
      for (std::int64_t i = 0; i < w / 4; ++i)
        ld.dst.push_back(reg(RegClass::b32));
    } else {
      ld.type = st.type = w == 2 ? ScalarType::b16 : ScalarType::b8;
      ld.dst.push_back(reg(RegClass::b16));
    }
    for (const auto& r : ld.dst)
      st.src.push_back(r);
    emit(ld);
    emit(st);
  }
};

} // namespace

Result<ptx::Module> lower(const tile::Kernel& k, const LowerOptions& options) {
  Diagnostics contract = options.unchecked ? Diagnostics{} : tile::check_contract(k);
  if (contract.has_errors())
    return Result<ptx::Module>::failure(std::move(contract));
  ptx::Module m = Lowerer(k, options).run();
  Diagnostics valid = ptx::validate(m);
  if (options.unchecked) {
    for (auto d : valid.items()) {
      d.severity = Severity::warning;
      d.message += " (ignored: --unchecked)";
      contract.add(std::move(d));
    }
  } else if (valid.has_errors()) {
    // The contract should have caught it; report it at the kernel rather than print bad PTX.
    Diagnostics ds;
    for (auto d : valid.items()) {
      if (d.file.empty())
        d.file = k.file;
      ds.add(std::move(d));
    }
    return Result<ptx::Module>::failure(std::move(ds));
  }
  Result<ptx::Module> r;
  r.value = std::move(m);
  r.diagnostics = std::move(contract); // warnings, if any
  return r;
}

} // namespace ptxgen::lower
