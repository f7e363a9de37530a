// The cluster family's mutation rules: each edit undoes one choice gen_cluster.cpp makes to
// keep a cluster rule, and returns false where the model has no such choice (another family,
// another shape of the cluster family). Which shape a model is comes from the features the
// generator claimed, never from its text.

#include "driver/fuzz/mutate_cluster.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace ptxgen::driver::fuzz::cluster_mutants {

namespace {

bool is_cluster(const SpecModel& m) {
  return m.family == Family::cluster && !m.cluster.empty();
}

bool multicast(const SpecModel& m) {
  return is_cluster(m) && (m.has(Feature::multicast_bulk) || m.has(Feature::multicast_tensor));
}

/// Every multicast mask of the model's loads.
std::vector<ExprText*> masks(SpecModel& m) {
  std::vector<ExprText*> out;
  for (auto& op : m.ops) {
    if (auto* l = std::get_if<ModelBulkLoad>(&op.body); l && l->multicast)
      out.push_back(&*l->multicast);
    if (auto* l = std::get_if<ModelTensorLoad>(&op.body); l && l->multicast)
      out.push_back(&*l->multicast);
  }
  return out;
}

template <class Op>
bool erase_first(SpecModel& m) {
  const auto it =
      std::find_if(m.ops.begin(), m.ops.end(), [](const ModelOp& op) { return op.is<Op>(); });
  if (it == m.ops.end())
    return false;
  m.ops.erase(it);
  return true;
}

/// The last op, when it is the closing cluster_sync.
bool erase_closing_sync(SpecModel& m) {
  if (m.ops.empty() || !m.ops.back().is<ModelClusterSync>())
    return false;
  m.ops.pop_back();
  return true;
}

/// Every expect_tx of the model armed by rank 0's thread only.
bool expect_tx_rank_0(SpecModel& m) {
  bool any = false;
  for (auto& op : m.ops)
    if (auto* e = std::get_if<ModelExpectTx>(&op.body)) {
      e->pred =
          ExprText{(e->pred ? "(" + e->pred->text + ") && " : std::string()) + "cluster_rank == 0"};
      any = true;
    }
  return any;
}

/// Where a view's peer rank `@(E)` starts (its '@') and ends (the parenthesis that balances
/// "@("); nullopt when the view names no peer.
std::optional<std::pair<std::size_t, std::size_t>> peer_rank(const ViewText& v) {
  const auto at = v.text.find("@(");
  if (at == std::string::npos)
    return std::nullopt;
  std::size_t depth = 0, end = at + 1;
  for (; end < v.text.size(); ++end) {
    depth += v.text[end] == '(';
    depth -= v.text[end] == ')';
    if (depth == 0)
      return std::pair{at, end};
  }
  return std::nullopt;
}

/// `X@(E)` -> `X@((E) + 1)` in a view's text; false when it names no peer.
bool rank_plus_1(ViewText& v) {
  const auto r = peer_rank(v);
  if (!r)
    return false;
  const auto [at, end] = *r;
  const std::string rank = v.text.substr(at + 2, end - at - 2);
  v.text = v.text.substr(0, at) + "@((" + rank + ") + 1)" + v.text.substr(end + 1);
  return true;
}

/// The shapes whose last peer access (a view `X@rank`) a closing cluster_sync must follow.
bool remote_access(const SpecModel& m) {
  return m.has(Feature::dsmem_exchange) || m.has(Feature::peer_bulk_copy) ||
         m.has(Feature::peer_arrive) || m.has(Feature::multicast_ring);
}

bool ring(const SpecModel& m) {
  return is_cluster(m) && m.has(Feature::multicast_ring);
}

/// The ring's `empty` inits: the barriers counting more than one arrival (`full` counts one).
std::vector<ModelMbarrierInit*> empty_inits(SpecModel& m) {
  std::vector<ModelMbarrierInit*> out;
  for (auto& op : m.ops)
    if (auto* i = std::get_if<ModelMbarrierInit>(&op.body); i && i->count > 1)
      out.push_back(i);
  return out;
}

void set_empty_count(SpecModel& m, std::int64_t count) {
  for (ModelMbarrierInit* i : empty_inits(m))
    i->count = count;
}

/// The ring's consumers' arrival (its one mbarrier_arrive).
ModelMbarrierArrive* ring_arrive(SpecModel& m) {
  for (auto& op : m.ops)
    if (auto* a = std::get_if<ModelMbarrierArrive>(&op.body))
      return a;
  return nullptr;
}

/// `empty@(E).sub[s]` -> `empty.sub[s]`: the arrival on the arriving CTA's own barrier.
bool drop_peer(ViewText& v) {
  const auto r = peer_rank(v);
  if (!r)
    return false;
  v.text.erase(r->first, r->second + 1 - r->first);
  return true;
}

} // namespace

bool multicast_mask_outside(SpecModel& m, Rng&) {
  if (!multicast(m))
    return false;
  const std::int64_t C = m.cluster.at(0);
  auto all = masks(m);
  for (ExprText* e : all)
    *e = ExprText{std::to_string((std::int64_t{1} << (C + 1)) - 1)};
  return !all.empty();
}

bool multicast_without_init_fence(SpecModel& m, Rng&) {
  return multicast(m) && erase_first<ModelMbarrierInitFence>(m);
}

bool multicast_expect_tx_rank_0(SpecModel& m, Rng&) {
  if (!multicast(m))
    return false;
  if (!m.has(Feature::multicast_one_issuer))
    return expect_tx_rank_0(m);
  // One issuing rank: the expect_tx on its CTA only (its load's pred). Rank 0 alone would
  // leave the issuer's own barrier without one where the issuer is not rank 0: the rule of a
  // CTA's own load (contract_mbarrier_tx_unexpected), not the receivers'.
  const ModelBulkLoad* load = nullptr;
  for (const auto& op : m.ops)
    if (const auto* l = std::get_if<ModelBulkLoad>(&op.body))
      load = l;
  if (!load || !load->pred)
    return false;
  bool any = false;
  for (auto& op : m.ops)
    if (auto* e = std::get_if<ModelExpectTx>(&op.body)) {
      e->pred = load->pred;
      any = true;
    }
  return any;
}

bool multicast_without_exit_sync(SpecModel& m, Rng&) {
  // The ring's CTAs each wait for every tile multicast into them: no multicast is in flight at
  // the exit, but its remote arrivals are (peer_access_without_exit_sync's).
  return multicast(m) && !m.has(Feature::multicast_ring) && erase_closing_sync(m);
}

bool peer_rank_plus_1(SpecModel& m, Rng&) {
  if (!is_cluster(m))
    return false;
  bool any = false;
  for (auto& op : m.ops) {
    if (auto* c = std::get_if<ModelCopy>(&op.body)) {
      any = rank_plus_1(c->dst) || any;
      any = rank_plus_1(c->src) || any;
    } else if (auto* p = std::get_if<ModelBulkCopyPeer>(&op.body)) {
      any = rank_plus_1(p->dst) || any;
      any = rank_plus_1(p->barrier) || any;
    } else if (auto* a = std::get_if<ModelMbarrierArrive>(&op.body)) {
      any = rank_plus_1(a->barrier) || any;
    }
  }
  return any;
}

bool dsmem_without_sync(SpecModel& m, Rng&) {
  if (!is_cluster(m))
    return false;
  if (m.has(Feature::dsmem_ring)) {
    // One buffer: step i writes the peer's buffer i % 2 while the peer reads it in the same
    // step (dropping the loop's cluster_sync would be a peer exit first).
    const std::string two = ".sub[(i + 1) % 2,";
    for (auto& op : m.ops)
      if (auto* c = std::get_if<ModelCopy>(&op.body);
          c && c->dst.text.find(two) != std::string::npos) {
        c->dst.text.replace(c->dst.text.find(two), two.size(), ".sub[i % 2,");
        return true;
      }
    return false;
  }
  if (!m.has(Feature::dsmem_exchange) || !erase_first<ModelClusterSync>(m))
    return false;
  // The push form's only cluster_sync, moved to the end: still none after the peer's write
  // and before the read, and none missing before the exit.
  if (m.has(Feature::dsmem_push))
    m.ops.push_back(ModelOp{ModelClusterSync{}, m.ops.back().unit});
  return true;
}

bool peer_access_without_exit_sync(SpecModel& m, Rng&) {
  if (!is_cluster(m) || !remote_access(m))
    return false;
  // The exchange's push form ends with its own copy out: its only cluster_sync is the one
  // between the peer's write and the read (dsmem_without_sync's).
  return erase_closing_sync(m);
}

bool dsmem_sync_relaxed(SpecModel& m, Rng&) {
  // The exchange's (and the push form's) first cluster_sync: the one between the write and the
  // peer's read. The ring's first one orders only each CTA's own writes (no peer reads them).
  if (!is_cluster(m) || !m.has(Feature::dsmem_exchange))
    return false;
  for (auto& op : m.ops)
    if (auto* c = std::get_if<ModelClusterSync>(&op.body)) {
      c->relaxed = true;
      // The push form's only one: a closing cluster_sync after it, so that the peer exit
      // rule has nothing to say (as in dsmem_without_sync).
      if (m.has(Feature::dsmem_push))
        m.ops.push_back(ModelOp{ModelClusterSync{}, m.ops.back().unit});
      return true;
    }
  return false;
}

bool peer_exit_sync_relaxed(SpecModel& m, Rng&) {
  if (!is_cluster(m) || !remote_access(m))
    return false;
  auto* c = m.ops.empty() ? nullptr : std::get_if<ModelClusterSync>(&m.ops.back().body);
  if (!c)
    return false;
  c->relaxed = true;
  return true;
}

bool peer_copy_without_init_fence(SpecModel& m, Rng&) {
  return is_cluster(m) && m.has(Feature::peer_bulk_copy) && erase_first<ModelMbarrierInitFence>(m);
}

bool peer_copy_expect_tx_rank_0(SpecModel& m, Rng&) {
  return is_cluster(m) && m.has(Feature::peer_bulk_copy) && expect_tx_rank_0(m);
}

bool peer_copy_never_waited(SpecModel& m, Rng&) {
  if (!is_cluster(m) || !m.has(Feature::peer_bulk_copy))
    return false;
  const auto wait = std::find_if(m.ops.begin(), m.ops.end(),
                                 [](const ModelOp& op) { return op.is<ModelMbarrierWait>(); });
  if (wait == m.ops.end() || wait + 1 == m.ops.end() || !(wait + 1)->is<ModelCopy>())
    return false;
  m.ops.erase(wait, wait + 2); // the copy out read S without the wait: another rule's race
  m.expects.clear();
  return true;
}

bool peer_copy_source_rewritten(SpecModel& m, Rng&) {
  if (!is_cluster(m) || !m.has(Feature::peer_bulk_copy))
    return false;
  // The first copy fills Src; the same copy again after the CTA's own wait, which orders
  // nothing about the peer's reception of Src.
  const auto fill = std::find_if(m.ops.begin(), m.ops.end(),
                                 [](const ModelOp& op) { return op.is<ModelCopy>(); });
  const auto wait = std::find_if(m.ops.begin(), m.ops.end(),
                                 [](const ModelOp& op) { return op.is<ModelMbarrierWait>(); });
  if (fill == m.ops.end() || wait == m.ops.end())
    return false;
  const ModelOp again = *fill;
  m.ops.insert(wait + 1, again);
  return true;
}

bool remote_arrive_without_init_fence(SpecModel& m, Rng&) {
  return is_cluster(m) && m.has(Feature::peer_arrive) && erase_first<ModelMbarrierInitFence>(m);
}

bool ring_local_empty(SpecModel& m, Rng&) {
  ModelMbarrierArrive* a = ring(m) ? ring_arrive(m) : nullptr;
  if (!a || !drop_peer(a->barrier))
    return false;
  // One arrival a phase, after the cta_sync: the local consumers' only.
  a->pred = ExprText{"tid == 0"};
  set_empty_count(m, 1);
  return true;
}

bool ring_own_empty_only(SpecModel& m, Rng&) {
  ModelMbarrierArrive* a = ring(m) ? ring_arrive(m) : nullptr;
  return a && drop_peer(a->barrier); // the count still holds: C arrivals, all local
}

namespace {

/// The arrivals of one rank R's consumers dropped: every `empty` hears C - 1 CTAs. Only in a
/// ring whose masks are the whole cluster (with masks of part of it, only R's group would hear
/// one less, and the other group's count, one less too, one too many).
bool drop_one_cta(SpecModel& m, Rng& rng) {
  ModelMbarrierArrive* a =
      ring(m) && !m.has(Feature::multicast_part_mask) ? ring_arrive(m) : nullptr;
  if (!a || !a->pred)
    return false;
  const std::int64_t R = rng.between(0, m.cluster.at(0) - 1);
  a->pred = ExprText{"(" + a->pred->text + ") && cluster_rank != " + std::to_string(R)};
  return true;
}

} // namespace

bool ring_one_cta_dropped(SpecModel& m, Rng& rng) {
  if (!drop_one_cta(m, rng))
    return false;
  set_empty_count(m, m.cluster.at(0) - 1);
  return true;
}

bool ring_one_cta_dropped_count_kept(SpecModel& m, Rng& rng) {
  return drop_one_cta(m, rng);
}

bool ring_part_mask_whole_cluster(SpecModel& m, Rng&) {
  if (!ring(m) || !m.has(Feature::multicast_part_mask))
    return false;
  const std::string all = std::to_string((std::int64_t{1} << m.cluster.at(0)) - 1);
  auto all_masks = masks(m);
  for (ExprText* e : all_masks)
    *e = ExprText{all};
  return !all_masks.empty();
}

bool ring_refill_before_empty_wait(SpecModel& m, Rng&) {
  if (!ring(m))
    return false;
  // The issuer's wait (the one wait with a pred) moved after its load.
  const auto wait = std::find_if(m.ops.begin(), m.ops.end(), [](const ModelOp& op) {
    const auto* w = std::get_if<ModelMbarrierWait>(&op.body);
    return w && w->pred;
  });
  const auto load = std::find_if(m.ops.begin(), m.ops.end(), [](const ModelOp& op) {
    return op.is<ModelBulkLoad>() || op.is<ModelTensorLoad>();
  });
  if (wait == m.ops.end() || load == m.ops.end() || load < wait)
    return false;
  std::rotate(wait, wait + 1, load + 1);
  return true;
}

bool ring_arrive_before_cta_sync(SpecModel& m, Rng&) {
  if (!ring(m))
    return false;
  const auto sync = std::find_if(m.ops.begin(), m.ops.end(),
                                 [](const ModelOp& op) { return op.is<ModelCtaSync>(); });
  if (sync == m.ops.end() || sync + 1 == m.ops.end() || !(sync + 1)->is<ModelMbarrierArrive>())
    return false;
  std::iter_swap(sync, sync + 1);
  return true;
}

bool ring_empty_count_one(SpecModel& m, Rng&) {
  if (!ring(m) || empty_inits(m).empty())
    return false;
  set_empty_count(m, 1);
  return true;
}

} // namespace ptxgen::driver::fuzz::cluster_mutants
