// Views: a view's plan and affine form, the bytes an element or row lies at, and the
// granules of shared tensors accesses are fitted to.

#include "driver/reference/evaluator.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::driver::evaluation {

int Evaluator::granule_shift(const tile::Tensor& t, std::size_t size) {
  if (!in_.fast || size == 0) {
    return 0;
  }
  int shift = std::min(max_granule_shift, std::countr_zero(size));
  auto align = [&](std::int64_t bytes) {
    shift = std::min(shift, std::countr_zero(static_cast<std::uint64_t>(bytes)));
  };
  auto on_t = [&](const tile::Located<tile::View>& v) {
    return v.value.tensor == &t || (v.value.tensor != nullptr && v.value.tensor->name == t.name);
  };
  auto row = [&](const tile::Located<tile::View>& v) {
    const NaivePlan& p = plan(v.value);
    if (on_t(v) && p.ok()) {
      align(static_cast<std::int64_t>(p.element_bytes()) *
            (p.shape().empty() ? 1 : p.shape().back()));
    }
  };
  for (const tile::Op& op : k_.ops) {
    if (const auto* a = std::get_if<tile::ApplyOp>(&op.body)) {
      if (on_t(a->dst) || on_t(a->src)) {
        align(a->chunk_bytes.value);
      }
    } else if (const auto* c = std::get_if<tile::CopyOp>(&op.body)) {
      row(c->dst);
      row(c->src);
    } else if (const auto* f = std::get_if<tile::FillOp>(&op.body)) {
      row(f->dst);
    }
  }
  return std::max(shift, 0);
}

Evaluator::ViewInfo& Evaluator::view_info(const tile::View& v) {
  auto it = views_.find(&v);
  if (it == views_.end()) {
    ViewInfo info{naive_plan(v), std::nullopt};
    info.skeleton = affine_skeleton(info.plan, v);
    it = views_.emplace(&v, std::move(info)).first;
  }
  return it->second;
}

std::optional<Evaluator::Slot> Evaluator::slot(const tile::View& v) const {
  if (v.tensor == nullptr) {
    return std::nullopt;
  }
  if (auto it = slots_.find(v.tensor); it != slots_.end()) {
    return it->second;
  }
  if (auto it = by_name_.find(v.tensor->name); it != by_name_.end()) {
    return it->second;
  }
  return std::nullopt;
}

bool Evaluator::prepare(std::size_t op, const tile::Located<tile::View>& v, const char* role) {
  const NaivePlan& p = plan(v.value);
  if (!p.ok()) {
    problems_.add(op, DiagId::check_view_unusable, std::string(role) + " view does not evaluate",
                  [&] { return "'" + v.text + "': " + p.error; });
    return false;
  }
  if (!slot(v.value)) {
    problems_.add(op, DiagId::check_view_unusable,
                  std::string(role) + " view names no tensor of the kernel",
                  [&] { return "'" + v.text + "'"; });
    return false;
  }
  return true;
}

Evaluator::OpForm Evaluator::op_form(const tile::Located<tile::View>& v, const tile::ExprEnv& e) {
  if (!in_.fast) {
    return {};
  }
  ViewInfo& info = view_info(v.value);
  if (!info.skeleton) {
    return {};
  }
  const bool fixed = info.skeleton->thread_part_fixed();
  if (fixed && info.thread_part.empty()) {
    tile::ExprEnv te = e; // the thread's indices use nothing else of it
    info.thread_part.resize(static_cast<std::size_t>(k_.block));
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      te.tid = tid;
      info.thread_part[static_cast<std::size_t>(tid)] =
          info.skeleton->thread_base(0, te).value_or(no_part);
    }
  }
  return {&*info.skeleton, info.skeleton->shared_base(e), fixed ? &info.thread_part : nullptr};
}

bool Evaluator::locate(std::size_t op, const tile::Located<tile::View>& v, const Buffer& b,
                       const tile::ExprEnv& e, const std::vector<std::int64_t>& coords,
                       const std::optional<Fast>& fast, Runs& out) {
  if (fast) {
    const std::int64_t first = fast->offset(coords);
    const std::int64_t eb = fast->skeleton->element_bytes;
    if (first >= 0 && first + eb <= b.size) {
      out.append({first, eb});
      return true;
    }
  }
  NaiveLocation loc = naive_locate(plan(v.value), v.value, e, coords);
  bool inside = loc.in_bounds && !loc.offsets.empty();
  for (std::int64_t o : loc.offsets) {
    inside = inside && o >= 0 && o < b.size;
  }
  if (!inside) {
    problems_.add(op, DiagId::check_out_of_bounds, "bytes outside the tensor (not written)", [&] {
      std::string s = where(e.bid, e.tid) + ", '" + v.text + "' at " + coords_text(coords);
      if (!loc.offsets.empty()) {
        s += " -> byte " + std::to_string(loc.offsets.front()) + " of '" + b.name + "' (" +
             std::to_string(b.size) + " bytes)";
      }
      if (!loc.error.empty()) {
        s += ": " + loc.error;
      }
      return s;
    });
    return false;
  }
  for (std::int64_t o : loc.offsets) {
    out.append({o, 1});
  }
  return true;
}

void Evaluator::fit_granules(Buffer& b, Run r) {
  const std::int64_t mask = b.granule() - 1;
  if (((r.off | r.len) & mask) == 0) {
    return;
  }
  const int shift = std::countr_zero(static_cast<std::uint64_t>(r.off | r.len));
  b.hz.refine(b.shift - shift);
  b.shift = shift;
  Buffer& start = shared_template_[b.index];
  if (start.shift > shift) {
    start.shift = shift;
    start.hz.reset(start.bytes.size() >> shift);
  }
}

} // namespace ptxgen::driver::evaluation
