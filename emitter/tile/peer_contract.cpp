// Proofs about views of a peer CTA's shared tensor: the rank inside the cluster, and no peer
// access after the peer may have exited (peer_contract.hpp).

#include "emitter/tile/peer_contract.hpp"

#include "emitter/tile/contract.hpp"
#include "emitter/tile/expr_walk.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ptxgen::tile {

namespace {

bool names_a_variable(const Expr& e) {
  return find_node(e, [](const Expr& x) {
           return x.kind == ExprKind::param || x.kind == ExprKind::loop;
         }) != nullptr;
}

/// The first thread of the launch (parameters at their test values) whose rank is not in
/// 0..n-1, as "rank R at thread T of CTA B"; nullopt when every thread's is.
std::optional<std::string> failing_thread(const Kernel& k, const Expr& rank, std::int64_t n,
                                          const Expr* pred) {
  ExprEnv env;
  env.block_dim = k.block_dim.or_x(k.block);
  env.grid_dim = k.grid_dim.or_x(k.grid);
  env.cluster_dim = k.cluster_dim();
  for (std::int64_t b = 0; b < k.grid; ++b)
    for (std::int64_t t = 0; t < k.block; ++t) {
      env.bid = b;
      env.tid = t;
      if (pred != nullptr) {
        const auto p = evaluate(*pred, env);
        if (p && *p == 0)
          continue; // the thread does not issue it
      }
      const auto r = evaluate(rank, env);
      if (!r)
        return "no rank (a division by zero) at thread " + std::to_string(t) + " of CTA " +
               std::to_string(b);
      if (*r < 0 || *r >= n)
        return "rank " + std::to_string(*r) + " at thread " + std::to_string(t) + " of CTA " +
               std::to_string(b);
    }
  return std::nullopt;
}

/// The launches small enough to enumerate thread by thread.
constexpr std::int64_t max_enumerated_ranks = std::int64_t{1} << 20;

} // namespace

void check_peer_rank(const Kernel& k, const LaunchBounds& launch, const Located<View>& v,
                     std::string_view role, Diagnostics& out, const Expr* pred) {
  const ExprPtr& rank = v.value.peer;
  if (!rank)
    return;
  const std::optional<LaunchBounds> issuing =
      pred != nullptr ? narrow_on(*pred, true, launch) : launch;
  if (!issuing)
    return; // no thread issues it
  const LaunchBounds& lb = *issuing;
  const std::int64_t n = k.cluster_dim().count();
  const auto range = bounds(*rank, lb);
  if (range && range->lo >= 0 && range->hi < n)
    return;
  const auto refuse = [&](const std::string& where) {
    out.add(diagnostic_at(DiagId::contract_peer_rank, v.pos,
                          std::string(role) + " " + v.value.tensor->name + "@(" + print(*rank) +
                              "): " + where + ", outside the cluster's " + std::to_string(n) +
                              " CTAs (ranks 0.." + std::to_string(n - 1) + ")",
                          static_cast<std::uint32_t>(v.text.size())));
  };
  if (!names_a_variable(*rank) && k.grid * k.block <= max_enumerated_ranks) {
    if (const auto failing = failing_thread(k, *rank, n, pred))
      refuse(*failing);
    return;
  }
  if (!range)
    refuse("the rank has no provable bound");
  else
    refuse("over the launch and the declared ranges the rank reaches " +
           std::to_string(range->hi >= n ? range->hi : range->lo) + " (it ranges over " +
           std::to_string(range->lo) + ".." + std::to_string(range->hi) + ")");
}

namespace {

/// The first peer view of a copy, fill, bulk_copy_peer or remote arrive, or nullptr.
const Located<View>* peer_view(const Op& op) {
  if (const auto* c = std::get_if<CopyOp>(&op.body)) {
    if (c->dst.value.peer)
      return &c->dst;
    if (c->src.value.peer)
      return &c->src;
  } else if (const auto* f = std::get_if<FillOp>(&op.body)) {
    if (f->dst.value.peer)
      return &f->dst;
  } else if (const auto* b = std::get_if<BulkCopyPeerOp>(&op.body)) {
    if (b->dst.value.peer)
      return &b->dst;
  } else if (const auto* a = std::get_if<MbarrierArriveOp>(&op.body)) {
    if (a->barrier.value.peer)
      return &a->barrier;
  }
  return nullptr;
}

/// A loop whose body runs at least once: constant bounds with start < stop.
bool runs_once(const ForOp& f) {
  const auto start = constant_value(*f.start.value);
  const auto stop = constant_value(*f.stop.value);
  return start && stop && *start < *stop;
}

} // namespace

void check_peer_exit(const Kernel& k, Diagnostics& out) {
  // The last peer access not yet followed by a cluster_sync (not relaxed), on some path.
  const Located<View>* pending = nullptr;
  // Per open loop: what was pending before it, and whether its body surely runs.
  std::vector<std::pair<const Located<View>*, bool>> before;
  for (const Op& op : k.ops) {
    if (const auto* f = std::get_if<ForOp>(&op.body)) {
      before.emplace_back(pending, runs_once(*f));
    } else if (std::holds_alternative<EndOp>(op.body) && !before.empty()) {
      // A body that may not run leaves what was pending before the loop pending.
      if (!pending && !before.back().second)
        pending = before.back().first;
      before.pop_back();
    } else if (const auto* c = std::get_if<ClusterSyncOp>(&op.body); c && !c->relaxed) {
      pending = nullptr;
    } else if (const Located<View>* v = peer_view(op)) {
      pending = v;
    }
  }
  if (pending)
    out.add(diagnostic_at(
        DiagId::contract_peer_exit, pending->pos,
        "'" + pending->text + "' accesses the shared memory of CTA " + print(*pending->value.peer) +
            " of the cluster, and no cluster_sync (not relaxed) follows it before the kernel "
            "ends: that CTA may have exited, its shared memory with it; end the kernel with "
            "op = \"cluster_sync\"",
        static_cast<std::uint32_t>(pending->text.size())));
}

} // namespace ptxgen::tile
