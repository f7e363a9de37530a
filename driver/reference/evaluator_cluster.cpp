// The CTAs of a cluster run together: a cluster barrier (cluster_sync, not relaxed) orders
// what every CTA of the cluster did before it before what any did after it, so the reference
// runs the cluster's CTAs in turns, each up to and through its next barrier. Between two
// barriers the CTAs' accesses of one another's global bytes race (grid_races.hpp finds them),
// so the order of the turns inside a phase decides nothing a valid kernel computes.

#include "driver/reference/evaluator.hpp"

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
  bool done = false;
};

bool Evaluator::clusters_meet() const {
  if (k_.cluster_dim().count() <= 1)
    return false;
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
  for (const auto& [id, bids] : clusters) {
    std::vector<Suspended> ctas(bids.size());
    for (std::size_t i = 0; i < bids.size(); ++i) {
      Suspended& s = ctas[i];
      s.bid = bids[i];
      s.cta.shared = shared_template_;
      s.cta.threads.assign(static_cast<std::size_t>(k_.block), ThreadState{});
      s.generic_writes.resize(globals_.size());
    }
    for (std::size_t left = ctas.size(); left > 0;)
      for (Suspended& s : ctas)
        if (!s.done && run_turn(s))
          --left;
  }
  recorded_ = false; // no trace: these CTAs are never replayed
}

} // namespace ptxgen::driver::evaluation
