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

/// The shapes that do not take exactly one operand, with their {fewest, most}.
struct ShapeCount {
  Shape shape;
  std::size_t fewest;
  std::size_t most;
};
constexpr ShapeCount other_counts[] = {
    {Shape::none, 0, 0},
    {Shape::thread_count, 0, 1},
    {Shape::fraction, 0, 1},
    {Shape::opt_u32, 0, 1},
    {Shape::opt_src, 0, 1},
    {Shape::bool_src, 0, 1},
    {Shape::opt_mem, 0, 1},
    // a store has no mbarrier; a load's is required; a multicast's mask (shapes.cpp)
    {Shape::bulk_tail, 0, 3},
    {Shape::cp_extra, 0, 2},
    {Shape::src_pair, 0, 1},
    {Shape::policy, 0, 1},
    {Shape::tensor_operands, 0, 8}, // wgmma.mma_async's most; the reader checks each form's count
    {Shape::pos_len, 2, 2},
    {Shape::src_lut, 2, 2},
    {Shape::red_tail, 1, 2},
};

/// How many operands a shape takes: {fewest, most}; one for every shape not listed above.
std::pair<std::size_t, std::size_t> operand_count(Shape s) {
  for (const ShapeCount& c : other_counts) {
    if (c.shape == s)
      return {c.fewest, c.most};
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
