// The CTAs of a cluster run together: a cluster barrier (cluster_sync, not relaxed) orders
// what every CTA of the cluster did before it before what any did after it, so the reference
// runs the cluster's CTAs in turns, each up to and through its next barrier. Between two
// barriers the CTAs' accesses of one another's global bytes race (grid_races.hpp finds them),
// so the order of the turns inside a phase decides nothing a valid kernel computes.

#include "driver/reference/evaluator.hpp"

#include <algorithm>
#include <utility>

namespace ptxgen::driver::evaluation {

/// What run_cta keeps in the evaluator for the CTA it runs, kept apart between turns.
struct Evaluator::Suspended {
  std::int64_t bid = 0;
  Cta cta;
  std::map<std::string, std::int64_t, std::less<>> loop_values;
  std::vector<ActiveLoop> active;
  std::vector<std::vector<GenericWrite>> generic_writes; ///< per global buffer
  std::size_t next_op = 0;
  std::uint32_t phase = 0; ///< the cluster barriers it passed
  std::uint64_t steps = 0; ///< the ops it ran: a turn that ran none made no progress
  bool done = false;
};

bool Evaluator::clusters_meet() const {
  if (k_.cluster_dim().count() <= 1)
    return false;
  if (std::find(peer_shared_.begin(), peer_shared_.end(), true) != peer_shared_.end())
    return true; // a peer's bytes are in its own CTA's state: the cluster runs together
  for (const tile::Op& op : k_.ops)
    if (const auto* c = std::get_if<tile::ClusterSyncOp>(&op.body); c && !c->relaxed)
      return true;
  return false;
}

bool Evaluator::run_turn(Suspended& s) {
  cta_ = s.bid;
  std::swap(cta_state_, s.cta);
  std::swap(loop_values_, s.loop_values);
  std::swap(active_, s.active);
  for (std::size_t g = 0; g < globals_.size(); ++g)
    std::swap(globals_[g].generic_writes, s.generic_writes[g]);
  grid_races_.begin_cta(cta_, cluster_of(cta_), s.phase);
  bool barrier = false;
  std::size_t i = s.next_op;
  while (i < k_.ops.size() && !barrier) {
    ++cta_state_.clock;
    std::visit([&](const auto& body) { run_op(i, body); }, k_.ops[i].body);
    if (blocked_) {
      blocked_ = false; // a wait that cannot pass yet: the turn ends before it
      break;
    }
    ++s.steps;
    const auto* c = std::get_if<tile::ClusterSyncOp>(&k_.ops[i].body);
    barrier = c != nullptr && !c->relaxed;
    i = next_op_;
  }
  s.next_op = i;
  s.phase += barrier ? 1 : 0;
  s.done = !barrier && i >= k_.ops.size();
  if (s.done) {
    for (std::int64_t t = 0; t < k_.block; ++t)
      finish_thread(cta_, t);
    finish_bulk();
  }
  end_grid_cta();
  std::swap(cta_state_, s.cta);
  std::swap(loop_values_, s.loop_values);
  std::swap(active_, s.active);
  for (std::size_t g = 0; g < globals_.size(); ++g)
    std::swap(globals_[g].generic_writes, s.generic_writes[g]);
  return s.done;
}

void Evaluator::run_clusters() {
  replayable_ = false; // a CTA's turns are not one trace
  // The CTAs of each cluster, by its linear index.
  std::map<std::int64_t, std::vector<std::int64_t>> clusters;
  for (std::int64_t b = 0; b < k_.grid; ++b)
    clusters[cluster_of(b)].push_back(b);
  const tile::Dim3 g = k_.grid_dim.count() == k_.grid ? k_.grid_dim : tile::Dim3{k_.grid, 1, 1};
  const tile::Dim3 c = k_.cluster_dim();
  for (const auto& [id, bids] : clusters) {
    std::vector<Suspended> ctas(bids.size());
    cluster_ctas_ = &ctas;
    rank_index_.assign(bids.size(), 0);
    for (std::size_t i = 0; i < bids.size(); ++i) {
      // %cluster_ctarank, computed here apart from the emitter's expression.
      const std::int64_t b = bids[i];
      const std::int64_t x = b % g.x, y = b / g.x % g.y, z = b / (g.x * g.y);
      const std::int64_t rank = x % c.x + c.x * (y % c.y + c.y * (z % c.z));
      rank_index_[static_cast<std::size_t>(rank)] = i;
      Suspended& s = ctas[i];
      s.bid = bids[i];
      s.cta.shared = shared_template_;
      s.cta.threads.assign(static_cast<std::size_t>(k_.block), ThreadState{});
      s.generic_writes.resize(globals_.size());
    }
    run_cluster_turns(ctas);
  }
  cluster_ctas_ = nullptr;
  recorded_ = false; // no trace: these CTAs are never replayed
}

void Evaluator::run_cluster_turns(std::vector<Suspended>& ctas) {
  // A CTA blocked at a wait (a peer's arrival or copy may complete its phase) ends its turn
  // there; no CTA starts past a cluster barrier before every CTA left has reached it. When a
  // round moves no CTA, none can go on: the waits then run and report their hangs.
  for (std::size_t left = ctas.size(); left > 0;) {
    std::uint32_t slowest = ~std::uint32_t{0};
    for (const Suspended& s : ctas)
      if (!s.done)
        slowest = std::min(slowest, s.phase);
    bool moved = false;
    for (Suspended& s : ctas) {
      if (s.done || s.phase > slowest)
        continue;
      const std::uint64_t before = s.steps;
      if (run_turn(s))
        --left;
      moved = moved || s.steps != before || s.done;
    }
    stalled_ = !moved;
  }
  stalled_ = false;
}

void Evaluator::mark_peer_shared() {
  peer_shared_.assign(shared_template_.size(), false);
  auto mark = [&](const tile::View& v) {
    if (const auto s = slot(v); s && s->shared && v.peer) {
      peer_shared_[s->index] = true;
    }
  };
  for (const tile::Op& o : k_.ops) {
    if (const auto* c = std::get_if<tile::CopyOp>(&o.body)) {
      mark(c->dst.value);
      mark(c->src.value);
    } else if (const auto* f = std::get_if<tile::FillOp>(&o.body)) {
      mark(f->dst.value);
    } else if (const auto* b = std::get_if<tile::BulkCopyPeerOp>(&o.body)) {
      mark(b->dst.value);
      mark(b->barrier.value);
    } else if (const auto* a = std::get_if<tile::MbarrierArriveOp>(&o.body)) {
      mark(a->barrier.value);
    }
  }
}

Buffer* Evaluator::side_buffer(std::size_t op, const tile::Located<tile::View>& v, Slot s,
                               const tile::ExprEnv& e, std::int64_t& owner) {
  owner = cta_;
  if (!v.value.peer)
    return &buffer(s, cta_state_);
  Cta* c = peer_cta(op, v, e, owner);
  return c == nullptr ? nullptr : &c->shared[s.index];
}

Cta* Evaluator::peer_cta(std::size_t op, const tile::Located<tile::View>& v, const tile::ExprEnv& e,
                         std::int64_t& owner) {
  owner = cta_;
  const std::int64_t n = k_.cluster_dim().count();
  const std::optional<std::int64_t> rank = naive_evaluate(*v.value.peer, e);
  if (!rank || *rank < 0 || *rank >= n || cluster_ctas_ == nullptr) {
    problems_.add(op, DiagId::check_view_unusable, "a peer view names no CTA of the cluster", [&] {
      return "'" + v.text + "' at " + where(cta_, e.tid) + ": rank " +
             (rank ? std::to_string(*rank) : std::string("undefined")) + ", the cluster has " +
             std::to_string(n) + " CTAs";
    });
    return nullptr;
  }
  Suspended& peer = (*cluster_ctas_)[rank_index_[static_cast<std::size_t>(*rank)]];
  owner = peer.bid;
  // The running CTA's own state is in cta_state_ during its turn (run_turn swaps it in).
  return peer.bid == cta_ ? &cta_state_ : &peer.cta;
}

} // namespace ptxgen::driver::evaluation
