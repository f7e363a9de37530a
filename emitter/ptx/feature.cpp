#include "emitter/ptx/feature.hpp"

#include <array>
#include <variant>

namespace ptxgen::ptx {

namespace {

// Versions and targets as PTX_RULES.md records them (ptxas 13.0 and the PTX ISA 9.0 manual).
constexpr std::array<FeatureInfo, 7> table = {{
    {Feature::cp_async, "cp.async", {7, 0}, 80, false},
    {Feature::cp_async_cache_hint, "`.L2::cache_hint`", {7, 4}, 80, false},
    {Feature::cp_async_prefetch,
     "the `.L2::64B`/`.L2::128B`/`.L2::256B` prefetch",
     {7, 4},
     80,
     false},
    {Feature::cp_async_ignore_src, "the ignore-src operand", {7, 5}, 80, false},
    // The manual dates `.shared::cta` to 7.8; ptxas 13.0 accepts it at 7.0 on cp.async.
    {Feature::shared_cta, "`.shared::cta`", {7, 8}, 80, true},
    {Feature::cp_async_mbarrier_arrive, "cp.async.mbarrier.arrive", {7, 0}, 80, false},
    {Feature::createpolicy, "createpolicy.fractional", {7, 4}, 80, false},
}};

struct TargetRow {
  int sm;
  bool arch_specific;
  PtxVersion min;
};

// The lowest `.version` ptxas 13.0 accepts for each target it knows.
constexpr std::array<TargetRow, 18> target_rows = {{
    {75, false, {7, 0}},
    {80, false, {7, 0}},
    {86, false, {7, 1}},
    {87, false, {7, 4}},
    {88, false, {7, 3}},
    {89, false, {7, 8}},
    {90, false, {7, 8}},
    {90, true, {8, 0}},
    {100, false, {8, 6}},
    {100, true, {8, 6}},
    {103, false, {8, 8}},
    {103, true, {8, 8}},
    {110, false, {9, 0}},
    {110, true, {9, 0}},
    {120, false, {8, 7}},
    {120, true, {8, 7}},
    {121, false, {8, 8}},
    {121, true, {8, 8}},
}};

} // namespace

std::span<const FeatureInfo> feature_table() {
  return table;
}

const FeatureInfo& info(Feature f) {
  for (const auto& row : table)
    if (row.feature == f)
      return row;
  return table.front();
}

bool is_known_target(Target t) {
  for (const auto& row : target_rows)
    if (row.sm == t.sm && row.arch_specific == t.arch_specific)
      return true;
  return false;
}

PtxVersion min_version_for_target(Target t) {
  for (const auto& row : target_rows)
    if (row.sm == t.sm && row.arch_specific == t.arch_specific)
      return row.min;
  // An unknown target: the minimum of the nearest known one below it (validate() rejects it).
  PtxVersion best{7, 0};
  int best_sm = 0;
  for (const auto& row : target_rows)
    if (row.sm <= t.sm && row.sm >= best_sm && (!row.arch_specific || t.arch_specific)) {
      best_sm = row.sm;
      best = row.min;
    }
  return best;
}

bool is_known_version(PtxVersion v) {
  if (v.major == 7)
    return v.minor >= 0 && v.minor <= 8;
  if (v.major == 8)
    return v.minor >= 0 && v.minor <= 8;
  if (v.major == 9)
    return v.minor == 0;
  return false;
}

std::vector<Feature> features_used(const Instruction& i) {
  std::vector<Feature> out;
  if (const auto* cp = std::get_if<CpAsync>(&i.body)) {
    out.push_back(Feature::cp_async);
    if (cp->opcode.cache_hint)
      out.push_back(Feature::cp_async_cache_hint);
    if (cp->opcode.prefetch != L2Prefetch::none)
      out.push_back(Feature::cp_async_prefetch);
    if (std::holds_alternative<IgnoreSrc>(cp->zero_fill))
      out.push_back(Feature::cp_async_ignore_src);
    if (cp->opcode.dst_space == SharedSpace::shared_cta)
      out.push_back(Feature::shared_cta);
  } else if (std::holds_alternative<CpAsyncCommitGroup>(i.body) ||
             std::holds_alternative<CpAsyncWaitGroup>(i.body) ||
             std::holds_alternative<CpAsyncWaitAll>(i.body)) {
    out.push_back(Feature::cp_async);
  } else if (const auto* mb = std::get_if<CpAsyncMbarrierArrive>(&i.body)) {
    out.push_back(Feature::cp_async_mbarrier_arrive);
    if (mb->space == SharedSpace::shared_cta)
      out.push_back(Feature::shared_cta);
  } else if (std::holds_alternative<CreatePolicyFractional>(i.body)) {
    out.push_back(Feature::createpolicy);
  }
  return out;
}

} // namespace ptxgen::ptx
