// The simulator's PTX parser: an instruction's operands, read by the shapes of
// its form (Shape) into the ir::Op.

#include "driver/sim/parser_impl.hpp"
#include "emitter/support/unreachable.hpp"

#include <string>

namespace ptxgen::sim::detail {

void Parser::shape(Shape s, ir::Op& op, Decoded& d, const Token& opc, const std::vector<Opnd>& ops,
                   std::size_t& k) {
  const unsigned bits = op.type.bits;
  static constexpr std::string_view src_roles[] = {"the first source", "the second source",
                                                   "the third source", "the fourth source"};
  auto src_slot = [&]() -> ir::Val& { return op.src[d.src++]; };
  switch (s) {
  case Shape::none:
    return;
  case Shape::thread_count:
  case Shape::fraction:
  case Shape::group_count:
  case Shape::barrier:
  case Shape::label:
  case Shape::red_tail:
  case Shape::reg_count:
    control_shape(s, op, d, opc, ops, k);
    return;
  case Shape::cp_extra:
    cp_extra(op, d, opc, ops, k);
    return;
  case Shape::dst:
    op.dst[0] = reg(ops[k++], bits, false, "the destination");
    return;
  case Shape::dst_pair: {
    const Opnd& o = ops[k++];
    op.sink = o.kind == Opnd::Kind::name && o.name == "_" && !o.negated;
    if (!op.sink) {
      Opnd plain = o;
      plain.pair = {};
      // elect.sync has no type: its d is a 32-bit register
      op.dst[0] = reg(plain, bits ? bits : 32, false, "the destination");
    }
    if (!o.pair.empty()) {
      Opnd p;
      p.pos = o.pair_pos;
      p.length = o.pair.size();
      p.name = o.pair;
      op.pred_dst = static_cast<std::int32_t>(reg(p, 1, false, "the predicate destination"));
    }
    return;
  }
  case Shape::dst_wide:
    op.dst[0] = reg(ops[k++], 2 * bits, false, "the destination");
    return;
  case Shape::dst_at_least:
    op.dst[0] = reg(ops[k++], bits, true, "the destination");
    return;
  case Shape::dst_pred:
    op.dst[0] = reg(ops[k++], 1, false, "the destination");
    return;
  case Shape::pred_pair: { // setp's `p|q`: q takes the negated comparison
    const Opnd& o = ops[k++];
    Opnd plain = o;
    plain.pair = {};
    op.dst[0] = reg(plain, 1, false, "the destination");
    if (!o.pair.empty()) {
      Opnd q;
      q.pos = o.pair_pos;
      q.length = o.pair.size();
      q.name = o.pair;
      op.pred_dst = static_cast<std::int32_t>(reg(q, 1, false, "the second destination"));
    }
    return;
  }
  case Shape::bool_src:
    if ((op.bop != ir::BoolOp::none) != (k < ops.size()))
      fail(DiagId::sim_operand_count, opc,
           quote(opc.text) + (op.bop != ir::BoolOp::none
                                  ? ": .and/.or/.xor combine with a predicate operand c"
                                  : ": a fourth operand needs .and, .or or .xor"));
    if (k < ops.size())
      src_slot() = value(ops[k++], 1, "the predicate c");
    return;
  case Shape::dst_u32:
  case Shape::pos_len:
  case Shape::src_lut:
  case Shape::matrix_dst:
  case Shape::pred_src:
  case Shape::policy:
  case Shape::src_pair:
    arith_shape(s, op, d, opc, ops, k);
    return;
  case Shape::mov_dst:
    if (ops[k].kind == Opnd::Kind::vec) {
      vector_mov(op, ops[k++], true);
      return;
    }
    op.dst[0] = reg(ops[k++], bits, false, "the destination");
    return;
  case Shape::src:
    src_slot() = value(ops[k++], bits, src_roles[d.src]);
    return;
  case Shape::src_wide:
    src_slot() = value(ops[k++], 2 * bits, "the addend");
    return;
  case Shape::src_u32:
    src_slot() = value(ops[k++], 32, src_roles[d.src]);
    return;
  case Shape::src_from:
    src_slot() = value_or_wider_reg(ops[k++], op.type2.bits, "the source");
    return;
  case Shape::src_address:
    src_slot() = address_source(ops[k++], bits);
    return;
  case Shape::mov_src:
    if (ops[k].kind == Opnd::Kind::vec) {
      vector_mov(op, ops[k++], false);
      return;
    }
    src_slot() = mov_source(d, ops[k++], bits);
    return;
  case Shape::pred: { // selp's selector, `!%p` too
    ir::Val& v = src_slot();
    Opnd plain = ops[k++];
    v.kind = plain.negated ? ir::Val::Kind::not_pred : ir::Val::Kind::reg;
    plain.negated = false;
    v.reg = reg(plain, 1, false, "the selector");
    return;
  }
  case Shape::data:
  case Shape::mem:
  case Shape::cp_dst:
  case Shape::cp_src:
  case Shape::cp_size:
  case Shape::mbar_addr:
  case Shape::opt_mem:
  case Shape::mbar_state:
  case Shape::bulk_tail:
  case Shape::tensor_op1:
  case Shape::tensor_op2:
    memory_shape(s, op, d, opc, ops, k);
    return;
  case Shape::tensor_operands:
    tensor_operands(op, opc, ops, k);
    return;
  case Shape::opt_u32:
    if (k < ops.size())
      src_slot() = value(ops[k++], 32, src_roles[d.src]);
    return;
  case Shape::opt_src:
    if (op.code == ir::Code::atom && (op.atomic == ir::Atomic::cas) != (k < ops.size()))
      fail(DiagId::sim_operand_count, opc, "atom.cas takes three sources, the others two");
    if (k < ops.size())
      src_slot() = value(ops[k++], bits, src_roles[d.src]);
    return;
  }
}

/// The operands of control instructions and literals: bar.sync's barrier and thread count,
/// branch labels, wait_group's N, createpolicy's fraction (shape()'s control cases).
void Parser::control_shape(Shape s, ir::Op& op, Decoded& d, const Token& opc,
                           const std::vector<Opnd>& ops, std::size_t& k) {
  auto src_slot = [&]() -> ir::Val& { return op.src[d.src++]; };
  switch (s) {
  case Shape::thread_count:
    if (k < ops.size()) {
      d.src = 1;
      thread_count(op, ops[k++]);
    } else if (op.code == ir::Code::bar_arrive) {
      fail(DiagId::sim_operand_count, opc, quote(opc.text) + " needs a thread count");
    }
    return;
  case Shape::red_tail: { // bar.red's `{b,} {!}c`: the predicate is the last operand
    if (k + 2 == ops.size())
      thread_count(op, ops[k++]);
    Opnd plain = ops[k++];
    op.src_neg = plain.negated;
    plain.negated = false;
    op.src[2].kind = ir::Val::Kind::reg;
    op.src[2].reg = reg(plain, 1, false, "the predicate");
    return;
  }
  case Shape::reg_count: {
    const Opnd& o = ops[k++];
    if (o.kind != Opnd::Kind::number)
      fail(DiagId::sim_operand_kind, o, quote(opc.text) + " needs an immediate register count");
    op.n = int_literal(o);
    if (op.n < 24 || op.n > 256 || op.n % 8 != 0)
      fail(DiagId::sim_operand_range, o,
           "the register count " + std::to_string(op.n) + " must be a multiple of 8 in 24..256");
    return;
  }
  case Shape::fraction:
    if (k < ops.size()) {
      const Opnd& o = ops[k++];
      if (o.kind != Opnd::Kind::number)
        fail(DiagId::sim_operand_kind, o, "the fraction is a literal in (0, 1]");
      auto f = parse_float(o.number);
      if (!f || *f <= 0.0 || *f > 1.0)
        fail(DiagId::sim_operand_range, o, "the fraction must be in (0, 1]");
    }
    return;
  case Shape::group_count: {
    const Opnd& o = ops[k++];
    if (o.kind != Opnd::Kind::number)
      fail(DiagId::sim_operand_kind, o, quote(opc.text) + " needs an integer immediate N");
    op.n = int_literal(o);
    if (op.n < 0)
      fail(DiagId::sim_operand_range, o, quote(opc.text) + " N must not be negative");
    return;
  }
  case Shape::barrier: {
    const Opnd& o = ops[k++];
    if (o.kind != Opnd::Kind::number) {
      op.n = -1; // the barrier number is read at run time (nvcc -G's __barrier_sync)
      src_slot() = value(o, 32, "the barrier number");
      return;
    }
    op.n = int_literal(o);
    if (op.n < 0 || op.n > 15)
      fail(DiagId::sim_operand_range, o, "the barrier number must be in 0..15");
    d.src = 1; // src[0] holds only a register barrier number; the thread count goes to src[1]
    return;
  }
  case Shape::label: {
    const Opnd& o = ops[k++];
    if (o.kind != Opnd::Kind::name || o.negated)
      fail(DiagId::sim_operand_kind, o, quote(opc.text) + " needs a label");
    Token label;
    label.text = o.name;
    label.pos = o.pos;
    branch_fixups_.push_back({e_->ops.size(), label, scopes_.empty() ? 0 : scopes_.back().id});
    return;
  }
  default:
    unreachable("control_shape(): not a control operand shape");
  }
}

void Parser::thread_count(ir::Op& op, const Opnd& o) {
  op.src[1] = value(o, 32, "the thread count");
  if (o.kind == Opnd::Kind::number && (op.src[1].imm <= 0 || op.src[1].imm % 32 != 0))
    fail(DiagId::sim_operand_range, o,
         "the thread count " + std::to_string(op.src[1].imm) +
             " must be a positive multiple of the warp size (32)");
}

/// The operands that address memory: ld/st data and addresses, cp.async's,
/// the mbarrier family's and cp.async.bulk's (shape()'s memory cases).
void Parser::memory_shape(Shape s, ir::Op& op, Decoded& d, const Token& opc,
                          const std::vector<Opnd>& ops, std::size_t& k) {
  const unsigned bits = op.type.bits;
  switch (s) {
  case Shape::data:
    data(op, d, ops[k++]);
    return;
  case Shape::mem:
    op.addr = address(ops[k++], op.space, bits / 8u * op.vec);
    if (op.space == ir::Space::param && op.code == ir::Code::st)
      throw Unsupported{DiagId::sim_unsupported_form,
                        "st.param to a kernel parameter is not simulated"};
    return;
  case Shape::cp_dst: {
    // Only .param accesses check their size at parse time; cp.async's are checked at issue.
    const bool to_global = op.code == ir::Code::bulk_store || op.code == ir::Code::bulk_reduce ||
                           op.code == ir::Code::tensormap_copy;
    ir::Space space = to_global ? ir::Space::global : ir::Space::shared;
    op.addr = address(ops[k++], space, 0);
    return;
  }
  case Shape::cp_src: {
    ir::Space space = op.code == ir::Code::bulk_store || op.code == ir::Code::bulk_peer ||
                              op.code == ir::Code::bulk_reduce ||
                              op.code == ir::Code::tensormap_copy
                          ? ir::Space::shared
                      : op.code == ir::Code::prefetch_tensormap ? ir::Space::generic
                                                                : ir::Space::global;
    op.addr2 = address(ops[k++], space, 0);
    return;
  }
  case Shape::cp_size:
    op.cp_size = cp_size(d, ops[k++]);
    return;
  case Shape::mbar_addr:
    op.addr = address(ops[k++], op.space, 0);
    return;
  case Shape::opt_mem:
    if (k < ops.size()) {
      ir::Space generic = ir::Space::generic;
      op.addr = address(ops[k++], generic, 0);
    }
    return;
  case Shape::mbar_state: {
    const Opnd& o = ops[k++];
    op.sink = o.kind == Opnd::Kind::name && o.name == "_" && !o.negated;
    if (!op.sink)
      op.dst[0] = reg(o, 64, false, "the state");
    op.src[0].kind = ir::Val::Kind::imm; // the count when none is written
    op.src[0].imm = 1;
    return;
  }
  case Shape::tensor_op1:
  case Shape::tensor_op2: {
    // The load's shared destination comes first, the store's (and a prefetch's) tensor map.
    if ((s == Shape::tensor_op1) == (op.code != ir::Code::tensor_load)) {
      tensor_map_operand(op, ops[k++]);
    } else {
      ir::Space space = ir::Space::shared;
      op.addr = address(ops[k++], space, 0);
    }
    return;
  }
  case Shape::bulk_tail: {
    if (op.code != ir::Code::bulk_store && op.code != ir::Code::tensor_store &&
        op.code != ir::Code::bulk_reduce && op.code != ir::Code::tensor_reduce) {
      if (k >= ops.size())
        fail(DiagId::sim_operand_count, opc, quote(opc.text) + " needs its mbarrier operand");
      ir::Space space = ir::Space::shared;
      op.addr3 = address(ops[k++], space, 0);
    }
    if (op.im2col)
      im2col_offsets(op, opc, ops, k);
    if (op.multicast) {
      if (k >= ops.size())
        fail(DiagId::sim_operand_count, opc, quote(opc.text) + " needs its 16-bit CTA mask");
      op.cta_mask = value(ops[k++], 16, "the CTA mask");
    }
    if (k < ops.size()) {
      if (!d.hint)
        fail(DiagId::sim_operand_count, ops[k], "a cache policy needs .L2::cache_hint");
      reg(ops[k++], 64, false, "the cache policy");
    } else if (d.hint) {
      fail(DiagId::sim_operand_count, opc, ".L2::cache_hint requires a cache-policy operand");
    }
    return;
  }
  default:
    unreachable("memory_shape(): not a memory operand shape");
  }
}

/// The operand shapes of the bit-operation and float forms (bit operations, cvt pairs,
/// ldmatrix, vote, cache policies).
void Parser::arith_shape(Shape s, ir::Op& op, Decoded& d, const Token& opc,
                         const std::vector<Opnd>& ops, std::size_t& k) {
  const unsigned bits = op.type.bits;
  auto src_slot = [&]() -> ir::Val& { return op.src[d.src++]; };
  switch (s) {
  case Shape::dst_u32:
    op.dst[0] = reg(ops[k++], 32, false, "the destination");
    return;
  case Shape::pos_len:
    op.src[2] = value(ops[k++], 32, "the bit position");
    op.src[3] = value(ops[k++], 32, "the field length");
    return;
  case Shape::src_lut: {
    src_slot() = value(ops[k++], bits, "the third source");
    const Opnd& o = ops[k++];
    if (o.kind != Opnd::Kind::number)
      fail(DiagId::sim_operand_kind, o, "lop3's immLut is an immediate");
    op.n = int_literal(o);
    if (op.n < 0 || op.n > 255)
      fail(DiagId::sim_operand_range, o, "lop3's immLut must be in 0..255");
    return;
  }
  case Shape::matrix_dst: {
    const Opnd& o = ops[k++];
    if (o.kind != Opnd::Kind::vec && op.vec == 1) { // `{%r}` reads as the register itself
      op.dst[0] = reg(o, 32, false, "the destination");
      return;
    }
    if (o.kind != Opnd::Kind::vec || o.elems.size() != op.vec)
      fail(DiagId::sim_operand_kind, o,
           "ldmatrix .x" + std::to_string(op.vec) + " needs {" + std::to_string(op.vec) +
               " registers}");
    for (std::size_t e = 0; e < o.elems.size(); ++e) {
      const Opnd& x = o.elems[e];
      // the sink `_` drops that matrix (FlashInfer's mma.cuh loads half of an .x4 so)
      const bool sink = x.kind == Opnd::Kind::name && x.name == "_" && !x.negated;
      op.dst[e] = sink ? ir::no_register : reg(x, 32, false, "the destination");
    }
    return;
  }
  case Shape::pred_src: {
    Opnd plain = ops[k++];
    op.src_neg = plain.negated;
    plain.negated = false;
    ir::Val& v = src_slot();
    v.kind = ir::Val::Kind::reg;
    v.reg = reg(plain, 1, false, "the predicate");
    return;
  }
  case Shape::policy:
    if (d.hint != (k < ops.size()))
      fail(DiagId::sim_operand_count, opc,
           quote(opc.text) + (d.hint ? ": .L2::cache_hint needs a cache-policy operand"
                                     : ": a cache-policy operand needs .L2::cache_hint"));
    if (d.hint && ops[k].kind == Opnd::Kind::number)
      ++k; // an immediate policy
    else if (d.hint)
      reg(ops[k++], 64, false, "the cache policy");
    return;
  case Shape::src_pair: {
    const bool packed = op.type2.num == ir::Num::f32 &&
                        (op.type.num == ir::Num::f16x2 || op.type.num == ir::Num::bf16x2 ||
                         op.type.num == ir::Num::e4m3x2 || op.type.num == ir::Num::e5m2x2);
    if (packed != (k < ops.size()))
      fail(DiagId::sim_operand_count, opc,
           quote(opc.text) + (packed ? " takes two sources" : " takes one source"));
    if (packed)
      op.src[1] = value(ops[k++], op.type2.bits, "the second source");
    return;
  }
  default:
    unreachable("arith_shape(): not a bit-operation or float operand shape");
  }
}

/// `[tmap, {c0, ...}]`: the map's generic address -> addr2 (a 64-bit register or a global
/// symbol, plus an offset), one 32-bit coordinate per dimension -> coords.
void Parser::tensor_map_operand(ir::Op& op, const Opnd& o) {
  if (o.kind != Opnd::Kind::addr || o.elems.empty())
    fail(DiagId::sim_operand_kind, o, "expected a tensor map and its coordinates, [%rd1, {%r1}]");
  if (o.elems.size() != op.rank)
    fail(DiagId::sim_operand_count, o,
         "a ." + std::to_string(op.rank) + "d tensor copy takes " + std::to_string(op.rank) +
             " coordinate(s), found " + std::to_string(o.elems.size()));
  for (std::size_t c = 0; c < o.elems.size(); ++c)
    op.coords[c] = value(o.elems[c], 32, "a tensor coordinate");
  Opnd map = o;
  map.elems.clear();
  ir::Space space = ir::Space::generic;
  op.addr2 = address(map, space, 0);
  if (op.addr2.has_reg && op.addr2.bits != 64)
    fail(DiagId::sim_operand_width, o, "the tensor map's generic address needs a 64-bit register");
}

/// `.im2col`'s offsets after the mbarrier: `{o0, ...}`, one 16-bit value per spatial
/// dimension (rank - 2), innermost first -> offsets.
void Parser::im2col_offsets(ir::Op& op, const Token& opc, const std::vector<Opnd>& ops,
                            std::size_t& k) {
  if (k >= ops.size())
    fail(DiagId::sim_operand_count, opc, quote(opc.text) + " needs its im2col offsets {...}");
  const Opnd& o = ops[k++];
  const std::size_t want = op.rank < 3 ? 0 : op.rank - 2u;
  // The operand reader makes `{x}` the scalar `x` (as for every vector of one), so a 3-D
  // load's one offset comes as a scalar.
  const bool vec = o.kind == Opnd::Kind::vec;
  if ((vec ? o.elems.size() : 1) != want)
    fail(DiagId::sim_operand_count, o,
         "a ." + std::to_string(op.rank) + "d im2col load takes " + std::to_string(want) +
             " offset(s) in braces, one per spatial dimension");
  for (std::size_t c = 0; c < want; ++c)
    op.offsets[c] = value(vec ? o.elems[c] : o, 16, "an im2col offset");
}

/// cvta's source: a register may be 64 bits whatever the type.
ir::Val Parser::address_source(const Opnd& o, unsigned bits) {
  if (o.kind != Opnd::Kind::name || !is_reg_name(o.name))
    return value(o, bits, "the source");
  auto r = find_reg(o.name);
  if (!r)
    fail(DiagId::sim_undeclared, o, "register `" + std::string(o.name) + "` is not declared");
  ir::Val v;
  v.kind = ir::Val::Kind::reg;
  v.reg = reg(o, r->bits == 64 ? 64 : bits, false, "the source");
  return v;
}

/// mov's source: a value, or the bits of a 0f / 0d literal for a float type.
ir::Val Parser::mov_source(const Decoded& d, const Opnd& o, unsigned bits) {
  if (o.kind == Opnd::Kind::vec)
    throw Unsupported{DiagId::sim_unsupported_form,
                      "vector mov (packing registers) is not simulated"};
  if (o.kind != Opnd::Kind::number || !d.type.is_float)
    return value(o, bits, "the source");
  if (!parse_float(o.number))
    fail(DiagId::sim_literal, o, quote(o.number) + " is not a literal");
  if (o.number.size() <= 2 || (o.number[1] != 'f' && o.number[1] != 'd'))
    throw Unsupported{DiagId::sim_unsupported_operand,
                      "decimal floating-point literals are not simulated"};
  ir::Val v;
  v.kind = ir::Val::Kind::imm;
  v.imm = *parse_int("0x" + std::string(o.number.substr(2)));
  return v;
}

/// cp.async's cp-size: 16 for .cg; 4, 8 or 16 for .ca.
std::uint32_t Parser::cp_size(const Decoded& d, const Opnd& o) {
  if (o.kind != Opnd::Kind::number)
    fail(DiagId::sim_operand_kind, o, "cp-size must be an immediate");
  std::int64_t size = int_literal(o);
  if (d.cg && size != 16)
    fail(DiagId::sim_operand_range, o,
         "`.cg` copies exactly 16 bytes; cp-size is " + std::to_string(size));
  if (!d.cg && size != 4 && size != 8 && size != 16)
    fail(DiagId::sim_operand_range, o,
         "`.ca` copies 4, 8 or 16 bytes; cp-size is " + std::to_string(size));
  return static_cast<std::uint32_t>(size);
}

/// ld's destination registers or st's sources: one, or {..} of .v2 / .v4.
void Parser::data(ir::Op& op, const Decoded& d, const Opnd& o) {
  std::vector<const Opnd*> elems;
  if (op.vec == 1) {
    if (o.kind == Opnd::Kind::vec)
      fail(DiagId::sim_operand_kind, o, "a vector operand needs .v2 or .v4");
    elems.push_back(&o);
  } else {
    if (o.kind != Opnd::Kind::vec || o.elems.size() != op.vec)
      fail(DiagId::sim_operand_kind, o,
           "`.v" + std::to_string(op.vec) + "` needs {" + std::to_string(op.vec) + " registers}");
    for (const auto& x : o.elems)
      elems.push_back(&x);
  }
  const unsigned bits = d.type.t.bits;
  for (std::size_t k = 0; k < elems.size(); ++k) {
    if (op.code == ir::Code::ld)
      op.dst[k] = reg(*elems[k], bits, true, "the destination");
    else
      op.src[k] = value_or_wider_reg(*elems[k], bits, "the stored value");
  }
}

/// cp.async after cp-size: {src-size | ignore-src}{, cache-policy}.
void Parser::cp_extra(ir::Op& op, const Decoded& d, const Token& opc, const std::vector<Opnd>& ops,
                      std::size_t& k) {
  std::size_t tail = ops.size() - k;
  if (d.hint) {
    if (tail == 0)
      fail(DiagId::sim_operand_count, opc,
           ".L2::cache_hint requires a cache-policy operand (ptxas rejects it without)");
    const Opnd& pol = ops.back();
    if (pol.kind == Opnd::Kind::name)
      reg(pol, 64, false, "the cache policy");
    else if (pol.kind != Opnd::Kind::number)
      fail(DiagId::sim_operand_kind, pol, "the cache policy is a 64-bit register or immediate");
    --tail;
  }
  if (tail > 1)
    fail(DiagId::sim_operand_count, ops[k], "too many operands for cp.async");
  if (tail == 1) {
    const Opnd& z = ops[k];
    bool is_pred = false;
    if (z.kind == Opnd::Kind::name && is_reg_name(z.name)) {
      auto r = find_reg(z.name);
      is_pred = r && r->bits == 1;
    }
    if (is_pred) {
      op.zfill = ir::ZeroFill::ignore_src;
      op.zval.kind = ir::Val::Kind::reg;
      Opnd plain = z; // `!%p`: the negation is kept in zneg
      plain.negated = false;
      op.zval.reg = reg(plain, 1, false, "ignore-src");
      op.zneg = z.negated;
    } else {
      if (z.negated)
        fail(DiagId::sim_operand_kind, z, "`!` applies only to a predicate (ignore-src)");
      op.zfill = ir::ZeroFill::src_size;
      op.zval = value(z, 32, "src-size", false);
      if (op.zval.kind == ir::Val::Kind::special)
        fail(DiagId::sim_operand_kind, z, "src-size must be a u32 register or an immediate");
      if (op.zval.kind == ir::Val::Kind::imm &&
          (op.zval.imm < 0 || op.zval.imm > static_cast<std::int64_t>(op.cp_size)))
        fail(DiagId::sim_operand_range, z,
             "src-size " + std::to_string(op.zval.imm) + " is outside 0.." +
                 std::to_string(op.cp_size));
    }
  }
  k = ops.size();
}

} // namespace ptxgen::sim::detail
