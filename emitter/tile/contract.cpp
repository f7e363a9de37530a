#include "emitter/tile/contract.hpp"

#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/tile/apply_contract.hpp"
#include "emitter/tile/bulk_contract.hpp"
#include "emitter/tile/contract_text.hpp"
#include "emitter/tile/expr_walk.hpp"
#include "emitter/tile/mbarrier_contract.hpp"
#include "emitter/tile/multicast_contract.hpp"
#include "emitter/tile/op_table.hpp"
#include "emitter/tile/peer_contract.hpp"
#include "emitter/tile/per_cta_bounds.hpp"
#include "emitter/tile/residency.hpp"
#include "emitter/tile/suggest.hpp"
#include "emitter/tile/tensormap_contract.hpp"
#include "emitter/tile/u32_rule.hpp"
#include "emitter/tile/warp_roles.hpp"
#include "emitter/tile/well_formed.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>
#include <tuple>
#include <type_traits>

namespace ptxgen::tile {

namespace {

// Above this many threads the checker reasons with intervals instead of enumerating.
constexpr std::int64_t max_enumerated_threads = std::int64_t{1} << 20;

/// The byte range [first, last] a thread's part of the view touches, given
/// that the leading `group_axes` axes are bound to (warp, lane) and the
/// `chunk_axis` (the last axis, or none) is covered whole.
struct ThreadExtent {
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::vector<std::int64_t> first_coord; ///< the view coordinate that reaches `first`
  std::vector<std::int64_t> last_coord;  ///< the view coordinate that reaches `last`
};

/// Offset of the thread-dependent part (terms and group axes) for one thread.
/// nullopt when an index does not evaluate, or the offset leaves +-2^62 (far outside
/// any tensor; the bound keeps extent_for's sums inside int64).
std::optional<std::int64_t> thread_part(const View& v, const ExprEnv& env, std::size_t group_axes) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 62;
  std::int64_t off = v.offset_bytes;
  auto add = [&off](std::int64_t a, std::int64_t b) {
    std::int64_t t = 0;
    return !__builtin_mul_overflow(a, b, &t) && !__builtin_add_overflow(off, t, &off) &&
           off > -kLimit && off < kLimit;
  };
  for (const auto& t : v.terms) {
    auto x = evaluate(*t.index, env);
    if (!x || !add(*x, t.stride_bytes))
      return std::nullopt;
  }
  if (group_axes == 2) {
    if (!add(env.tid / 32, v.axes[0].stride_bytes) || !add(env.tid % 32, v.axes[1].stride_bytes))
      return std::nullopt;
  }
  return off;
}

ThreadExtent extent_for(const View& v, std::int64_t thread_offset, std::size_t group_axes,
                        std::int64_t elem_bytes) {
  ThreadExtent e;
  e.first = e.last = thread_offset;
  e.first_coord.assign(v.axes.size(), 0);
  e.last_coord.assign(v.axes.size(), 0);
  for (std::size_t i = group_axes; i < v.axes.size(); ++i) {
    const auto& a = v.axes[i];
    std::int64_t span = (a.size - 1) * a.stride_bytes;
    if (span >= 0) {
      e.last += span;
      e.last_coord[i] = a.size - 1;
    } else {
      e.first += span;
      e.first_coord[i] = a.size - 1;
    }
  }
  e.last += elem_bytes - 1;
  return e;
}

std::string coord_str(const std::vector<std::int64_t>& c, std::size_t skip) {
  std::string s = "(";
  for (std::size_t i = skip; i < c.size(); ++i)
    s += (i > skip ? "," : "") + std::to_string(c[i]);
  return s + ")";
}

class Checker {
public:
  Checker(const Kernel& k, ptx::Target target) : k_(k), target_(target), lb_(k.launch_bounds()) {}

  Diagnostics run() {
    check_shared_total();
    check_residency();
    collect_barrier_tensors();
    std::size_t pipeline = 0; // the first op of the expansion the op belongs to
    std::set<std::size_t> index_reported;
    std::set<std::tuple<DiagId, std::uint32_t, std::uint32_t>> load_errors;
    for (std::size_t i = 0; i < k_.ops.size(); ++i) {
      const Op& op = k_.ops[i];
      const std::size_t before = out_.size();
      u32_failures_.clear(); // by out_'s index: this op's only
      std::visit([&](const auto& body) { check(body, op); }, op.body);
      if (op.origin.opens)
        pipeline = i;
      if (op.origin.role != OpOrigin::Role::written)
        one_index_error_per_pipeline(i, before, pipeline, index_reported);
      if (op.origin.role == OpOrigin::Role::prologue_load ||
          op.origin.role == OpOrigin::Role::steady_load)
        one_error_per_load(before, load_errors);
    }
    check_peer_exit(k_, out_);
    check_warp_roles(k_, out_);
    if (!out_.has_errors())
      check_tensormap_order(k_, out_);
    // The phase walk evaluates the barrier views: only once every op is proven sound.
    if (!out_.has_errors())
      check_mbarrier_phases(k_, out_);
    return without_repeats(std::move(out_));
  }

private:
  /// A pipeline's loads stand in its prologue and in its steady state, one op at one
  /// position twice: a finding about it is one cause, reported once.
  static Diagnostics without_repeats(Diagnostics ds) {
    std::set<std::tuple<DiagId, std::string, std::uint32_t, std::uint32_t, std::string>> seen;
    std::vector<Diagnostic> kept;
    for (const Diagnostic& d : ds)
      if (seen.emplace(d.id, d.file, d.line, d.column, d.message).second)
        kept.push_back(d);
    return Diagnostics(std::move(kept));
  }

  const Kernel& k_;
  ptx::Target target_;
  LaunchBounds lb_;
  Diagnostics out_;

  /// The errors of a pipeline's load from `before` on, less those its other copies (its
  /// prologue steps and steady state: one [[op.load]] table) already had at the same place
  /// with the same id: the values they name differ (the tile each copy loads), the cause,
  /// the user's load, is one. `seen` holds (id, line, column) of those kept.
  void one_error_per_load(std::size_t before,
                          std::set<std::tuple<DiagId, std::uint32_t, std::uint32_t>>& seen) {
    std::vector<Diagnostic> kept(out_.begin(), out_.begin() + static_cast<std::ptrdiff_t>(before));
    for (std::size_t j = before; j < out_.size(); ++j)
      if (seen.emplace(out_[j].id, out_[j].line, out_[j].column).second)
        kept.push_back(out_[j]);
    out_ = Diagnostics(std::move(kept));
  }

  /// The 32-bit index errors of op `index` of a pipeline's expansion (those from `before` on):
  /// its ops compute their stage, parity and clamped tile from one use count, so one range
  /// gives one error per pipeline, named by the op's role; `reported` holds the pipelines
  /// (their first op) that have one.
  void one_index_error_per_pipeline(std::size_t index, std::size_t before, std::size_t pipeline,
                                    std::set<std::size_t>& reported) {
    std::vector<Diagnostic> kept(out_.begin(), out_.begin() + static_cast<std::ptrdiff_t>(before));
    bool changed = false;
    for (std::size_t j = before; j < out_.size(); ++j) {
      Diagnostic d = out_[j];
      if (d.id == DiagId::contract_index_u32) {
        changed = true;
        if (!reported.insert(pipeline).second)
          continue;
        // The expression the check saw is the expansion's, never written by the user: the
        // message names the op's role, the operand and the range instead.
        const auto f = u32_failures_.find(j);
        const std::string what = f != u32_failures_.end() ? f->second.what : "an index";
        const std::string range = f != u32_failures_.end() && f->second.range
                                      ? " (a value it is computed through ranges over " +
                                            range_text(f->second.range) + ")"
                                      : std::string();
        d.message = op_label(k_, index) + ": " + what +
                    " must stay in 0..4294967295 for 32-bit arithmetic as the pipeline computes "
                    "it" +
                    range +
                    ": the pipeline derives it from the tile, through the ring's use of it, "
                    "ring_offset + (tile - start), and the tile clamped into start..stop - 1; "
                    "narrow the ranges that start, stop and ring_offset depend on (the "
                    "pipeline's other ops that derive it are not reported again)";
      }
      kept.push_back(std::move(d));
    }
    if (changed)
      out_ = Diagnostics(std::move(kept));
  }

  /// Shared tensors beyond 48 KiB go to dynamic shared memory (SharedLayout),
  /// which the target allows only up to its opt-in maximum per block.
  void check_shared_total() {
    const SharedLayout layout = shared_layout(k_);
    const std::int64_t limit = ptx::max_dynamic_shared_bytes(target_);
    for (const auto& e : layout.entries) {
      if (e.end <= limit)
        continue;
      error(DiagId::contract_shared_target_limit, e.decl->pos,
            "the shared tensors need " + std::to_string(e.end) + " bytes up to '" +
                e.decl->tensor.name + "'; " + target_.str() + " allows at most " +
                std::to_string(limit) + " bytes of dynamic shared memory per block");
      return;
    }
  }

  /// `ctas_per_sm = N` on the target's SM: N CTAs fit by count, threads and shared memory (at
  /// the layout's largest bytes), and the launch's padding (over its least bytes, as
  /// lower::launch_dynamic_shared_bytes pads) keeps the (N+1)th out without pushing the Nth.
  void check_residency() {
    if (!k_.residency)
      return;
    const std::int64_t n = k_.residency->ctas_per_sm;
    const ptx::SmLimits sm = ptx::sm_limits(target_);
    const SharedLayout layout = shared_layout(k_);
    const std::int64_t most = most_shared_bytes(layout);
    const auto fail = [&](const std::string& why) {
      error(DiagId::contract_residency, k_.residency->pos,
            "ctas_per_sm = " + std::to_string(n) + " on " + target_.str() + ": " + why);
    };
    if (auto problem = residency_problem(n, {k_.block, most}, sm)) {
      fail(*problem);
      return;
    }
    const std::int64_t least = least_shared_bytes(layout);
    const std::int64_t padded = shared_bytes_for_residency(n, {k_.block, least}, sm);
    if (residency_problem(n, {k_.block, padded + (most - least)}, sm))
      fail("shared memory that keeps a " + std::to_string(n + 1) + "th CTA off the SM (" +
           std::to_string(padded) + " bytes per CTA) leaves no room for the " + std::to_string(n) +
           "th; ask for fewer CTAs, or for more threads or shared memory per CTA");
    else if (const std::int64_t launch = (layout.dynamic ? layout.total : 0) + padded - least;
             launch > ptx::max_dynamic_shared_bytes(target_))
      fail("the launch's " + std::to_string(launch) +
           " bytes of dynamic shared memory (padded) are beyond the target's " +
           std::to_string(ptx::max_dynamic_shared_bytes(target_)));
  }

  void error(DiagId id, const SourcePos& pos, std::string msg, std::uint32_t len = 1) {
    out_.add(diagnostic_at(id, pos, std::move(msg), len));
  }

  std::int64_t threads() const { return k_.grid * k_.block; }

  /// Calls f(env) for every thread of the launch (params at their test values).
  template <class F>
  void for_each_thread(F&& f) const {
    ExprEnv env;
    env.block_dim = k_.block_dim.or_x(k_.block); // tid.x/y/z and bid.x/y/z derive from them
    env.grid_dim = k_.grid_dim.or_x(k_.grid);
    env.cluster_dim = k_.cluster_dim();
    for (const auto& p : k_.params)
      env.params[p.name] = static_cast<std::int64_t>(p.value);
    for (std::int64_t b = 0; b < k_.grid; ++b)
      for (std::int64_t t = 0; t < k_.block; ++t) {
        env.bid = b;
        env.tid = t;
        if (!f(env))
          return;
      }
  }

  /// The bytes a view can reach over the whole launch and the parameters' and
  /// loop variables' ranges, by interval arithmetic (sound, not always tight).
  struct IntervalExtent {
    bool bounded = false;
    const Expr* unbounded = nullptr; ///< the index without a bound, when !bounded
    ThreadExtent lo;                 ///< lo.first: the least byte
    ThreadExtent hi;                 ///< hi.last: the greatest byte
  };

  IntervalExtent interval_extent(const View& v, std::size_t group_axes, std::int64_t elem) const {
    return interval_extent(v, group_axes, elem, lb_);
  }

  IntervalExtent interval_extent(const View& v, std::size_t group_axes, std::int64_t elem,
                                 const LaunchBounds& lb) const {
    IntervalExtent r;
    std::int64_t lo = v.offset_bytes, hi = v.offset_bytes;
    for (const auto& t : v.terms) {
      auto b = bounds(*t.index, lb);
      if (!b) {
        r.unbounded = t.index.get();
        return r;
      }
      std::int64_t a = b->lo * t.stride_bytes, c = b->hi * t.stride_bytes;
      lo += std::min(a, c);
      hi += std::max(a, c);
    }
    if (group_axes == 2) {
      hi += ((k_.block - 1) / 32) * v.axes[0].stride_bytes +
            std::min<std::int64_t>(31, k_.block - 1) * v.axes[1].stride_bytes;
    }
    r.bounded = true;
    r.lo = extent_for(v, lo, group_axes, elem);
    r.hi = extent_for(v, hi, group_axes, elem);
    return r;
  }

  /// The loops around the op being checked, outermost first.
  std::vector<const ForOp*> open_loops_;

  /// The view inside its tensor by intervals taken one CTA at a time (per_cta_bounds.hpp),
  /// when the launch-wide ones do not prove it and the view is inside a loop.
  bool inside_every_cta(const View& v, std::size_t group_axes, std::int64_t elem,
                        const LaunchBounds& lb) const {
    if (open_loops_.empty() || lb.grid < 2 || lb.grid > max_per_cta_proofs)
      return false;
    for (std::int64_t b = 0; b < lb.grid; ++b) {
      if (auto it = lb.narrowed.find(ExprKind::bid);
          it != lb.narrowed.end() && !it->second.contains(b))
        continue; // no thread of CTA b issues it
      const auto at = bounds_at_cta(lb, b, open_loops_);
      if (!at)
        return false;
      const IntervalExtent r = interval_extent(v, group_axes, elem, *at);
      if (!r.bounded || r.lo.first < 0 || r.hi.last >= v.tensor->size_bytes())
        return false;
    }
    return true;
  }

  /// The launch's bounds with parameter `name` in lo..hi and the open loops' variables
  /// ranging as check(ForOp) would give them then; nullopt when a loop bound has no bound.
  std::optional<LaunchBounds> bounds_with(std::string_view name, Interval within) const {
    LaunchBounds lb = k_.launch_bounds();
    lb.params.find(name)->second = within;
    if (!range_loops(lb, open_loops_))
      return std::nullopt;
    return lb;
  }

  /// The parameters a view's bytes depend on: named in its indices or in the bounds of
  /// the loops around it.
  std::set<std::string, std::less<>> params_of(const View& v) const {
    std::set<std::string, std::less<>> names;
    const auto collect = [&names](const Expr& e, const auto& self) -> void {
      if (e.kind == ExprKind::param)
        names.insert(e.name);
      for (const auto& a : e.args)
        self(*a, self);
    };
    for (const auto& t : v.terms)
      collect(*t.index, collect);
    for (const ForOp* f : open_loops_) {
      collect(*f->start.value, collect);
      collect(*f->stop.value, collect);
    }
    return names;
  }

  /// What to narrow when a view may leave its tensor over the declared ranges: the
  /// parameter without a declared range, else the upper bound of a declared range that
  /// keeps the view inside (the largest, by bisection: interval bounds only grow with
  /// the ranges they start from), else the ranges the view depends on.
  std::string range_hint(const View& v, std::size_t group_axes, const IntervalExtent& reach) const {
    const auto names = params_of(v);
    std::string ranges;
    for (const ScalarParam& p : k_.params) {
      if (names.count(p.name) == 0)
        continue;
      if (!p.range)
        return " (declare a `range` for parameter '" + p.name + "' to narrow it)";
      ranges += (ranges.empty() ? "" : ", ") + p.name + " in " + range_text(p.range);
    }
    if (ranges.empty())
      return "";
    const std::int64_t size = v.tensor->size_bytes();
    const std::int64_t elem = size_bytes(v.dtype);
    const auto inside = [&](std::string_view name, Interval within) {
      const auto lb = bounds_with(name, within);
      if (!lb)
        return false;
      const IntervalExtent r = interval_extent(v, group_axes, elem, *lb);
      return (r.bounded && r.lo.first >= 0 && r.hi.last < size) ||
             inside_every_cta(v, group_axes, elem, *lb);
    };
    for (const ScalarParam& p : k_.params) {
      if (names.count(p.name) == 0 || !inside(p.name, Interval{p.range->lo, p.range->lo}))
        continue;
      std::int64_t good = p.range->lo, bad = p.range->hi;
      while (bad - good > 1) {
        const std::int64_t mid = good + (bad - good) / 2;
        (inside(p.name, Interval{p.range->lo, mid}) ? good : bad) = mid;
      }
      return " (" + p.name + "'s declared range " + range_text(p.range) +
             " lets the view reach byte " + std::to_string(reach.hi.last) +
             "; narrow its upper bound to " + std::to_string(good) + ")";
    }
    return " (with " + ranges +
           "; no one parameter's upper bound keeps it inside: narrow the "
           "ranges or fix the view)";
  }

  /// Proves every byte the view covers for every thread (whose `pred` may hold, when there
  /// is one) lies inside its tensor: by intervals, and where they do not prove it and the
  /// launch is small, thread by thread. Returns false after reporting the first thread
  /// that breaks it.
  bool check_bounds(const Located<View>& lv, std::string_view role, std::size_t group_axes,
                    std::string_view why, const Located<ExprPtr>* pred = nullptr) {
    const View& v = lv.value;
    if (uses_broken_loop(v))
      return false; // the loop's header error says it
    // The lowering computes index expressions in 32-bit registers.
    const std::size_t before = out_.items().size();
    for (const auto& t : v.terms)
      u32_proof(*t.index, lb_, lv.pos, text_length(lv), std::string(role) + " index", true);
    if (out_.items().size() != before)
      return false;
    const std::int64_t size = v.tensor->size_bytes();
    const std::int64_t elem = size_bytes(v.dtype);
    const auto issuing = pred ? narrow_on(*pred->value, true, lb_) : lb_;
    if (!issuing)
      return true; // no thread issues the op
    const IntervalExtent range = interval_extent(v, group_axes, elem, *issuing);
    const bool inside = (range.bounded && range.lo.first >= 0 && range.hi.last < size) ||
                        inside_every_cta(v, group_axes, elem, *issuing);
    if (!uses_params(v) && threads() <= max_enumerated_threads) {
      if (inside)
        return true; // the interval proof holds for every thread: no need to enumerate
    } else if (!range.bounded) {
      error(DiagId::contract_index_unbounded, lv.pos,
            std::string(role) + " index '" + print(*range.unbounded) + "' has no provable bound",
            text_length(lv));
      return false;
    } else if (!inside) {
      error(DiagId::contract_out_of_bounds, lv.pos,
            std::string(role) + " " + v.tensor->name + ": cannot prove every byte is inside the " +
                std::to_string(size) + "-byte tensor" + std::string(why) +
                "; over the launch and "
                "the parameters' declared ranges the view reaches bytes " +
                std::to_string(range.lo.first) + ".." + std::to_string(range.hi.last) +
                range_hint(v, group_axes, range),
            text_length(lv));
      return false;
    } else {
      return true;
    }
    bool ok = true;
    // The threads are enumerated at the parameters' test values, without loop variables:
    // a pred that names either may hold for any thread.
    if (pred && uses_params(*pred->value))
      pred = nullptr;
    for_each_thread([&](const ExprEnv& env) {
      if (pred) {
        const auto p = evaluate(*pred->value, env);
        if (!p || *p == 0)
          return true;
      }
      auto off = thread_part(v, env, group_axes);
      if (!off) {
        error(DiagId::contract_index_undefined, lv.pos,
              std::string(role) +
                  ": an index divides by zero or its byte offset overflows at thread " +
                  std::to_string(env.tid) + " (bid " + std::to_string(env.bid) + ")",
              text_length(lv));
        return ok = false;
      }
      ThreadExtent e = extent_for(v, *off, group_axes, elem);
      if (e.first < 0 || e.last >= size) {
        bool below = e.first < 0;
        std::int64_t byte = below ? e.first : e.last;
        const auto& coord = below ? e.first_coord : e.last_coord;
        error(DiagId::contract_out_of_bounds, lv.pos,
              std::string(role) + " " + v.tensor->name + " " + shape_str(v) +
                  ": out of bounds at thread " + std::to_string(env.tid) + " (bid " +
                  std::to_string(env.bid) + "), coordinate " + coord_str(coord, group_axes) +
                  ": byte offset " + std::to_string(byte) + " is outside the tensor's " +
                  std::to_string(size) + " bytes" + std::string(why),
              text_length(lv));
        return ok = false;
      }
      return true;
    });
    return ok;
  }

  /// Proves every chunk of the view starts at a multiple of chunk bytes.
  void check_alignment(const Located<View>& lv, std::string_view role, std::size_t group_axes,
                       std::int64_t chunk) {
    const View& v = lv.value;
    if (v.tensor->align % chunk != 0) {
      error(DiagId::contract_unaligned_base, lv.pos,
            std::string(role) + ": unaligned base: tensor " + v.tensor->name + " is declared " +
                std::to_string(v.tensor->align) + "-byte aligned; a " + std::to_string(chunk) +
                "-byte chunk must be naturally aligned (declare align = " + std::to_string(chunk) +
                " or more)",
            text_length(lv));
      return;
    }
    for (std::size_t i = group_axes; i + 1 < v.axes.size(); ++i) {
      if (v.axes[i].size > 1 && v.axes[i].stride_bytes % chunk != 0) {
        error(DiagId::contract_unaligned_chunk, lv.pos,
              std::string(role) + " " + v.str() + ": unaligned chunk: repeat axis " +
                  std::to_string(i) +
                  (v.axes[i].name.empty() ? "" : " ('" + v.axes[i].name + "')") +
                  " has a stride of " + std::to_string(v.axes[i].stride_bytes) +
                  " bytes, so coordinate 1 starts at byte offset " +
                  std::to_string(v.axes[i].stride_bytes) +
                  " from coordinate 0, not a multiple of " + std::to_string(chunk),
              text_length(lv));
        return;
      }
    }
    // Every runtime term's stride a multiple of the chunk: aligned whatever the
    // indices are (no need to enumerate the threads).
    bool ok = v.offset_bytes % chunk == 0;
    for (const auto& t : v.terms)
      ok = ok && t.stride_bytes % chunk == 0;
    if (group_axes == 2)
      ok = ok && v.axes[0].stride_bytes % chunk == 0 && v.axes[1].stride_bytes % chunk == 0;
    if (ok)
      return;
    if (uses_params(v) || threads() > max_enumerated_threads) {
      error(DiagId::contract_unaligned_chunk, lv.pos,
            std::string(role) + " " + v.str() + ": cannot prove every chunk is " +
                std::to_string(chunk) + "-byte aligned for every parameter value",
            text_length(lv));
      return;
    }
    for_each_thread([&](const ExprEnv& env) {
      auto off = thread_part(v, env, group_axes);
      if (off && *off % chunk != 0) {
        error(DiagId::contract_unaligned_chunk, lv.pos,
              std::string(role) + " " + v.str() + ": unaligned chunk at thread " +
                  std::to_string(env.tid) + " (bid " + std::to_string(env.bid) +
                  "): the chunk starts at byte offset " + std::to_string(*off) +
                  ", not a multiple of " + std::to_string(chunk),
              text_length(lv));
        return false;
      }
      return true;
    });
  }

  /// The cp.async apply's proofs are apply_contract.cpp's; the bounds, alignment and 32-bit
  /// proofs they ask for are this checker's.
  void check(const ApplyOp& a, const Op&) {
    check_not_barrier(a.dst, "apply dst");
    check_apply(ApplyProofContext{
                    k_, lb_, out_,
                    [this](const Located<View>& v, std::string_view role, std::size_t group_axes,
                           std::string_view why) { return check_bounds(v, role, group_axes, why); },
                    [this](const Located<View>& v, std::string_view role, std::size_t group_axes,
                           std::int64_t chunk) { check_alignment(v, role, group_axes, chunk); },
                    [this](const Expr& e, const LaunchBounds& lb, const SourcePos& pos,
                           std::uint32_t length,
                           std::string_view what) { prove_u32(e, lb, pos, length, what); },
                    [this](const Expr& e) { return uses_broken_loop(e); }},
                a);
  }

  void check(const FillOp& f, const Op&) {
    if (f.pattern.empty())
      error(DiagId::contract_empty_pattern, f.dst.pos, "fill needs a pattern of at least one byte",
            text_length(f.dst));
    check_not_barrier(f.dst, "fill dst");
    check_peer_rank(k_, lb_, f.dst, "fill dst", out_);
    if (check_bounds(f.dst, "fill dst", 0, ""))
      check_swizzled_elements(bulk_context(), f.dst, "fill dst");
  }

  void check(const CopyOp& c, const Op&) {
    const View& d = c.dst.value;
    const View& s = c.src.value;
    if (d.shape() != s.shape()) {
      error(DiagId::contract_copy_shape, c.src.pos,
            "copy needs views of equal shape: dst has " + shape_str(d) + ", src has " +
                shape_str(s),
            text_length(c.src));
      return;
    }
    if (size_bytes(d.dtype) != size_bytes(s.dtype)) {
      error(DiagId::contract_copy_element_size, c.src.pos,
            "copy is element-wise and needs equal element sizes: dst has " +
                std::string(name(d.dtype)) + ", src has " + std::string(name(s.dtype)),
            text_length(c.src));
      return;
    }
    std::int64_t elems = 1;
    for (auto n : d.shape())
      elems *= n;
    if (elems > 16 * max_repeats_per_apply) {
      error(DiagId::contract_copy_too_large, c.dst.pos,
            "copy of " + std::to_string(elems) + " elements per thread is too large",
            text_length(c.dst));
      return;
    }
    check_not_barrier(c.dst, "copy dst");
    check_not_barrier(c.src, "copy src");
    check_peer_rank(k_, lb_, c.dst, "copy dst", out_);
    check_peer_rank(k_, lb_, c.src, "copy src", out_);
    if (check_bounds(c.dst, "copy dst", 0, ""))
      check_swizzled_elements(bulk_context(), c.dst, "copy dst");
    if (check_bounds(c.src, "copy src", 0, ""))
      check_swizzled_elements(bulk_context(), c.src, "copy src");
    if (c.pred)
      prove_u32(*c.pred->value, lb_, c.pred->pos, text_length(*c.pred), "pred");
  }
  // The rules of the warps' roles are warp_roles.cpp's (check_warp_roles, after the ops).
  void check(const NamedBarrierOp&, const Op&) {}
  void check(const SetmaxnregOp&, const Op&) {}

  void check(const WaitGroupOp& w, const Op& op) {
    if (auto d = wait_group_rule(w.n))
      error(d->id, op.pos, std::move(d->message));
  }
  /// A loop's variable ranges over [start's least value, stop's greatest - 1]
  /// inside its body (every iteration of every CTA, for every parameter value
  /// in its declared range); step must be provably at least 1. The lowering
  /// counts in u32 registers, so the variable and stop must stay in 0..2^31-1.
  void check(const ForOp& f, const Op&) {
    const auto start = bounds(*f.start.value, lb_);
    const auto stop = bounds(*f.stop.value, lb_);
    const auto step = bounds(*f.step.value, lb_);
    constexpr std::int64_t kLimit = (std::int64_t{1} << 31) - 1;
    const std::pair<const Located<ExprPtr>*, const std::optional<Interval>*> parts[] = {
        {&f.start, &start}, {&f.stop, &stop}, {&f.step, &step}};
    bool ok = true;
    for (const auto& [expr, range] : parts) {
      if (!*range || (*range)->lo < 0 || (*range)->hi > kLimit) {
        error(DiagId::contract_loop_range, expr->pos,
              "loop '" + f.var.value + "': '" + expr->text + "' must be provably in 0.." +
                  std::to_string(kLimit) + "; its range is " + range_text(*range),
              text_length(*expr));
        ok = false;
      }
    }
    if (ok && step->lo < 1) {
      error(DiagId::contract_loop_step, f.step.pos,
            "loop '" + f.var.value + "': step must be provably at least 1; its range is " +
                range_text(step),
            text_length(f.step));
      ok = false;
    }
    // The variable's values: start.lo .. stop.hi - 1 (empty: the body never runs,
    // and is still checked over start's range so that its errors are not hidden).
    Interval var{ok ? start->lo : 0, ok ? std::max(start->lo, stop->hi - 1) : kLimit};
    lb_.loops[f.var.value] = var;
    open_loops_.push_back(&f);
    // A loop whose header is refused has no range to prove its body's views with: the
    // proofs that depend on its variable would only repeat the header's error.
    if (!ok)
      broken_loops_.insert(f.var.value);
  }
  void check(const EndOp& e, const Op&) {
    const auto& f = std::get<ForOp>(k_.ops[e.begin].body);
    lb_.loops.erase(f.var.value);
    broken_loops_.erase(f.var.value);
    open_loops_.pop_back();
  }

  /// u32_proof, unless e depends on a loop whose header was refused.
  void prove_u32(const Expr& e, const LaunchBounds& lb, const SourcePos& pos, std::uint32_t length,
                 std::string_view what) {
    if (!uses_broken_loop(e))
      u32_proof(e, lb, pos, length, what, true);
  }

  /// check_u32_rec over `lb`; where that refuses inside a loop, again one CTA at a time
  /// (per_cta_bounds.hpp), the lowering's choice of min/max's signedness still taken over
  /// `lb` (U32Context::top): the errors stand only when some CTA's proof fails too.
  void u32_proof(const Expr& e, const LaunchBounds& lb, const SourcePos& pos, std::uint32_t length,
                 std::string_view what, bool whole) {
    Diagnostics found;
    std::vector<std::optional<Interval>> ranges;
    check_u32_rec(e, U32Context{lb, lb, pos, length, what, &ranges}, found, whole);
    if (found.empty())
      return;
    bool every_cta = !open_loops_.empty() && lb.grid >= 2 && lb.grid <= max_per_cta_proofs;
    for (std::int64_t b = 0; every_cta && b < lb.grid; ++b) {
      if (auto it = lb.narrowed.find(ExprKind::bid);
          it != lb.narrowed.end() && !it->second.contains(b))
        continue; // no thread of CTA b takes this path
      const auto at = bounds_at_cta(lb, b, open_loops_);
      Diagnostics at_cta;
      if (at)
        check_u32_rec(e, U32Context{lb, *at, pos, length, what}, at_cta, whole);
      every_cta = at && at_cta.empty();
    }
    if (!every_cta) {
      for (std::size_t i = 0; i < found.size(); ++i)
        u32_failures_[out_.size() + i] = U32Failure{std::string(what), ranges.at(i)};
      out_.append(found);
    }
  }

  /// What a 32-bit index error of out_ (by its index there) is about, for the pipeline's
  /// rewording of it (one_index_error_per_pipeline).
  struct U32Failure {
    std::string what;
    std::optional<Interval> range; ///< the failing value's range over the declared ranges
  };
  std::map<std::size_t, U32Failure> u32_failures_;

  /// The variables of the enclosing loops whose header was refused.
  std::set<std::string, std::less<>> broken_loops_;

  bool uses_broken_loop(const Expr& e) const {
    if (e.kind == ExprKind::loop && broken_loops_.count(e.name) != 0)
      return true;
    return std::any_of(e.args.begin(), e.args.end(),
                       [this](const ExprPtr& a) { return uses_broken_loop(*a); });
  }
  bool uses_broken_loop(const View& v) const {
    return !broken_loops_.empty() &&
           std::any_of(v.terms.begin(), v.terms.end(),
                       [this](const RuntimeTerm& t) { return uses_broken_loop(*t.index); });
  }
  /// The per-op proofs are about views and expressions: an op with neither (ops.def's plain
  /// ops: groups, barriers, fences) has none.
  template <PlainOp P>
  void check(const P&, const Op&) {}

  // --- mbarriers: the per-op rules (the phase walk is in mbarrier_contract.cpp) ---

  /// The tensors some mbarrier op uses as its barrier: no data op may touch them.
  std::set<const Tensor*> barrier_tensors_;

  void collect_barrier_tensors() {
    for (const auto& op : k_.ops)
      if (const Located<View>* b = barrier_of(op.body))
        barrier_tensors_.insert(b->value.tensor);
  }

  /// The op's field of kind `barrier` (ops.def); nullptr for an op without one.
  static const Located<View>* barrier_of(const OpBody& body) {
    const Located<View>* barrier = nullptr;
    std::visit(
        [&](const auto& op) {
          for_each_field(op, [&](const FieldRow& r, const auto& member) {
            if constexpr (std::is_same_v<std::decay_t<decltype(member)>, Located<View>>) {
              if (r.kind == FieldKind::barrier)
                barrier = &member;
            }
          });
        },
        body);
    return barrier;
  }

  /// A data op's view of a tensor that holds barriers.
  void check_not_barrier(const Located<View>& v, std::string_view role) {
    if (barrier_tensors_.count(v.value.tensor) == 0)
      return;
    error(DiagId::contract_mbarrier_overlap, v.pos,
          std::string(role) + " '" + v.value.tensor->name +
              "' holds mbarriers: a barrier's tensor must not be used for data",
          text_length(v));
  }

  /// The barrier view: 8 contiguous bytes inside its tensor, at a multiple of 8 bytes for
  /// every thread, CTA and iteration; the same for every thread of a CTA unless
  /// `per_thread` (an arrival or wait: each thread's own view, e.g. one barrier per warp).
  bool check_barrier(const Located<View>& b, bool per_thread = false) {
    const View& v = b.value;
    std::int64_t elems = 1;
    for (auto n : v.shape())
      elems *= n;
    const std::int64_t elem = size_bytes(v.dtype);
    bool contiguous = true;
    std::int64_t stride = elem;
    for (std::size_t i = v.axes.size(); i-- > 0;) {
      if (v.axes[i].size == 1)
        continue;
      contiguous = contiguous && v.axes[i].stride_bytes == stride;
      stride *= v.axes[i].size;
    }
    if (elems * elem != ptx::mbarrier_bytes || !contiguous) {
      error(DiagId::contract_mbarrier_view, b.pos,
            "an mbarrier is 8 contiguous bytes; '" + b.text + "' is " + shape_str(v) + " of " +
                std::string(name(v.dtype)) + (contiguous ? "" : ", not contiguous") +
                " (index a tensor of dtype uint64, e.g. bar.sub[0])",
            text_length(b));
      return false;
    }
    if (!per_thread && uses_thread(v)) {
      // One thread initialises the barrier, announces the transaction bytes or issues
      // the loads: the barrier it names is the one barrier the others arrive on and wait
      // for; per-thread views are for arrivals and waits.
      error(DiagId::contract_mbarrier_view, b.pos,
            "'" + b.text +
                "' depends on the thread: mbarrier_init, expect_tx and the bulk and tensor "
                "loads name one barrier for the CTA (a thread-dependent barrier, such as "
                "bar.sub[warp], is for copy_arrive, mbarrier_arrive and mbarrier_wait; "
                "initialise each one with its own constant view)",
            text_length(b));
      return false;
    }
    if (!check_bounds(b, "barrier", 0, ""))
      return false;
    // Aligned for every value of the indices exactly when the constant part and every
    // index's stride are multiples of 8 (a shared tensor starts at 16 bytes or more).
    std::int64_t misaligned = v.offset_bytes % ptx::mbarrier_bytes;
    for (const auto& t : v.terms)
      if (misaligned == 0 && t.stride_bytes % ptx::mbarrier_bytes != 0)
        misaligned = t.stride_bytes;
    if (misaligned != 0) {
      error(DiagId::contract_mbarrier_align, b.pos,
            "an mbarrier must be 8-byte aligned; '" + b.text + "' is " + v.str() +
                ", whose offset is not a multiple of 8 for every index",
            text_length(b));
      return false;
    }
    return true;
  }

  void check(const MbarrierInitOp& m, const Op&) {
    if (m.count.value < 1 || m.count.value > ptx::max_mbarrier_count)
      error(DiagId::contract_mbarrier_count_range, m.count.pos,
            "mbarrier_init's count must be in 1.." + std::to_string(ptx::max_mbarrier_count) +
                "; it is " + std::to_string(m.count.value),
            text_length(m.count));
    check_barrier(m.barrier);
  }
  void check(const CopyArriveOp& m, const Op&) { check_barrier(m.barrier, true); }
  void check(const MbarrierArriveOp& m, const Op&) {
    check_barrier(m.barrier, true);
    check_peer_rank(k_, lb_, m.barrier, "mbarrier_arrive barrier", out_,
                    m.pred ? m.pred->value.get() : nullptr);
    if (m.pred)
      prove_u32(*m.pred->value, lb_, m.pred->pos, text_length(*m.pred), "pred");
  }
  void check(const MbarrierWaitOp& m, const Op&) {
    check_barrier(m.barrier, true);
    prove_u32(*m.parity.value, lb_, m.parity.pos, text_length(m.parity), "parity");
    if (m.pred)
      prove_u32(*m.pred->value, lb_, m.pred->pos, text_length(*m.pred), "pred");
  }
  // --- the sm_90 bulk family: the proofs are in bulk_contract.cpp ---

  BulkProofContext bulk_context() {
    return BulkProofContext{
        k_, lb_, out_,
        [this](const Located<View>& v, std::string_view role, const Located<ExprPtr>* pred) {
          return check_bounds(v, role, 0, "", pred);
        },
        [this](const Expr& e, const LaunchBounds& lb, const SourcePos& pos, std::uint32_t length,
               std::string_view what, bool whole) {
          if (!uses_broken_loop(e))
            u32_proof(e, lb, pos, length, what, whole);
        }};
  }

  /// What every bulk-family copy's operands keep before its own proofs: its shared side is
  /// no mbarrier, its cache policy names a u64 parameter.
  void check_copy_operands(const Located<View>& shared, std::string_view role,
                           const std::optional<Located<CachePolicy>>& policy) {
    check_not_barrier(shared, role);
    check_policy_param(k_, policy, out_);
  }
  void check(const BulkLoadOp& b, const Op&) {
    check_barrier(b.barrier);
    check_copy_operands(b.dst, "bulk_load dst", b.cache_policy);
    check_bulk_load(bulk_context(), b);
    check_multicast_mask(bulk_context(), b.multicast, b.pred);
  }
  void check(const BulkStoreOp& b, const Op&) {
    check_copy_operands(b.src, "bulk_store src", b.cache_policy);
    check_bulk_store(bulk_context(), b);
  }
  void check(const BulkCopyPeerOp& b, const Op&) {
    check_barrier(b.barrier);
    check_not_barrier(b.dst, "bulk_copy_peer dst");
    check_not_barrier(b.src, "bulk_copy_peer src");
    const Expr* pred = b.pred ? b.pred->value.get() : nullptr;
    check_peer_rank(k_, lb_, b.dst, "bulk_copy_peer dst", out_, pred);
    check_peer_rank(k_, lb_, b.barrier, "bulk_copy_peer barrier", out_, pred);
    check_bulk_peer(bulk_context(), b);
  }
  void check(const BulkReduceOp& b, const Op& op) {
    check_copy_operands(b.src, "bulk_reduce src", b.cache_policy);
    check_bulk_reduce(bulk_context(), b, op.pos);
  }
  void check(const BulkWaitOp&, const Op&) {}
  void check(const ExpectTxOp& e, const Op&) {
    check_barrier(e.barrier);
    check_expect_tx(bulk_context(), e);
  }
  void check(const TensorLoadOp& t, const Op&) {
    check_barrier(t.barrier);
    check_copy_operands(t.dst, "tensor_load dst", t.cache_policy);
    check_tensor_load(bulk_context(), t);
    check_multicast_mask(bulk_context(), t.multicast, t.pred);
    check_tensor_copy_map(bulk_context(), t.map, t.pred);
  }
  void check(const TensorStoreOp& t, const Op&) {
    check_copy_operands(t.src, "tensor_store src", t.cache_policy);
    check_tensor_store(bulk_context(), t);
    check_tensor_copy_map(bulk_context(), t.map, t.pred);
  }
  void check(const TensormapCopyOp& t, const Op&) {
    check_not_barrier(t.dst, "tensormap_copy dst");
    check_tensormap_copy(bulk_context(), t);
  }
  void check(const TensormapReplaceOp& t, const Op&) {
    check_not_barrier(t.map, "tensormap_replace map");
    check_tensormap_replace(bulk_context(), t);
  }
  void check(const TensormapFenceOp& t, const Op&) { check_tensormap_fence(bulk_context(), t); }
  void check(const TensorReduceOp& t, const Op& op) {
    check_copy_operands(t.src, "tensor_reduce src", t.cache_policy);
    check_tensor_reduce(bulk_context(), t, op.pos);
  }
  void check(const PrefetchTensormapOp& p, const Op&) {
    if (p.pred)
      prove_u32(*p.pred->value, lb_, p.pred->pos, text_length(*p.pred), "pred");
  }
};

} // namespace

Diagnostics check_contract(const Kernel& k, ptx::Target target) {
  return Checker(k, target).run();
}

} // namespace ptxgen::tile
