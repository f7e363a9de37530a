// The roles of the threads the findings name (roles.hpp): who runs an op, and the ring stage
// it works on for the thread and iteration at hand.

#include "driver/reference/evaluator.hpp"

namespace ptxgen::driver::evaluation {

std::string Evaluator::where(std::int64_t bid, std::int64_t tid, std::size_t op) {
  const std::string r = roles_.of(op, tid, ring_stage(op, tid));
  std::string s = "CTA " + std::to_string(bid) + " thread " + std::to_string(tid);
  if (r.empty() && active_.empty())
    return s;
  const std::string loops = active_.empty() ? std::string() : iteration_text();
  return s + " (" + r + (r.empty() || loops.empty() ? "" : "; ") + loops + ")";
}

std::string Evaluator::role(std::size_t op, std::int64_t tid) const {
  const std::string r = roles_.of(op, tid, std::nullopt);
  return r.empty() ? r : " (" + r + ")";
}

std::optional<std::int64_t> Evaluator::ring_stage(std::size_t op, std::int64_t tid) {
  const tile::Located<tile::View>* v = roles_.stage_barrier(op);
  if (!v || !usable(*v))
    return std::nullopt;
  const Buffer& b = buffer(*slot(v->value), cta_state_);
  // A ring's barriers are one array with an element per stage.
  if (b.shape.size() != 1 || b.element_bytes <= 0)
    return std::nullopt;
  // naive_locate reports nothing: this runs inside a finding's text (Problems::add).
  const NaivePlan& p = plan(v->value);
  const std::vector<std::int64_t> zeros(p.shape().size(), 0);
  const NaiveLocation loc = naive_locate(p, v->value, env(cta_, tid), zeros);
  if (!loc.in_bounds || loc.offsets.empty() || loc.offsets.front() < 0 ||
      loc.offsets.front() >= b.size)
    return std::nullopt;
  return loc.offsets.front() / b.element_bytes;
}

} // namespace ptxgen::driver::evaluation
