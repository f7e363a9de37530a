#pragma once
// Known ptxas miscompiles, recognised in SASS: a table of signatures (one entry
// each, with an id, a description and its public references) and a scan of a
// parsed listing. A match means PTX that ptxas accepted became machine code
// that the device rejects or runs wrongly: the toolchain's defect, not the PTX's.

#include "driver/sass/listing.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver::sass {

enum class TrapId : std::uint8_t {
  /// An LDGSTS whose shared address (`[Rx+URn]`) or global memory descriptor
  /// (`desc[URn]`) names a uniform register that no instruction of the function
  /// writes (ptxas 13.0 for some `.L2::cache_hint` copies, sm_90).
  ldgsts_unwritten_uniform,
};

/// "ldgsts_unwritten_uniform": the id in reports (JSON, warnings).
std::string_view name(TrapId id);

/// One place a signature matched.
struct TrapMatch {
  TrapId id = TrapId::ldgsts_unwritten_uniform;
  std::string function;                ///< the kernel (mangled, as the listing names it)
  std::size_t line = 0;                ///< 1-based line of the SASS text
  std::optional<std::uint64_t> offset; ///< the instruction's address
  std::string instruction;             ///< the SASS instruction, as written
  std::string why;                     ///< e.g. "UR0, UR1 are never written in the function"
};

/// One known miscompile.
struct Signature {
  TrapId id;
  std::string_view description;
  std::span<const std::string_view> references; ///< public reports of the defect
  /// Appends the function's matches.
  void (*scan)(const Function&, std::vector<TrapMatch>&);
};

/// Every known signature, in TrapId order.
std::span<const Signature> signatures();
const Signature& signature(TrapId id);

/// Every match of every signature in the listing, in listing order per signature.
std::vector<TrapMatch> find_traps(const Listing& listing);

/// "ptxas miscompile ldgsts_unwritten_uniform at SASS line 35 (_Z3foo /*0180*/
/// LDGSTS.E.BYPASS.128 [R9+UR0], desc[UR1][R2.64]): UR0, UR1 are never written ..."
std::string describe(const TrapMatch& m);

} // namespace ptxgen::driver::sass
