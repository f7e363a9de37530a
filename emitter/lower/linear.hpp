#pragma once
// Linear forms of index expressions: the address arithmetic of the lowering is
// built from them, so that constants fold into [reg+imm] and structurally
// equal terms share one register.

#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <map>

namespace ptxgen::lower {

/// A total order on expression trees that agrees with tile::structurally_equal
/// (kinds, ops, constant values, parameter names; spans ignored): caches are
/// keyed by the tree itself, never by its printed text. It is also the order
/// in which address() multiplies a linear form's atoms in:
///  - leaves before compound expressions; constants (by value), then the
///    values uniform across the CTA (parameters by name, bid), then the
///    per-thread ones (lane, tid, warp);
///  - compound expressions by their first operand, then the operator (by its
///    spelling), then the other operands.
/// (On the golden corpus this is the order the former text keys gave.)
int compare(const tile::Expr& a, const tile::Expr& b);

template <class T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : b < a ? 1 : 0;
}

struct ExprLess {
  bool operator()(const tile::ExprPtr& a, const tile::ExprPtr& b) const {
    return compare(*a, *b) < 0;
  }
};

/// A linear combination of "atoms" (leaves, or sub-expressions that are not
/// linear) with integer coefficients, plus a constant. Address arithmetic is
/// built from it so that constants fold into [reg+imm] and warp/lane pairs
/// that recombine into tid are recombined.
struct Linear {
  /// atom -> coefficient (never 0), in compare()'s order: address() multiplies
  /// them in in this order; structurally equal atoms are one term.
  std::map<tile::ExprPtr, std::int64_t, ExprLess> terms;
  std::int64_t constant = 0;
  /// A constant already added into the address register (see address()).
  std::int64_t folded = 0;
  /// The register part is summed in 32 bits and then widened (see address()).
  bool wrap32 = false;

  void add(const Linear& o, std::int64_t scale) {
    constant += o.constant * scale;
    for (const auto& [atom, coeff] : o.terms)
      add_atom(atom, coeff * scale);
  }
  void add_atom(const tile::ExprPtr& atom, std::int64_t coeff) {
    if (coeff == 0)
      return;
    auto it = terms.try_emplace(atom, 0).first;
    it->second += coeff;
    if (it->second == 0)
      terms.erase(it);
  }
};

/// Orders linear forms by what their address register holds: the terms and
/// `folded` (not `constant`, which the caller folds into [reg+imm]). Forms
/// that compare equal share an address register.
int compare_registers(const Linear& a, const Linear& b);

/// e as a linear form: sums, differences, negations and multiplications or
/// shifts by constants are linear; any other sub-expression is an atom.
Linear linearize(const tile::ExprPtr& e);

/// warp*32c + lane*c == tid*c for every tid >= 0: recombine such pairs.
void recombine_warp_lane(Linear& l);

} // namespace ptxgen::lower
