// The simulator's PTX parser: the tensor-core instructions (mma.sync, stmatrix, movmatrix,
// wgmma.*, wmma.*). Their qualifiers are read together with their operands, since the operand
// counts follow from the shape and types. Shapes (`m16n8k16`, `m64n128k16`: a family, not a list)
// and the element types that are no PTX register type (`tf32`, `e4m3`, `s4`) are read by their
// spelling (tensor_core.hpp).

#include "driver/sim/parser_impl.hpp"
#include "driver/sim/tensor_core.hpp"

#include <array>
#include <string>

namespace ptxgen::sim::detail {
namespace {

/// The qualifier words after the mnemonic, read front to back.
struct Words {
  std::span<const ptx::OpcodeWord> q;
  std::size_t k = 0;
  bool take(std::string_view s) {
    const bool here = k < q.size() && q[k].text == s;
    k += here ? 1 : 0;
    return here;
  }
  bool done() const { return k == q.size(); }
  std::string_view peek() const { return k < q.size() ? q[k].text : std::string_view{}; }
};

std::string opcode_text(const Token& opc) {
  return "`" + std::string(opc.text) + "`";
}

/// The mMnNkK shape word first in `w` (`form` names the shapes in the refusal), into m.
void read_shape(Words& w, ir::MatrixOp& m, const Token& opc, std::string_view form) {
  const auto shape = w.done() ? std::nullopt : tc::parse_shape(w.peek());
  if (!shape)
    throw Unsupported{DiagId::sim_unsupported_form, opcode_text(opc) + " is not simulated (no " +
                                                        std::string(form) +
                                                        " shape after .sync.aligned)"};
  ++w.k;
  m.m = static_cast<std::uint16_t>((*shape)[0]);
  m.n = static_cast<std::uint16_t>((*shape)[1]);
  m.k = static_cast<std::uint16_t>((*shape)[2]);
}

/// The N element-type words next in `w`, spelled `names` in the refusal.
template <std::size_t N>
std::array<ir::Elem, N> read_types(Words& w, const Token& opc, std::string_view names) {
  std::array<ir::Elem, N> types{};
  for (ir::Elem& t : types) {
    const auto e = tc::parse_elem(w.peek());
    if (!e)
      throw Unsupported{DiagId::sim_unsupported_form,
                        opcode_text(opc) + " is not simulated (`." + std::string(w.peek()) +
                            "` where the types " + std::string(names) + " go)"};
    t = *e;
    ++w.k;
  }
  return types;
}

} // namespace

void Parser::tensor_operands(ir::Op& op, const Token& opc, const std::vector<Opnd>& ops,
                             std::size_t& k) {
  const std::optional<ptx::OpcodeWords> words = ptx::read_opcode(opc.text);
  const std::span<const ptx::OpcodeWord> quals(words->qualifiers);
  Words w{quals};
  // The single-bit wmma.mma names its operation first: `.and.popc` or `.xor.popc`.
  char popc = 0;
  if (op.code == ir::Code::wmma_mma && (w.peek() == tc::word_and || w.peek() == tc::word_xor)) {
    popc = w.peek() == tc::word_and ? '&' : '^';
    ++w.k;
    if (!w.take(tc::word_popc))
      fail(DiagId::sim_qualifier, opc, opcode_text(opc) + ": `.and` / `.xor` go with `.popc`");
  }
  // Every simulated form continues .sync.aligned; others (sparse `mma.sp`, `wgmma.mma_async.sp`)
  // are valid PTX the simulator does not run.
  if (!w.take("sync") || !w.take("aligned"))
    throw Unsupported{DiagId::sim_unsupported_form,
                      opcode_text(opc) + " is not simulated (only the .sync.aligned forms)"};
  const std::span<const ptx::OpcodeWord> rest = quals.subspan(w.k);
  k = ops.size();
  switch (op.code) {
  case ir::Code::mma:
    mma_operands(op, opc, rest, ops);
    return;
  case ir::Code::wgmma:
    wgmma_operands(op, opc, rest, ops);
    return;
  case ir::Code::stmatrix:
  case ir::Code::movmatrix:
    matrix_move_operands(op, opc, rest, ops);
    return;
  case ir::Code::wmma_load:
  case ir::Code::wmma_store:
    wmma_operands(op, opc, words->mnemonic, rest, ops);
    return;
  case ir::Code::wmma_mma:
    wmma_mma_operands(op, opc, rest, ops, popc);
    return;
  default:
    break;
  }
  // wgmma.fence / commit_group: nothing more; wait_group: N
  if (!w.done())
    fail(DiagId::sim_qualifier, opc,
         "unexpected qualifier `." + std::string(w.peek()) + "` on " + opcode_text(opc));
  const std::size_t want = op.code == ir::Code::wgmma_wait ? 1 : 0;
  if (ops.size() != want)
    fail(DiagId::sim_operand_count, opc,
         opcode_text(opc) + " takes " + std::to_string(want) + " operand(s)");
  if (want == 1) {
    if (ops[0].kind != Opnd::Kind::number)
      fail(DiagId::sim_operand_kind, ops[0], "wgmma.wait_group needs an integer immediate N");
    op.n = int_literal(ops[0]);
    if (op.n < 0)
      fail(DiagId::sim_operand_range, ops[0], "wgmma.wait_group's N must not be negative");
  }
}

std::vector<std::uint32_t> Parser::register_list(const Opnd& o, std::size_t count, unsigned bits,
                                                 std::string_view role) {
  std::vector<std::uint32_t> regs;
  if (o.kind != Opnd::Kind::vec && count == 1) {
    regs.push_back(reg(o, bits, false, role));
    return regs;
  }
  if (o.kind != Opnd::Kind::vec || o.elems.size() != count)
    fail(DiagId::sim_operand_kind, o,
         std::string(role) + " must be {" + std::to_string(count) + " registers} here");
  for (const Opnd& e : o.elems)
    regs.push_back(reg(e, bits, false, role));
  return regs;
}

std::vector<std::uint32_t> Parser::mma_list(const Opnd& o, std::size_t count, unsigned bits,
                                            std::string_view role, ir::Elem e,
                                            std::vector<std::uint64_t>* imms) {
  if (o.kind != Opnd::Kind::vec || o.elems.size() != count)
    return register_list(o, count, bits, role);
  std::vector<std::uint32_t> regs;
  for (const Opnd& x : o.elems) {
    if (imms == nullptr && x.kind == Opnd::Kind::name && x.name == "_" && !x.negated) {
      regs.push_back(ir::no_register);
      continue;
    }
    if (imms != nullptr && x.kind == Opnd::Kind::number) {
      TypeInfo t;
      t.t.bits = static_cast<std::uint8_t>(bits);
      t.is_float = e == ir::Elem::f32 || e == ir::Elem::f64; // f16x2, s32: the register's bits
      const std::optional<std::uint64_t> v = literal_bits(x.number, x.minus, t);
      if (!v)
        fail(DiagId::sim_literal, x, quote(x.number) + " is not a literal");
      imms->resize(count, 0);
      (*imms)[regs.size()] = *v;
      regs.push_back(ir::no_register);
      continue;
    }
    regs.push_back(reg(x, bits, false, role));
  }
  return regs;
}

void Parser::mma_operands(ir::Op& op, const Token& opc, std::span<const ptx::OpcodeWord> quals,
                          const std::vector<Opnd>& ops) {
  Words w{quals};
  ir::MatrixOp m;
  read_shape(w, m, opc, "mMnNkK");
  if (!w.take(tc::word_row) || !w.take(tc::word_col))
    throw Unsupported{DiagId::sim_unsupported_form,
                      opcode_text(opc) + " is not simulated (only the .row.col layouts)"};
  m.satfinite = w.take(tc::word_satfinite);
  const auto types = read_types<4>(w, opc, ".dtype.atype.btype.ctype");
  m.d = types[0];
  m.a = types[1];
  m.b = types[2];
  m.c = types[3];
  if (m.d == ir::Elem::f64 && w.take("rn")) {
    // f64 forms may state their (only) rounding
  }
  if (!w.done())
    throw Unsupported{DiagId::sim_unsupported_form,
                      opcode_text(opc) + " is not simulated (`." + std::string(w.peek()) + "`)"};
  if (auto bad = tc::check_mma(m))
    throw Unsupported{DiagId::sim_unsupported_form, *bad};
  if (ops.size() != 4)
    fail(DiagId::sim_operand_count, opc, "mma takes four operands: d, a, b, c");
  const unsigned cbits = m.c == ir::Elem::f64 ? 64 : 32;
  const unsigned abits = m.a == ir::Elem::f64 ? 64 : 32;
  m.dregs = mma_list(ops[0], tc::c_registers(m.m, m.n, m.d), cbits, "mma's d", m.d, nullptr);
  m.aregs = register_list(ops[1], tc::a_registers(m), abits, "mma's a");
  m.bregs = register_list(ops[2], tc::b_registers(m), abits, "mma's b");
  m.cregs = mma_list(ops[3], tc::c_registers(m.m, m.n, m.c), cbits, "mma's c", m.c, &m.cimm);
  op.n = static_cast<std::int64_t>(e_->matrix.size());
  e_->matrix.push_back(std::move(m));
}

void Parser::wgmma_operands(ir::Op& op, const Token& opc, std::span<const ptx::OpcodeWord> quals,
                            const std::vector<Opnd>& ops) {
  Words w{quals};
  ir::MatrixOp m;
  read_shape(w, m, opc, "m64nNkK");
  const auto types = read_types<3>(w, opc, ".dtype.atype.btype");
  m.d = m.c = types[0];
  m.a = types[1];
  m.b = types[2];
  m.satfinite = w.take(tc::word_satfinite);
  if (!w.done())
    throw Unsupported{DiagId::sim_unsupported_form,
                      opcode_text(opc) + " is not simulated (`." + std::string(w.peek()) + "`)"};
  if (auto bad = tc::check_wgmma(m))
    throw Unsupported{DiagId::sim_unsupported_form, *bad};
  if (ops.size() < 4)
    fail(DiagId::sim_operand_count, opc, "wgmma.mma_async takes d, a, b-desc, scale-d and more");
  m.dregs = register_list(ops[0], tc::c_registers(m.m, m.n, m.d) / 4u, 32, "wgmma's d");
  m.a_desc = ops[1].kind != Opnd::Kind::vec;
  if (m.a_desc)
    m.a_desc_reg = reg(ops[1], 64, false, "wgmma's a-desc");
  else
    m.aregs = register_list(ops[1], tc::a_registers(m) / 4u, 32, "wgmma's a");
  m.b_desc_reg = reg(ops[2], 64, false, "wgmma's b-desc");
  const Opnd& scale = ops[3];
  if (scale.kind == Opnd::Kind::number) {
    m.scale_value = int_literal(scale) != 0;
  } else {
    Opnd plain = scale;
    plain.negated = false;
    m.scale_is_reg = true;
    m.scale_neg = scale.negated;
    m.scale_reg = reg(plain, 1, false, "wgmma's scale-d");
  }
  // The immediates that follow: imm-scale-a and -b (not for integers), then the transposes
  // (f16 and bf16 only): imm-trans-a with A from a descriptor, imm-trans-b.
  const bool floats = !tc::is_integer(m.a);
  const bool transposes = m.a == ir::Elem::f16 || m.a == ir::Elem::bf16;
  const std::size_t want = 4 + (floats ? 2 : 0) + (transposes ? (m.a_desc ? 2 : 1) : 0);
  if (ops.size() != want)
    fail(DiagId::sim_operand_count, opc,
         opcode_text(opc) + " takes " + std::to_string(want) + " operands here, found " +
             std::to_string(ops.size()));
  auto imm = [&](std::size_t at, std::int64_t lo, std::int64_t hi, const char* what) {
    if (ops[at].kind != Opnd::Kind::number)
      fail(DiagId::sim_operand_kind, ops[at], std::string(what) + " must be an immediate");
    const std::int64_t v = int_literal(ops[at]);
    if (v < lo || v > hi || (lo == -1 && v == 0))
      fail(DiagId::sim_operand_range, ops[at],
           std::string(what) + (lo == -1 ? " must be 1 or -1" : " must be 0 or 1"));
    return v;
  };
  std::size_t at = 4;
  if (floats) {
    m.scale_a = static_cast<std::int8_t>(imm(at++, -1, 1, "imm-scale-a"));
    m.scale_b = static_cast<std::int8_t>(imm(at++, -1, 1, "imm-scale-b"));
  }
  if (transposes && m.a_desc)
    m.trans_a = imm(at++, 0, 1, "imm-trans-a") != 0;
  if (transposes)
    m.trans_b = imm(at++, 0, 1, "imm-trans-b") != 0;
  op.n = static_cast<std::int64_t>(e_->matrix.size());
  e_->matrix.push_back(std::move(m));
}

void Parser::wmma_operands(ir::Op& op, const Token& opc, ptx::Mnemonic mnemonic,
                           std::span<const ptx::OpcodeWord> quals, const std::vector<Opnd>& ops) {
  Words w{quals};
  ir::MatrixOp m;
  m.part = mnemonic == ptx::Mnemonic::wmma_load_a   ? 'a'
           : mnemonic == ptx::Mnemonic::wmma_load_b ? 'b'
           : mnemonic == ptx::Mnemonic::wmma_load_c ? 'c'
                                                    : 'd';
  m.a_col = w.take(tc::word_col);
  if (!m.a_col && !w.take(tc::word_row))
    fail(DiagId::sim_qualifier, opc, opcode_text(opc) + " needs its layout, .row or .col");
  read_shape(w, m, opc, "mMnNkK");
  op.space = ir::Space::generic;
  if (w.take("global"))
    op.space = ir::Space::global;
  else if (w.take("shared") || w.take("shared::cta"))
    op.space = ir::Space::shared;
  m.d = read_types<1>(w, opc, ".type")[0];
  if (!w.done())
    throw Unsupported{DiagId::sim_unsupported_form,
                      opcode_text(opc) + " is not simulated (`." + std::string(w.peek()) + "`)"};
  if (auto bad = tc::check_wmma(m, m.part))
    throw Unsupported{DiagId::sim_unsupported_form, *bad};
  if (ops.size() != 2 && ops.size() != 3)
    fail(DiagId::sim_operand_count, opc,
         opcode_text(opc) + " takes a fragment, an address and an optional stride");
  const bool load = op.code == ir::Code::wmma_load;
  const unsigned bits = m.d == ir::Elem::f64 ? 64 : 32;
  m.dregs = register_list(ops[load ? 0 : 1], tc::wmma_registers(m, m.part, m.d), bits,
                          load ? "wmma.load's fragment" : "wmma.store's fragment");
  op.addr = address(ops[load ? 1 : 0], op.space, 0);
  if (ops.size() == 3)
    op.src[0] = value(ops[2], 32, "the stride");
  op.n = static_cast<std::int64_t>(e_->matrix.size());
  e_->matrix.push_back(std::move(m));
}

void Parser::wmma_mma_operands(ir::Op& op, const Token& opc, std::span<const ptx::OpcodeWord> quals,
                               const std::vector<Opnd>& ops, char popc) {
  Words w{quals};
  ir::MatrixOp m;
  m.popc = popc;
  for (bool* col : {&m.a_col, &m.b_col}) {
    *col = w.take(tc::word_col);
    if (!*col && !w.take(tc::word_row))
      fail(DiagId::sim_qualifier, opc, opcode_text(opc) + " needs .alayout.blayout (.row/.col)");
  }
  read_shape(w, m, opc, "mMnNkK");
  // .f16 A and B are implied (`.dtype.ctype`); the others spell all four types.
  const auto first = read_types<2>(w, opc, ".dtype.ctype or .dtype.atype.btype.ctype");
  if (w.done() || w.peek() == tc::word_satfinite) {
    m.d = first[0];
    m.c = first[1];
    m.a = m.b = ir::Elem::f16;
  } else {
    const auto more = read_types<2>(w, opc, ".dtype.atype.btype.ctype");
    m.d = first[0];
    m.a = first[1];
    m.b = more[0];
    m.c = more[1];
  }
  m.satfinite = w.take(tc::word_satfinite);
  if (m.d == ir::Elem::f64)
    w.take("rn"); // f64 forms may state their (only) rounding
  if (!w.done())
    throw Unsupported{DiagId::sim_unsupported_form,
                      opcode_text(opc) + " is not simulated (`." + std::string(w.peek()) + "`)"};
  if (auto bad = tc::check_wmma(m, 0))
    throw Unsupported{DiagId::sim_unsupported_form, *bad};
  if (ops.size() != 4)
    fail(DiagId::sim_operand_count, opc, "wmma.mma takes four operands: d, a, b, c");
  const unsigned cbits = m.c == ir::Elem::f64 ? 64 : 32;
  m.dregs = register_list(ops[0], tc::wmma_registers(m, 'd', m.d), cbits, "wmma.mma's d");
  m.aregs = register_list(ops[1], tc::wmma_registers(m, 'a', m.a), cbits, "wmma.mma's a");
  m.bregs = register_list(ops[2], tc::wmma_registers(m, 'b', m.b), cbits, "wmma.mma's b");
  m.cregs = register_list(ops[3], tc::wmma_registers(m, 'c', m.c), cbits, "wmma.mma's c");
  op.n = static_cast<std::int64_t>(e_->matrix.size());
  e_->matrix.push_back(std::move(m));
}

void Parser::matrix_move_operands(ir::Op& op, const Token& opc,
                                  std::span<const ptx::OpcodeWord> quals,
                                  const std::vector<Opnd>& ops) {
  Words w{quals};
  // The shape, the count and .trans in any order, as ldmatrix's (ptxas takes them so).
  bool shape = false;
  std::uint8_t count = 0;
  for (int i = 0; i < 3; ++i) {
    if (!shape && w.take("m8n8"))
      shape = true;
    else if (count == 0 && w.take("x1"))
      count = 1;
    else if (count == 0 && w.take("x2"))
      count = 2;
    else if (count == 0 && w.take("x4"))
      count = 4;
    else if (!op.trans && w.take("trans"))
      op.trans = true;
  }
  const bool mov = op.code == ir::Code::movmatrix;
  if (!shape)
    throw Unsupported{DiagId::sim_unsupported_form,
                      opcode_text(opc) + " is not simulated (only the .m8n8 shape)"};
  if (mov ? (count != 0 || !op.trans) : count == 0)
    fail(DiagId::sim_qualifier, opc,
         mov ? "movmatrix is .m8n8.trans" : "stmatrix needs .x1, .x2 or .x4");
  op.vec = mov ? std::uint8_t{1} : count;
  op.space = ir::Space::generic;
  if (!mov && (w.take("shared") || w.take("shared::cta")))
    op.space = ir::Space::shared;
  if (!w.take("b16") || !w.done())
    throw Unsupported{DiagId::sim_unsupported_form,
                      opcode_text(opc) + " is not simulated (only .b16 elements)"};
  if (ops.size() != 2)
    fail(DiagId::sim_operand_count, opc, opcode_text(opc) + " takes two operands");
  op.type = ir::Type{16, false};
  if (mov) {
    op.dst[0] = reg(ops[0], 32, false, "movmatrix's d");
    op.src[0].kind = ir::Val::Kind::reg;
    op.src[0].reg = reg(ops[1], 32, false, "movmatrix's a");
    return;
  }
  op.addr = address(ops[0], op.space, 0);
  const std::vector<std::uint32_t> regs = register_list(ops[1], count, 32, "stmatrix's source");
  for (std::size_t r = 0; r < regs.size(); ++r) {
    op.src[r].kind = ir::Val::Kind::reg;
    op.src[r].reg = regs[r];
  }
}

} // namespace ptxgen::sim::detail
