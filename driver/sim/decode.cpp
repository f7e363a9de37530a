// The simulator's PTX parser: the instruction statement. decode() finds an
// opcode's form (forms.hpp), reads its qualifiers by the form's grammar
// (qualifiers.cpp), then each operand by its Shape (shapes.cpp).

#include "driver/sim/forms.hpp"
#include "driver/sim/parser_impl.hpp"

#include <cctype>

namespace ptxgen::sim::detail {

void Parser::instruction(ir::Entry& e) {
  ir::Op op;
  const Token& first = peek();
  op.line = first.line;
  std::size_t start = first.pos;
  std::optional<Opnd> guard;
  if (accept("@")) {
    guard = operand();
    if (guard->kind != Opnd::Kind::name)
      fail(DiagId::sim_operand_kind, *guard, "a guard is `@%p` or `@!%p`");
  }
  const Token& opc = expect_ident("an instruction");
  const bool is_call = opc.text == "call" || opc.text.starts_with("call.");
  std::vector<Opnd> ops;
  std::optional<Unsupported> unsupported;
  if (is_call) {
    try {
      call(e, op, opc); // reads through the `;`
    } catch (const Unsupported& u) {
      unsupported = u;
    }
  } else {
    if (!is(";")) {
      do {
        ops.push_back(operand());
      } while (accept(","));
    }
    if (!is(";"))
      fail(DiagId::sim_syntax, peek(),
           "expected `,` or `;` after an operand, found " + describe(peek()));
    next();
  }
  const Token& semi = toks_[i_ - 1];
  // The instruction text, whitespace collapsed, for messages.
  std::string text;
  for (char c : src_.substr(start, semi.pos + 1 - start)) {
    bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space) {
      if (!text.empty() && text.back() != ' ')
        text.push_back(' ');
    } else {
      text.push_back(c);
    }
  }
  op.text = static_cast<std::uint32_t>(e.texts.size());
  e.texts.push_back(text);
  if (guard) {
    // reg() refuses negated operands; the guard's negation is kept apart.
    Opnd plain = *guard;
    plain.negated = false;
    op.guard = static_cast<std::int32_t>(reg(plain, 1, false, "the guard"));
    op.guard_neg = guard->negated;
  }
  try {
    if (!is_call)
      decode(op, opc, ops);
  } catch (const Unsupported& u) {
    unsupported = u;
  }
  if (unsupported) {
    op.code = ir::Code::unsupported;
    op.n = static_cast<std::int64_t>(e.texts.size());
    e.texts.push_back(unsupported->reason);
    add(Severity::warning, unsupported->id, opc.pos, opc.text.size(), unsupported->reason);
  }
  e.ops.push_back(op);
}

void Parser::decode(ir::Op& op, const Token& opc, const std::vector<Opnd>& ops) {
  // The opcode is read by the emitter's vocabulary: its mnemonic, then its qualifier words.
  const std::optional<ptx::OpcodeWords> words = ptx::read_opcode(opc.text);
  const Form* form = words ? find_form(words->mnemonic) : nullptr;
  if (form == nullptr) {
    const std::string_view root = opc.text.substr(0, opc.text.find('.'));
    if (ptx::known_root(root))
      throw Unsupported{DiagId::sim_unsupported_form,
                        quote(opc.text) + " is not simulated (no simulated form of " + quote(root) +
                            " matches)"};
    throw Unsupported{DiagId::sim_unknown_instruction,
                      quote(opc.text) + " is not in the simulated PTX subset"};
  }
  op.code = form->code;
  if (words->mnemonic == ptx::Mnemonic::exit)
    op.n = 1; // exit leaves the thread even inside a call
  const std::span<const ptx::OpcodeWord> quals(words->qualifiers);
  Decoded d = qualifiers(*form, op, opc, quals);
  std::size_t lo = min_operands(*form), hi = max_operands(*form);
  if (ops.size() < lo || ops.size() > hi)
    fail(DiagId::sim_operand_count, opc,
         quote(opc.text) + " takes " +
             (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
             " operand" + (hi == 1 ? "" : "s") + ", found " + std::to_string(ops.size()));
  for (std::size_t j = 0; j < ops.size(); ++j) {
    if (!ops[j].pair.empty() &&
        (j != 0 || (form->operands[0] != Shape::dst_pair && form->operands[0] != Shape::pred_pair)))
      throw Unsupported{DiagId::sim_unsupported_operand,
                        "the `d|p` operand of " + quote(opc.text) + " is not simulated"};
  }
  std::size_t k = 0;
  for (Shape s : form->operands)
    shape(s, op, d, opc, ops, k);
}

} // namespace ptxgen::sim::detail
