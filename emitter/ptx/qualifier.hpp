#pragma once
// The PTX qualifier words of qualifiers.def: one enum and one spelling each, grouped by what
// they say (a rounding, a state space, a cache hint, ...).

#include "emitter/ptx/types.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ptxgen::ptx {

/// A qualifier word, spelled without its dot (qualifiers.def).
enum class Qualifier : std::uint8_t {
#define PTXGEN_PTX_QUALIFIER(id, spelling, group) id,
#include "emitter/ptx/qualifiers.def"
#undef PTXGEN_PTX_QUALIFIER
};

/// What a qualifier word says.
enum class QualifierGroup : std::uint8_t {
  rounding,        ///< `.rn` ... `.rpi`
  modifier,        ///< `.ftz`, `.sat`, `.uni`, `.aligned`, `.to`, ... (the instruction says)
  state_space,     ///< `.global`, `.shared::cta`, `.const`, ...
  vector,          ///< `.v2`, `.v4`
  semantics,       ///< `.weak`, `.volatile`, `.relaxed`, `.acquire`, `.release`, `.acq_rel`
  scope,           ///< `.cta`, `.cluster`, `.gpu`, `.sys`
  cache_operator,  ///< `.ca` ... `.nc`
  eviction,        ///< `.L1::evict_*`, `.L1::no_allocate`, `.L2::evict_*`: ld / st hints
  policy_eviction, ///< `.L2::evict_unchanged`: a createpolicy priority only
  prefetch_size,   ///< `.L2::64B`, `.L2::128B`, `.L2::256B`
  cache_hint,      ///< `.L2::cache_hint`
  atomic_op,       ///< atom / red's `.add` ... `.xor`
  permute,         ///< prmt's `.f4e` ... `.rc16`
  warp_mode,       ///< shfl.sync's `.up .down .bfly .idx`, vote.sync's `.all .any .ballot`
  funnel,          ///< shf's `.l .r` and `.wrap .clamp`
  matrix,          ///< ldmatrix's `.m8n8` and `.x1 .x2 .x4`
  level,           ///< prefetch's `.L1 .L2`, membar's `.gl`
  completion,      ///< cp.async.bulk's `.mbarrier::complete_tx::bytes`, `.bulk_group`, multicast
  tensor_dim,      ///< cp.async.bulk.tensor's `.1d` ... `.5d`
  tensor_mode,     ///< cp.async.bulk.tensor's load mode `.tile`
  float_type,      ///< `.bf16`, `.f16x2`, `.bf16x2` (the others are ScalarType's)
  integer_pair,    ///< `.u16x2`, `.s16x2`: two 16-bit integers in 32 bits
};

namespace detail {
struct QualifierRow {
  std::string_view spelling;
  QualifierGroup group;
};
/// qualifiers.def's rows, indexed by Qualifier.
inline constexpr QualifierRow qualifier_rows[] = {
#define PTXGEN_PTX_QUALIFIER(id, spelling, group) {spelling, QualifierGroup::group},
#include "emitter/ptx/qualifiers.def"
#undef PTXGEN_PTX_QUALIFIER
};
} // namespace detail

/// "L2::cache_hint" for Qualifier::L2_cache_hint.
constexpr std::string_view spelling(Qualifier q) {
  return detail::qualifier_rows[static_cast<std::size_t>(q)].spelling;
}
/// The group qualifiers.def gives `q`.
constexpr QualifierGroup group(Qualifier q) {
  return detail::qualifier_rows[static_cast<std::size_t>(q)].group;
}
/// Inverse of spelling(); nullopt for a word that is not in qualifiers.def.
std::optional<Qualifier> parse_qualifier(std::string_view word);

/// The rounding a word names (`rn` -> Rounding::rn); nullopt for any other word.
std::optional<Rounding> parse_rounding(std::string_view word);
/// Whether a rounding rounds to an integral value (`.rni` ... `.rpi`).
constexpr bool integral(Rounding r) {
  return r >= Rounding::rni;
}

} // namespace ptxgen::ptx
