#include "emitter/tile/well_formed.hpp"

#include "emitter/ptx/validator.hpp"
#include "emitter/tile/suggest.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace ptxgen::tile {

std::optional<Diagnostic> wait_group_rule(std::int64_t n) {
  if (n >= 0 && n <= ptx::max_wait_group)
    return std::nullopt;
  return Diagnostic(DiagId::contract_wait_group_range,
                    "wait_group n must be in 0.." + std::to_string(ptx::max_wait_group) +
                        "; it is " + std::to_string(n) +
                        " (ptxgen is stricter than ptxas, which accepts any integer)");
}

std::optional<Diagnostic> policy_param_rule(std::span<const ScalarParam> params,
                                            std::string_view name) {
  const std::string quoted = "'" + std::string(name) + "'";
  const auto it = std::find_if(params.begin(), params.end(),
                               [&](const ScalarParam& p) { return p.name == name; });
  if (it == params.end()) {
    // By name, as the suggestion's ties are broken the same way at every door.
    std::vector<std::string_view> u64s;
    for (const ScalarParam& p : params)
      if (p.is_u64)
        u64s.push_back(p.name);
    std::sort(u64s.begin(), u64s.end());
    return Diagnostic(DiagId::contract_policy_param_unknown,
                      "unknown parameter " + quoted + " for the cache policy" +
                          did_you_mean(name, u64s) + " (declare it as [param." + std::string(name) +
                          "] with dtype = \"u64\")");
  }
  if (!it->is_u64)
    return Diagnostic(DiagId::contract_policy_param_not_u64,
                      "cache policy parameter " + quoted +
                          " is u32; a cache policy is a 64-bit operand (dtype = \"u64\")");
  return std::nullopt;
}

std::optional<Diagnostic> operand_forms_rule(bool src_size, bool ignore_src) {
  if (!(src_size && ignore_src))
    return std::nullopt;
  return Diagnostic(DiagId::contract_src_size_and_ignore_src,
                    "src_size and ignore_src are alternative operand forms and cannot both be "
                    "supplied");
}

std::optional<Diagnostic> set_param_value(Kernel& k, std::string_view name, std::uint64_t value) {
  const std::string quoted = "'" + std::string(name) + "'";
  auto it = std::find_if(k.params.begin(), k.params.end(),
                         [&](const ScalarParam& p) { return p.name == name; });
  if (it == k.params.end())
    return Diagnostic(DiagId::run_param_value, "the kernel has no parameter " + quoted);
  std::string outside;
  if (it->range) {
    if (value < static_cast<std::uint64_t>(it->range->lo) ||
        value > static_cast<std::uint64_t>(it->range->hi))
      outside = "its declared range " + std::to_string(it->range->lo) + ".." +
                std::to_string(it->range->hi);
  } else if (!it->is_u64 && value > std::uint64_t{0xFFFFFFFF}) {
    outside = "the range of a u32, 0..4294967295";
  }
  if (!outside.empty())
    return Diagnostic(DiagId::run_param_value, "parameter " + quoted + " = " +
                                                   std::to_string(value) + " is outside " +
                                                   outside);
  it->value = value;
  return std::nullopt;
}

} // namespace ptxgen::tile
