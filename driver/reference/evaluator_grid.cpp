// Races between the CTAs of the launch on global memory (grid_races.hpp): which tensors are
// recorded, each CTA's end, and the finding.

#include "driver/reference/evaluator.hpp"

namespace ptxgen::driver::evaluation {

void Evaluator::mark_written() {
  auto mark_named = [&](const std::string& name) {
    if (const auto it = by_name_.find(name); it != by_name_.end() && !it->second.shared) {
      globals_[it->second.index].written = true;
    }
  };
  auto mark = [&](const tile::View& v) {
    if (const auto s = slot(v); s && !s->shared) {
      globals_[s->index].written = true;
    }
  };
  for (const tile::Op& o : k_.ops) {
    if (const auto* c = std::get_if<tile::CopyOp>(&o.body)) {
      mark(c->dst.value);
    } else if (const auto* f = std::get_if<tile::FillOp>(&o.body)) {
      mark(f->dst.value);
    } else if (const auto* a = std::get_if<tile::ApplyOp>(&o.body)) {
      mark(a->dst.value);
    } else if (const auto* b = std::get_if<tile::BulkStoreOp>(&o.body)) {
      mark(b->dst.value);
    } else if (const auto* r = std::get_if<tile::BulkReduceOp>(&o.body)) {
      mark(r->dst.value);
    } else if (const auto* t = std::get_if<tile::TensorStoreOp>(&o.body)) {
      mark_named(t->tensor.value);
    } else if (const auto* tr = std::get_if<tile::TensorReduceOp>(&o.body)) {
      mark_named(tr->tensor.value);
    }
  }
  grid_races_on_ = k_.grid > 1;
  mark_peer_shared();
}

void Evaluator::end_grid_cta() {
  if (!grid_races_on_) {
    return;
  }
  grid_races_.end_cta();
}

std::int64_t Evaluator::cluster_of(std::int64_t bid) const {
  const tile::Dim3 g = k_.grid_dim.count() == k_.grid ? k_.grid_dim : tile::Dim3{k_.grid, 1, 1};
  const tile::Dim3 c = k_.cluster_dim();
  // The CTA's coordinates over the cluster's extent along each axis, x fastest.
  const std::int64_t x = bid % g.x / c.x, y = bid / g.x % g.y / c.y, z = bid / (g.x * g.y) / c.z;
  return x + g.x / c.x * (y + g.y / c.y * z);
}

void Evaluator::cluster_barrier() {
  if (grid_races_on_)
    grid_races_.cluster_barrier();
}

std::string Evaluator::cta_text(std::int64_t bid) const {
  std::string s = "CTA " + std::to_string(bid);
  const tile::Dim3& g = k_.grid_dim;
  if (g.count() == k_.grid && (g.y > 1 || g.z > 1)) {
    s += " (block (" + std::to_string(bid % g.x) + ", " + std::to_string(bid / g.x % g.y) + ", " +
         std::to_string(bid / (g.x * g.y)) + "))";
  }
  return s;
}

void Evaluator::report_grid_race() {
  if (!grid_races_on_) {
    return;
  }
  const std::optional<ref::GridRace> r = grid_races_.first_race();
  if (!r) {
    return;
  }
  if (r->access.buffer >= globals_.size()) {
    report_shared_race(*r);
    return;
  }
  const Buffer& b = globals_[r->access.buffer];
  const bool both = r->access.write && r->other.write;
  const std::string kind = both ? "two CTAs write the same global bytes, with nothing ordering them"
                                : "one CTA reads global bytes another CTA writes, with nothing "
                                  "ordering them";
  problems_.add(
      r->access.op, DiagId::check_cross_cta_race, kind,
      [&] {
        const std::string other_op =
            r->other.op == r->access.op
                ? std::string("the same op")
                : tile::op_label(k_, r->other.op) + " (" +
                      std::string(tile::op_kind(k_.ops[r->other.op].body)) + ")";
        std::string s =
            cta_text(r->bid) + " thread " + std::to_string(r->access.tid) +
            role(r->access.op, r->access.tid) + (r->access.write ? " writes " : " reads ") +
            byte_text(b, r->byte) + ", which " + cta_text(r->other_bid) + " thread " +
            std::to_string(r->other.tid) + role(r->other.op, r->other.tid) +
            (r->other.write ? (both ? " also writes" : " writes") : " reads") + " at " + other_op;
        if (r->same_cluster)
          return s + ": the two CTAs are in one cluster, but no cluster_sync (not relaxed) of "
                     "both lies between the accesses; put one there, or give each CTA bytes "
                     "of its own";
        return s +
               ": a grid has no barrier, so its CTAs may run in any order or at once; give "
               "each CTA bytes of its own" +
               (both ? " (even where both write the same values: whether they do depends on "
                       "the input)"
                     : "");
      },
      Severity::error, r->bytes);
}

} // namespace ptxgen::driver::evaluation
