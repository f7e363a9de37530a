// The simulator's PTX parser: the integer forms of kernels' int8 and int16 math: the dot
// products dp4a / dp2a, the packed 16-bit pairs of add / min / max (.u16x2, .s16x2) and
// min / max's .relu (PTX ISA, "Integer Arithmetic Instructions").

#include "driver/sim/parser_impl.hpp"
#include "emitter/ptx/opcode_words.hpp"
#include "emitter/ptx/qualifier.hpp"
#include "emitter/ptx/types.hpp"

namespace ptxgen::sim::detail {

std::optional<TypeInfo> integer_pair(ir::Code code, const ptx::OpcodeWord& part) {
  // ptxas takes the pairs on add, min and max (not on sub)
  const bool arith = code == ir::Code::add || code == ir::Code::min || code == ir::Code::max;
  if (!arith || !part.qualifier || ptx::group(*part.qualifier) != ptx::QualifierGroup::integer_pair)
    return std::nullopt;
  return TypeInfo{ir::Type{32, part.qualifier == ptx::Qualifier::s16x2, ir::Num::integer}, false,
                  false, false};
}

void Parser::integer_arith_checks(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  // .relu (read on min and max only): of the integers, .s32 and .s16x2 (both 32-bit signed
  // integers here); the float forms' .relu is not simulated
  if (op.relu && d.type.is_float)
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(opc.text) + " is not simulated (a float min / max with `.relu`)"};
  if (op.relu && !(op.type.is_signed && op.type.bits == 32))
    fail(DiagId::sim_qualifier, opc,
         quote(opc.text) + ": `.relu` applies to min and max of .s32 and .s16x2");
  if (op.halves && (op.sat || op.ftz || op.round != ir::Round::none)) // ptxas refuses them
    fail(DiagId::sim_qualifier, opc,
         quote(opc.text) + ": the 16-bit pairs take no rounding, .ftz or .sat");
}

void Parser::dot_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  // .atype.btype, each .u32 or .s32: the types of a's and b's elements (zero- or sign-extended);
  // c and d are .u32 when both are, else .s32 (the same 32 bits: the sum wraps).
  // (the opcode passed in: clang captures no structured binding in a lambda)
  auto element_type = [this](const ptx::OpcodeWord& q, const Token& opcode) {
    const std::optional<ptx::ScalarType> t = ptx::parse_scalar_type(q.text);
    if (t != ptx::ScalarType::u32 && t != ptx::ScalarType::s32)
      fail(DiagId::sim_qualifier, opcode,
           quote(opcode.text) + ": `." + std::string(q.text) + "` is not .u32 or .s32");
    return *parse_type(q.text);
  };
  if (quals.size() != 2)
    fail(DiagId::sim_qualifier, opc,
         quote(opc.text) + ": expected " + std::string(ptx::spelling(f.mnemonic)) +
             ".atype.btype (each .u32 or .s32)");
  d.type = element_type(quals[0], opc);
  d.from = element_type(quals[1], opc);
  op.type = d.type.t;
  op.type2 = d.from.t;
  op.n = f.mnemonic == ptx::Mnemonic::dp2a_hi ? 2 : 0;
}

} // namespace ptxgen::sim::detail
