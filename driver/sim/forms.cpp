// The simulator's instruction forms (forms.hpp): the table of forms.def and
// the lookups the parser makes in it.

#include "driver/sim/forms.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace ptxgen::sim::detail {
namespace {

constexpr Form table[] = {
#define SIM_CODE(code, family)
#define SIM_FORM(mnemonic, code, qualifiers, types, o1, o2, o3, o4)                                \
  Form{ptx::Mnemonic::mnemonic,                                                                    \
       ir::Code::code,                                                                             \
       Quals::qualifiers,                                                                          \
       Types::types,                                                                               \
       {Shape::o1, Shape::o2, Shape::o3, Shape::o4}},
#include "driver/sim/forms.def"
#undef SIM_FORM
#undef SIM_CODE
};

/// How many operands a shape takes: {fewest, most}.
std::pair<std::size_t, std::size_t> operand_count(Shape s) {
  switch (s) {
  case Shape::none:
    return {0, 0};
  case Shape::thread_count:
  case Shape::fraction:
  case Shape::opt_u32:
  case Shape::opt_src:
    return {0, 1};
  case Shape::bulk_tail:
    return {0, 3}; // a store has no mbarrier; a load's is required; a multicast's mask
                   // (shapes.cpp)
  case Shape::cp_extra:
    return {0, 2};
  case Shape::src_pair:
  case Shape::policy:
    return {0, 1};
  case Shape::tensor_operands:
    return {0, 8}; // wgmma.mma_async's most; the reader checks each form's count
  case Shape::pos_len:
  case Shape::src_lut:
    return {2, 2};
  case Shape::red_tail:
    return {1, 2};
  case Shape::reg_count:
    return {1, 1};
  case Shape::dst_u32:
  case Shape::matrix_dst:
  case Shape::pred_src:
  case Shape::dst_pair:
    return {1, 1};
  case Shape::dst:
  case Shape::dst_wide:
  case Shape::dst_at_least:
  case Shape::dst_pred:
  case Shape::mov_dst:
  case Shape::src:
  case Shape::src_wide:
  case Shape::src_u32:
  case Shape::src_from:
  case Shape::src_address:
  case Shape::mov_src:
  case Shape::pred:
  case Shape::group_count:
  case Shape::barrier:
  case Shape::label:
  case Shape::data:
  case Shape::mem:
  case Shape::cp_dst:
  case Shape::cp_src:
  case Shape::cp_size:
  case Shape::mbar_addr:
  case Shape::mbar_state:
  case Shape::tensor_op1:
  case Shape::tensor_op2:
    return {1, 1};
  }
  return {1, 1};
}

} // namespace

std::span<const Form> forms() {
  return table;
}

const Form* find_form(ptx::Mnemonic m) {
  const auto* f = std::find_if(std::begin(table), std::end(table),
                               [m](const Form& row) { return row.mnemonic == m; });
  return f == std::end(table) ? nullptr : f;
}

const Form* find_form(std::string_view opcode) {
  const std::optional<ptx::MnemonicMatch> m = ptx::parse_mnemonic(opcode);
  return m ? find_form(m->mnemonic) : nullptr;
}

std::size_t min_operands(const Form& f) {
  std::size_t n = 0;
  for (Shape s : f.operands)
    n += operand_count(s).first;
  return n;
}

std::size_t max_operands(const Form& f) {
  std::size_t n = 0;
  for (Shape s : f.operands)
    n += operand_count(s).second;
  return n;
}

} // namespace ptxgen::sim::detail
