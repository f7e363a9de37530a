#include "emitter/tile/multicast_contract.hpp"

#include "emitter/tile/contract.hpp"
#include "emitter/tile/expr_walk.hpp"

#include <algorithm>
#include <string>

namespace ptxgen::tile {

// A named namespace: the unity build joins this file with the other contract files, whose
// file-local helpers have names of their own.
namespace multicast_proof {

/// Above this many threads a launch is not enumerated (as the bulk proofs' limit).
constexpr std::int64_t kMaxThreads = std::int64_t{1} << 16;

std::uint32_t span_of(const Located<ExprPtr>& l) {
  return static_cast<std::uint32_t>(std::max<std::size_t>(l.text.size(), 1));
}

std::string bits_text(std::int64_t v) {
  if (v <= 0)
    return std::to_string(v);
  std::string s;
  for (std::int64_t x = v; x > 0; x >>= 1)
    s.insert(s.begin(), (x & 1) != 0 ? '1' : '0');
  return std::to_string(v) + " (0b" + s + ")";
}

/// Why mask value v is refused in a cluster of n CTAs; empty when it is fine.
std::string mask_fault(std::int64_t v, std::int64_t n) {
  if (v <= 0)
    return "names no CTA";
  if (v >= (std::int64_t{1} << n)) {
    std::int64_t bit = n;
    while (((v >> bit) & 1) == 0)
      ++bit;
    return "sets bit " + std::to_string(bit) + ", a CTA outside the cluster of " +
           std::to_string(n) + " (ranks 0.." + std::to_string(n - 1) + ")";
  }
  return {};
}

/// The first issuing thread whose mask is refused, by enumeration; false when none is.
bool find_bad_thread(const Kernel& k, const Located<ExprPtr>& mask, const Located<ExprPtr>* pred,
                     std::int64_t n, ExprEnv& at, std::int64_t& value) {
  for (std::int64_t b = 0; b < k.grid; ++b)
    for (std::int64_t t = 0; t < k.block; ++t) {
      const ExprEnv env = k.env_for(b, t);
      if (pred != nullptr) {
        const auto p = evaluate(*pred->value, env);
        if (!p || *p == 0)
          continue;
      }
      const auto v = evaluate(*mask.value, env);
      if (!v || !mask_fault(*v, n).empty()) {
        at = env;
        value = v.value_or(0);
        return true;
      }
    }
  return false;
}

} // namespace multicast_proof

ClusterPlace cluster_place(const Kernel& k, std::int64_t bid) {
  const Dim3 g = k.grid_dim.or_x(k.grid);
  const Dim3 c = k.cluster_dim();
  const std::int64_t x = bid % g.x;
  const std::int64_t y = (bid / g.x) % g.y;
  const std::int64_t z = bid / (g.x * g.y);
  ClusterPlace out;
  out.rank = x % c.x + c.x * (y % c.y + c.y * (z % c.z));
  const std::int64_t x0 = x - x % c.x;
  const std::int64_t y0 = y - y % c.y;
  const std::int64_t z0 = z - z % c.z;
  for (std::int64_t r = 0; r < c.count(); ++r) {
    const std::int64_t px = x0 + r % c.x;
    const std::int64_t py = y0 + (r / c.x) % c.y;
    const std::int64_t pz = z0 + r / (c.x * c.y);
    out.peers.push_back(px + g.x * (py + g.y * pz));
  }
  return out;
}

void check_multicast_mask(const BulkProofContext& c, const std::optional<Located<ExprPtr>>& mask,
                          const std::optional<Located<ExprPtr>>& op_pred) {
  using namespace multicast_proof;
  if (!mask)
    return;
  const Located<ExprPtr>* pred = op_pred ? &*op_pred : nullptr;
  const auto lb = pred ? narrow_on(*pred->value, true, c.bounds) : c.bounds;
  if (!lb)
    return; // no thread issues it
  const std::size_t before = c.out.items().size();
  c.u32(*mask->value, *lb, mask->pos, span_of(*mask), "multicast", true);
  if (c.out.items().size() != before)
    return;
  const std::int64_t n = c.kernel.cluster_dim().count();
  const std::int64_t full = (std::int64_t{1} << n) - 1;
  const auto b = bounds(*mask->value, *lb);
  if (b && b->lo >= 1 && b->hi <= full)
    return;
  const std::string head = "multicast mask '" + mask->text + "' ";
  const std::string need = ": a multicast's mask must stay in 1.." + std::to_string(full) +
                           " (the CTAs of the cluster, bit r for rank r) for every issuing "
                           "thread and value of the declared ranges";
  // Intervals lose what `^`, `&` and `|` keep: where nothing but the thread fixes the mask,
  // the threads are enumerated before a refusal.
  const bool by_thread = c.kernel.grid * c.kernel.block <= kMaxThreads &&
                         !uses_params(*mask->value) &&
                         (pred == nullptr || !uses_params(*pred->value));
  if (by_thread) {
    ExprEnv at;
    std::int64_t v = 0;
    if (!find_bad_thread(c.kernel, *mask, pred, n, at, v))
      return;
    c.out.add(diagnostic_at(DiagId::contract_multicast_mask, mask->pos,
                            head + "is " + bits_text(v) + " for thread " + std::to_string(at.tid) +
                                " of CTA " + std::to_string(at.bid) + ", which " +
                                mask_fault(v, n) + need,
                            span_of(*mask)));
    return;
  }
  std::string fault = "has no bound";
  if (b) {
    const std::int64_t v = b->hi > full ? b->hi : b->lo;
    fault = "ranges over " + std::to_string(b->lo) + ".." + std::to_string(b->hi) + ": at " +
            bits_text(v) + " it " + mask_fault(v, n);
  }
  c.out.add(diagnostic_at(DiagId::contract_multicast_mask, mask->pos, head + fault + need,
                          span_of(*mask)));
}

} // namespace ptxgen::tile
