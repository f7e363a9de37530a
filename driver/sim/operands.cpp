// The simulator's PTX parser: operands as written, and their checked forms
// (registers, values, addresses) for the decoder.

#include "driver/sim/parser_impl.hpp"
#include "driver/sim/simulator.hpp"

#include <algorithm>

namespace ptxgen::sim::detail {

Opnd Parser::operand() {
  Opnd o;
  const Token& first = peek();
  o.pos = first.pos;
  if (accept("[")) {
    o.kind = Opnd::Kind::addr;
    const Token& base = peek();
    if (base.kind != Tok::ident)
      fail(DiagId::sim_syntax, base,
           "expected a register or symbol as the address base, found " + describe(base) +
               " (immediate addresses are not accepted)");
    next();
    o.name = base.text;
    if (accept("+")) {
      o.offset = expect_int("an address offset");
    } else if (is("-")) {
      fail(DiagId::sim_syntax, peek(),
           "write a negative address offset as `+-N`; ptxas rejects `-N`");
    }
    if (accept(",")) { // a tensor map and its coordinates: [tmap, {c0, c1, ...}]
      Opnd coords = operand();
      if (coords.kind == Opnd::Kind::vec)
        o.elems = std::move(coords.elems);
      else
        o.elems.push_back(coords);
    }
    const Token& close = expect("]", "to close the address");
    o.length = close.pos + 1 - o.pos;
    return o;
  }
  if (accept("{")) {
    o.kind = Opnd::Kind::vec;
    do {
      o.elems.push_back(operand());
    } while (accept(","));
    const Token& close = expect("}", "to close the vector");
    o.length = close.pos + 1 - o.pos;
    if (o.elems.size() == 1) {
      Opnd one = o.elems.front(); // `{ %r1 }` is `%r1` (Triton writes it)
      return one;
    }
    return o;
  }
  if (accept("!")) {
    const Token& t = expect_ident("a predicate register after `!`");
    o.kind = Opnd::Kind::name;
    o.negated = true;
    o.name = t.text;
    o.length = t.pos + t.text.size() - o.pos;
    return o;
  }
  if (accept("-")) {
    o.minus = true;
  }
  const Token& t = peek();
  if (t.kind == Tok::number) {
    next();
    o.kind = Opnd::Kind::number;
    o.number = t.text;
    o.length = t.pos + t.text.size() - o.pos;
    return o;
  }
  if (t.kind == Tok::ident && !o.minus) {
    next();
    o.kind = Opnd::Kind::name;
    o.name = t.text;
    o.length = t.text.size();
    if (accept("|")) { // `d|p`: a second, predicate destination
      const Token& p = expect_ident("a predicate register after `|`");
      o.pair = p.text;
      o.pair_pos = p.pos;
      o.length = p.pos + p.text.size() - o.pos;
    }
    return o;
  }
  fail(DiagId::sim_syntax, t, "expected an operand, found " + describe(t));
}

/// A register operand of exactly `bits` bits (or at least, when `at_least`).
bool Parser::is_reg_name(std::string_view name) const {
  return name.starts_with("%") || find_reg(name).has_value();
}

const ir::Data* Parser::find_data(const Opnd& o) {
  const ir::Data* found = nullptr;
  for (const auto& d : m_->data) {
    // the function's own variable hides a module-scope one of the same name
    if (d.name == o.name && (d.function.empty() ? found == nullptr : d.function == e_->name))
      found = &d;
  }
  if (found != nullptr && !found->broken.empty())
    throw Unsupported{DiagId::sim_unsupported_operand, found->broken};
  return found;
}

std::uint32_t Parser::reg(const Opnd& o, unsigned bits, bool at_least, std::string_view role) {
  if (o.kind != Opnd::Kind::name || o.negated || !is_reg_name(o.name))
    fail(DiagId::sim_operand_kind, o, std::string(role) + " must be a register");
  auto r = find_reg(o.name);
  if (!r) {
    if (ptx::parse_special_register(o.name))
      fail(DiagId::sim_operand_kind, o,
           std::string(role) + " cannot be the read-only special register `" + std::string(o.name) +
               "`");
    fail(DiagId::sim_undeclared, o, "register `" + std::string(o.name) + "` is not declared");
  }
  bool ok = at_least ? (r->bits >= bits && (bits == 1) == (r->bits == 1)) : r->bits == bits;
  if (!ok)
    fail(DiagId::sim_operand_width, o,
         std::string(role) + " `" + std::string(o.name) + "` is a " +
             (r->bits == 1 ? std::string("predicate") : std::to_string(r->bits) + "-bit") +
             " register; this instruction needs " +
             (bits == 1 ? std::string("a predicate") : std::to_string(bits) + "-bit") +
             (at_least && bits != 1 ? " or wider" : ""));
  return r->index;
}

std::int64_t Parser::int_literal(const Opnd& o) {
  auto v = parse_int(o.number);
  if (!v && o.number.size() > 2 &&
      (o.number[1] == 'f' || o.number[1] == 'd' || o.number[1] == 'F' || o.number[1] == 'D') &&
      parse_float(o.number))
    v = parse_int("0x" + std::string(o.number.substr(2))); // 0f/0d: the float's bits
  if (!v)
    fail(DiagId::sim_literal, o, "`" + std::string(o.number) + "` is not an integer literal");
  return o.minus ? negate_mod64(*v) : *v;
}

/// A value operand read as a `bits`-wide integer.
ir::Val Parser::value(const Opnd& o, unsigned bits, std::string_view role, bool allow_symbol) {
  ir::Val v;
  if (o.kind == Opnd::Kind::number) {
    v.kind = ir::Val::Kind::imm;
    v.imm = int_literal(o);
    return v;
  }
  if (o.kind == Opnd::Kind::name && o.negated && bits == 1 && find_reg(o.name)) {
    // `!%p` where a predicate is read (and.pred, selp's, setp's c): ptxas takes it
    Opnd plain = o;
    plain.negated = false;
    v.kind = ir::Val::Kind::not_pred;
    v.reg = reg(plain, 1, false, role);
    return v;
  }
  if (o.kind != Opnd::Kind::name || o.negated)
    fail(DiagId::sim_operand_kind, o, std::string(role) + " must be a register or an immediate");
  if (auto s = ptx::parse_special_register(o.name)) {
    if ((bits == 1) != (*s == ptx::SpecialRegister::is_explicit_cluster))
      fail(DiagId::sim_operand_kind, o,
           bits == 1 ? "a special register is not a predicate (but %is_explicit_cluster)"
                     : "%is_explicit_cluster is a predicate");
    v.kind = ir::Val::Kind::special;
    v.special = *s;
    return v;
  }
  if (is_reg_name(o.name)) {
    // PTX's other special registers; undeclared names outside %r/%p/%f too.
    static constexpr std::string_view other_specials[] = {"%reserved_smem_offset",
                                                          "%envreg",
                                                          "%pm",
                                                          "%gridid",
                                                          "%cluster",
                                                          "%nclusterid",
                                                          "%is_explicit_cluster",
                                                          "%aggr_smem_size",
                                                          "%current_graph_exec"};
    const bool other = std::any_of(std::begin(other_specials), std::end(other_specials),
                                   [&](std::string_view p) { return o.name.starts_with(p); });
    if (!find_reg(o.name) && (other || (!o.name.starts_with("%r") && !o.name.starts_with("%p") &&
                                        !o.name.starts_with("%f"))))
      throw Unsupported{DiagId::sim_unsupported_operand,
                        "special register `" + std::string(o.name) + "` is not simulated"};
    v.kind = ir::Val::Kind::reg;
    v.reg = reg(o, bits, false, role);
    return v;
  }
  // PTX's predefined identifier for the warp size (ptxas takes `mov.u32 %r, WARP_SZ;`).
  if (o.name == "WARP_SZ" && !o.negated) {
    v.kind = ir::Val::Kind::imm;
    v.imm = 32;
    return v;
  }
  if (allow_symbol) {
    for (const auto& a : e_->shared) {
      if (a.name == o.name) {
        if (bits != 32 && bits != 64)
          fail(DiagId::sim_operand_width, o,
               "the address of `" + a.name + "` needs a 32- or 64-bit type");
        v.kind = ir::Val::Kind::imm;
        v.imm = static_cast<std::int64_t>(a.offset);
        return v;
      }
    }
    for (const auto& a : e_->local) {
      if (a.name == o.name) {
        v.kind = ir::Val::Kind::local;
        v.imm = static_cast<std::int64_t>(a.offset);
        return v;
      }
    }
    for (std::size_t k = 0; k < m_->funcs.size(); ++k) {
      if (m_->funcs[k].name != o.name)
        continue;
      if (bits != 64)
        fail(DiagId::sim_operand_width, o,
             "the address of `" + std::string(o.name) + "` needs a 64-bit type");
      if (std::find(e_->address_taken.begin(), e_->address_taken.end(), o.name) ==
          e_->address_taken.end())
        e_->address_taken.push_back(std::string(o.name));
      v.kind = ir::Val::Kind::imm;
      v.imm = static_cast<std::int64_t>(function_address_base + k);
      return v;
    }
    if (const ir::Data* d = find_data(o)) {
      if (bits != 64)
        fail(DiagId::sim_operand_width, o, "the address of `" + d->name + "` needs a 64-bit type");
      v.kind = ir::Val::Kind::imm;
      v.imm = static_cast<std::int64_t>(d->address);
      return v;
    }
    for (const auto& p : e_->params) {
      if (p.name != o.name)
        continue;
      // A kernel parameter's address in the parameter space (cvta.param makes it generic); a
      // .func's parameters live in its frame.
      if (e_->is_func)
        throw Unsupported{DiagId::sim_unsupported_operand,
                          "taking the address of a .func parameter `" + p.name +
                              "` is not simulated; read it with ld.param"};
      if (bits != 64)
        fail(DiagId::sim_operand_width, o, "the address of `" + p.name + "` needs a 64-bit type");
      v.kind = ir::Val::Kind::imm;
      v.imm = static_cast<std::int64_t>(p.offset);
      return v;
    }
  }
  fail(DiagId::sim_undeclared, o,
       "`" + std::string(o.name) + "` is not a declared register or symbol");
}

/// A register of at least `bits` bits, or any other value operand of `bits` bits.
ir::Val Parser::value_or_wider_reg(const Opnd& o, unsigned bits, std::string_view role) {
  if (o.kind == Opnd::Kind::name && is_reg_name(o.name) && !ptx::parse_special_register(o.name)) {
    ir::Val v;
    v.kind = ir::Val::Kind::reg;
    v.reg = reg(o, bits, true, role);
    return v;
  }
  return value(o, bits, role);
}

/// A `.param` name: an entry's parameter (Space::param), or a .func's
/// parameter or result or a call sequence's variable (Space::frame).
ir::Addr Parser::param_address(const Opnd& o, ir::Space& space, std::uint32_t access_bytes) {
  const ir::Param* p = nullptr;
  if (auto it = locals_.find(std::string(o.name)); it != locals_.end()) {
    p = &it->second;
    space = ir::Space::frame;
  }
  for (const auto* list : {&e_->params, &e_->rets}) {
    for (const auto& q : *list) {
      if (p == nullptr && q.name == o.name) {
        p = &q;
        space = e_->is_func ? ir::Space::frame : ir::Space::param;
      }
    }
  }
  if (p == nullptr)
    fail(DiagId::sim_undeclared, o,
         "`" + std::string(o.name) + "` is not a parameter of this function");
  if (o.offset < 0 || static_cast<std::uint64_t>(o.offset) + access_bytes > p->size)
    fail(DiagId::sim_operand_range, o,
         "the access of " + std::to_string(access_bytes) + " bytes at offset " +
             std::to_string(o.offset) + " does not fit parameter `" + p->name + "` of " +
             std::to_string(p->size) + " bytes");
  ir::Addr a;
  a.offset = static_cast<std::int64_t>(p->offset) + o.offset;
  return a;
}

/// A memory operand in `space`; symbols are folded into the offset.
ir::Addr Parser::address(const Opnd& o, ir::Space& space, std::uint32_t access_bytes) {
  if (o.kind != Opnd::Kind::addr || !o.elems.empty())
    fail(DiagId::sim_operand_kind, o, "expected a memory operand like [%rd1] or [%rd1+16]");
  ir::Addr a;
  a.offset = o.offset;
  if (is_reg_name(o.name)) {
    auto r = find_reg(o.name);
    if (!r)
      fail(DiagId::sim_undeclared, o, "register `" + std::string(o.name) + "` is not declared");
    if (r->bits != 32 && r->bits != 64)
      fail(DiagId::sim_operand_width, o,
           "address register `" + std::string(o.name) + "` must be 32 or 64 bits");
    // An entry's parameter space is addressable bytes (`mov.b64 %rd, params;` gives an
    // offset in it; CUTLASS reads its Params struct so): the access is bounded at run time.
    // A .func's parameters live in its frame, which has no address.
    if (space == ir::Space::param && e_->is_func)
      throw Unsupported{DiagId::sim_unsupported_operand,
                        "ld.param through a register address in a .func is not simulated"};
    a.has_reg = true;
    a.reg = r->index;
    a.bits = r->bits;
    return a;
  }
  if (space == ir::Space::param)
    return param_address(o, space, access_bytes);
  for (const auto& s : e_->shared) {
    if (s.name == o.name) {
      if (space != ir::Space::shared)
        throw Unsupported{DiagId::sim_unsupported_operand,
                          "a shared symbol used as a " +
                              std::string(space == ir::Space::global ? "global" : "generic") +
                              " address is not simulated"};
      a.offset = static_cast<std::int64_t>(s.offset) + o.offset;
      return a;
    }
  }
  for (const auto& l : e_->local) {
    if (l.name == o.name) {
      if (space != ir::Space::local && space != ir::Space::generic)
        fail(DiagId::sim_operand_kind, o, "`" + l.name + "` is a .local array");
      space = ir::Space::local;
      a.offset = static_cast<std::int64_t>(l.offset) + o.offset;
      return a;
    }
  }
  if (const ir::Data* d = find_data(o)) {
    if (space == ir::Space::shared)
      fail(DiagId::sim_operand_kind, o, "`" + d->name + "` is not a shared variable");
    a.offset = static_cast<std::int64_t>(d->address) + o.offset;
    return a;
  }
  fail(DiagId::sim_undeclared, o,
       "`" + std::string(o.name) + "` is not a declared register or shared array");
}

} // namespace ptxgen::sim::detail

namespace ptxgen::sim::detail {

/// `mov.bN {a, b..}, x` / `mov.bN x, {a, b..}`: each element holds N / count
/// bits, the first element the lowest.
void Parser::vector_mov(ir::Op& op, const Opnd& v, bool is_dst) {
  const unsigned bits = op.type.bits;
  const std::size_t n = v.elems.size();
  if (op.code == ir::Code::mov_unpack)
    fail(DiagId::sim_operand_kind, v, "mov takes at most one vector operand");
  if ((n != 2 && n != 4) || bits % n != 0 || bits / n < 8)
    fail(DiagId::sim_operand_kind, v,
         "a vector mov of " + std::to_string(bits) +
             " bits takes 2 or 4 elements of 8 bits or more");
  const auto elem = static_cast<unsigned>(bits / n);
  op.vec = static_cast<std::uint8_t>(n);
  for (std::size_t k = 0; k < n; ++k) {
    const Opnd& x = v.elems[k];
    if (is_dst && x.kind == Opnd::Kind::name && x.name == "_" && !x.negated)
      op.dst[k] = sink_reg(static_cast<std::uint8_t>(elem)); // `mov.b32 {_, %rs2}, %r` (LLVM)
    else if (is_dst)
      op.dst[k] = reg(x, elem, false, "a destination element");
    else
      op.src[k] = value(v.elems[k], elem, "a source element");
  }
  op.code = is_dst ? ir::Code::mov_unpack : ir::Code::mov_pack;
}

/// A register no PTX names (a space is no identifier character) that takes the elements a
/// vector destination discards with `_`; one per width and entry.
std::uint32_t Parser::sink_reg(std::uint8_t bits) {
  const std::string name = "_ sink" + std::to_string(bits);
  if (auto r = find_reg(name))
    return r->index;
  const std::uint32_t index = add_reg(*e_, name, bits);
  regs_[name] = RegInfo{index, bits};
  return index;
}

} // namespace ptxgen::sim::detail

namespace ptxgen::sim::detail {

/// isspacep's one state space; its operand is a 64-bit generic address.
void Parser::space_qualifier(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  if (quals.size() != 1)
    fail(DiagId::sim_qualifier, opc, "expected isspacep.space");
  const std::string_view sp = quals[0].text;
  const std::optional<ptx::Qualifier> w = quals[0].qualifier;
  if (w == ptx::Qualifier::global)
    op.space = ir::Space::global;
  else if (w == ptx::Qualifier::shared || w == ptx::Qualifier::shared_cta ||
           w == ptx::Qualifier::shared_cluster)
    op.space = ir::Space::shared; // the CTA's and its cluster's windows (in_shared_window)
  else if (w == ptx::Qualifier::local)
    op.space = ir::Space::local;
  else
    throw Unsupported{DiagId::sim_unsupported_form,
                      "isspacep." + std::string(sp) + " is not simulated"};
  d.type = *parse_type(ptx::name(ptx::ScalarType::b64));
  op.type = d.type.t;
}

} // namespace ptxgen::sim::detail
