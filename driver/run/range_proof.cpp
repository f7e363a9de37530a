#include "driver/run/range_proof.hpp"

#include "driver/reference/expect.hpp"
#include "driver/reference/naive_view.hpp"
#include "driver/reference/reference.hpp"
#include "driver/run/tensor_data.hpp"
#include "emitter/support/overloaded.hpp"
#include "emitter/tile/mbarrier_contract.hpp"
#include "emitter/tile/op_table.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>

namespace ptxgen::driver {

namespace {

using ExprVisitor = std::function<void(const tile::Expr&)>;

void visit_view(const tile::View& v, const ExprVisitor& f) {
  for (const tile::ViewStep& step : v.steps)
    if (const auto* sub = std::get_if<tile::SubStep>(&step))
      for (const tile::SubEntry& e : sub->entries)
        if (!e.is_slice && e.index)
          f(*e.index);
  for (const tile::RuntimeTerm& t : v.terms)
    if (t.index)
      f(*t.index);
  if (v.peer) // which CTA's bytes a peer view reaches
    f(*v.peer);
}

void visit_optional(const std::optional<tile::Located<tile::ExprPtr>>& e, const ExprVisitor& f) {
  if (e && e->value)
    f(*e->value);
}

void visit_shared_view(const tile::View& v, const ExprVisitor& f) {
  if (v.tensor && v.tensor->space == tile::Space::shared)
    visit_view(v, f);
}

void visit_global_view(const tile::View& v, const ExprVisitor& f) {
  if (v.tensor && v.tensor->space == tile::Space::global)
    visit_view(v, f);
}

/// An expectation side's indices and slice bounds.
void visit_expect_side(const tile::View& v, const ExprVisitor& f) {
  visit_view(v, f);
  for (const tile::ViewStep& step : v.steps)
    if (const auto* sub = std::get_if<tile::SubStep>(&step))
      for (const tile::SubEntry& e : sub->entries)
        for (const tile::ExprPtr& bound : {e.begin_expr, e.end_expr})
          if (bound)
            f(*bound);
}

/// The global tensors some op writes: between CTAs, their reads race with the writes.
std::set<const tile::Tensor*> written_globals(const tile::Kernel& k) {
  std::set<const tile::Tensor*> out;
  auto note = [&](const tile::View& v) {
    if (v.tensor && v.tensor->space == tile::Space::global)
      out.insert(v.tensor);
  };
  auto note_named = [&](const std::string& name) {
    for (const auto& d : k.tensors)
      if (d->tensor.name == name)
        out.insert(&d->tensor);
  };
  for (const tile::Op& op : k.ops) {
    if (const auto* c = std::get_if<tile::CopyOp>(&op.body))
      note(c->dst.value);
    else if (const auto* x = std::get_if<tile::FillOp>(&op.body))
      note(x->dst.value);
    else if (const auto* b = std::get_if<tile::BulkStoreOp>(&op.body))
      note(b->dst.value);
    else if (const auto* r = std::get_if<tile::BulkReduceOp>(&op.body))
      note(r->dst.value);
    else if (const auto* t = std::get_if<tile::TensorStoreOp>(&op.body))
      note_named(t->tensor.value);
    else if (const auto* tr = std::get_if<tile::TensorReduceOp>(&op.body))
      note_named(tr->tensor.value);
  }
  return out;
}

/// The tensors an expectation's verdict reads, closed under the data flow: the tensors its
/// sides name, and the source of every op that writes one of them (transitively). Tensors
/// never alias (each is its own allocation or shared range, and the contract keeps every
/// view inside its tensor), so no other op changes a byte the expectations compare.
std::set<const tile::Tensor*> expectation_tensors(const tile::Kernel& k) {
  std::set<const tile::Tensor*> read;
  for (const tile::Expectation& x : k.expectations) {
    read.insert(x.lhs.value.tensor);
    if (const auto* rhs = std::get_if<tile::Located<tile::View>>(&x.rhs))
      read.insert(rhs->value.tensor);
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const tile::Op& op : k.ops) {
      const tile::View* dst = nullptr;
      const tile::View* src = nullptr;
      if (const auto* a = std::get_if<tile::ApplyOp>(&op.body)) {
        dst = &a->dst.value;
        src = &a->src.value;
      } else if (const auto* c = std::get_if<tile::CopyOp>(&op.body)) {
        dst = &c->dst.value;
        src = &c->src.value;
      }
      if (dst && src && read.count(dst->tensor) && read.insert(src->tensor).second)
        grew = true;
    }
  }
  return read;
}

/// What an expectation's verdict depends on beyond visit_roots: which bytes land in the
/// tensors it reads (the global side of the ops that write them, src_size, ignore_src) and
/// the regions it compares. The hazards never depend on these, the bytes compared do.
void visit_data_roots(const tile::Kernel& k, const ExprVisitor& f) {
  const std::set<const tile::Tensor*> read = expectation_tensors(k);
  auto writes_read = [&](const tile::View& dst) { return read.count(dst.tensor) != 0; };
  for (const tile::Op& op : k.ops) {
    std::visit(
        overloaded{[&](const tile::ApplyOp& a) {
                     if (!writes_read(a.dst.value))
                       return;
                     visit_global_view(a.dst.value, f);
                     visit_global_view(a.src.value, f);
                     visit_optional(a.src_size, f);
                     visit_optional(a.ignore_src, f);
                   },
                   [&](const tile::CopyOp& c) {
                     if (!writes_read(c.dst.value))
                       return;
                     visit_global_view(c.dst.value, f);
                     visit_global_view(c.src.value, f);
                     visit_optional(c.pred, f);
                   },
                   [&](const tile::FillOp& x) {
                     if (writes_read(x.dst.value))
                       visit_global_view(x.dst.value, f);
                   },
                   [&](const tile::BulkLoadOp& b) {
                     visit_global_view(b.dst.value, f);
                     visit_global_view(b.src.value, f);
                   },
                   [&](const tile::BulkStoreOp& b) {
                     visit_global_view(b.dst.value, f);
                     visit_global_view(b.src.value, f);
                   },
                   [&](const tile::BulkReduceOp& b) {
                     visit_global_view(b.dst.value, f);
                     visit_global_view(b.src.value, f);
                   },
                   // Shared on both sides: nothing global.
                   [](const tile::BulkCopyPeerOp&) {},
                   // Their coordinates are visit_roots' (every tensor op's).
                   [](const tile::TensorLoadOp&) {}, [](const tile::TensorStoreOp&) {},
                   [](const tile::TensorReduceOp&) {}, [](const tile::PrefetchTensormapOp&) {},
                   [](const tile::BulkWaitOp&) {}, [](const tile::ExpectTxOp&) {},
                   // Their expressions are visit_roots' (shared views, bounds, fields).
                   [](const tile::ForOp&) {}, [](const tile::MbarrierInitOp&) {},
                   [](const tile::CopyArriveOp&) {}, [](const tile::MbarrierArriveOp&) {},
                   [](const tile::MbarrierWaitOp&) {}, [](const tile::WaitGroupOp&) {},
                   [](const tile::EndOp&) {},
                   // A map slot's views: their global bytes are the map's, no data.
                   [](const tile::TensormapCopyOp&) {}, [](const tile::TensormapReplaceOp&) {},
                   [](const tile::TensormapFenceOp&) {}, [](const tile::NamedBarrierOp&) {},
                   [](const tile::SetmaxnregOp&) {},
                   // No view, no expression (ops.def's plain ops).
                   [](const tile::PlainOp auto&) {}},
        op.body);
  }
  for (const tile::Expectation& x : k.expectations) {
    visit_expect_side(x.lhs.value, f);
    if (const auto* rhs = std::get_if<tile::Located<tile::View>>(&x.rhs))
      visit_expect_side(rhs->value, f);
  }
}

/// Every root expression the whole-launch checks' verdicts can depend on: loop bounds,
/// predicates, mbarrier fields, and the views of shared tensors (which bytes each thread
/// reads, writes or has pending). The global side of a copy, src_size and ignore_src
/// change which bytes land (data), never which shared bytes are touched, when or by whom
/// (a cp.async writes its whole chunk, zeros included), and the contract proves their
/// bounds over the whole range by intervals: the hazards ignore them. An expectation
/// compares those bytes, so a kernel with expectations has them among its roots too
/// (visit_data_roots), and with them every expression the reference evaluates.
void visit_roots(const tile::Kernel& k, const ExprVisitor& f) {
  if (!k.expectations.empty())
    visit_data_roots(k, f);
  // With bulk or tensor copies, which global bytes an op touches decides the whole-launch
  // checks too: a generic access of bytes a bulk store writes or wrote (before its wait,
  // after another thread's wait), a generic store before a load of the bytes.
  const bool async_global = std::any_of(k.ops.begin(), k.ops.end(), [](const tile::Op& o) {
    return tile::op_row(o.body).proxy == tile::Proxy::async;
  });
  auto global_view = [&](const tile::View& v) {
    if (async_global)
      visit_global_view(v, f);
  };
  // With two CTAs or more, which global bytes each CTA writes, and which bytes of a tensor
  // some op writes it reads, decide the races between CTAs (check_cross_cta_race).
  const std::set<const tile::Tensor*> written =
      k.grid > 1 && !async_global ? written_globals(k) : std::set<const tile::Tensor*>{};
  auto grid_view = [&](const tile::View& v) {
    if (written.count(v.tensor) != 0)
      visit_global_view(v, f);
  };
  for (const tile::Op& op : k.ops) {
    std::visit(overloaded{[&](const tile::ApplyOp& a) {
                            visit_shared_view(a.dst.value, f);
                            global_view(a.src.value);
                            grid_view(a.src.value);
                            visit_optional(a.pred, f);
                          },
                          [&](const tile::FillOp& x) {
                            visit_shared_view(x.dst.value, f);
                            global_view(x.dst.value);
                            grid_view(x.dst.value);
                          },
                          [&](const tile::CopyOp& c) {
                            visit_shared_view(c.dst.value, f);
                            visit_shared_view(c.src.value, f);
                            global_view(c.dst.value);
                            global_view(c.src.value);
                            grid_view(c.dst.value);
                            grid_view(c.src.value);
                            visit_optional(c.pred, f);
                          },
                          // Their preds use the thread alone (warp_roles.hpp): no range.
                          [](const tile::NamedBarrierOp&) {}, [](const tile::SetmaxnregOp&) {},
                          [&](const tile::ForOp& l) {
                            f(*l.start.value);
                            f(*l.stop.value);
                            f(*l.step.value);
                          },
                          [&](const tile::MbarrierInitOp& m) { visit_view(m.barrier.value, f); },
                          [&](const tile::CopyArriveOp& m) { visit_view(m.barrier.value, f); },
                          [&](const tile::MbarrierArriveOp& m) {
                            visit_view(m.barrier.value, f);
                            visit_optional(m.pred, f);
                          },
                          [&](const tile::MbarrierWaitOp& m) {
                            visit_view(m.barrier.value, f);
                            f(*m.parity.value);
                            visit_optional(m.pred, f);
                          },
                          // The bulk family: every expression (which bytes, when, by whom,
                          // how many transaction bytes; a tensor store's coordinates also
                          // decide which global bytes it writes).
                          [&](const tile::BulkLoadOp& b) {
                            visit_view(b.dst.value, f);
                            visit_view(b.src.value, f);
                            visit_view(b.barrier.value, f);
                            visit_optional(b.pred, f);
                          },
                          [&](const tile::BulkStoreOp& b) {
                            visit_view(b.src.value, f);
                            visit_view(b.dst.value, f);
                            visit_optional(b.pred, f);
                          },
                          [&](const tile::BulkReduceOp& b) {
                            visit_view(b.src.value, f);
                            visit_view(b.dst.value, f);
                            visit_optional(b.pred, f);
                          },
                          [&](const tile::BulkCopyPeerOp& b) {
                            visit_view(b.dst.value, f);
                            visit_view(b.src.value, f);
                            visit_view(b.barrier.value, f);
                            visit_optional(b.pred, f);
                          },
                          [&](const tile::ExpectTxOp& e) {
                            visit_view(e.barrier.value, f);
                            f(*e.bytes.value);
                            visit_optional(e.pred, f);
                          },
                          [&](const tile::TensorLoadOp& t) {
                            for (const auto& c : t.coords)
                              f(*c.value);
                            visit_view(t.dst.value, f);
                            visit_view(t.barrier.value, f);
                            visit_optional(t.pred, f);
                          },
                          [&](const tile::TensorStoreOp& t) {
                            for (const auto& c : t.coords)
                              f(*c.value);
                            visit_view(t.src.value, f);
                            visit_optional(t.pred, f);
                          },
                          [&](const tile::TensormapCopyOp& t) {
                            visit_view(t.dst.value, f);
                            if (t.src)
                              visit_view(t.src->value, f);
                            visit_optional(t.pred, f);
                          },
                          [&](const tile::TensormapReplaceOp& t) {
                            visit_view(t.map.value, f);
                            visit_optional(t.value, f);
                            visit_optional(t.pred, f);
                          },
                          [&](const tile::TensormapFenceOp& t) {
                            visit_view(t.map.value, f);
                            visit_optional(t.pred, f);
                          },
                          [&](const tile::TensorReduceOp& t) {
                            for (const auto& c : t.coords)
                              f(*c.value);
                            visit_view(t.src.value, f);
                            visit_optional(t.pred, f);
                          },
                          [&](const tile::PrefetchTensormapOp& p) { visit_optional(p.pred, f); },
                          [](const tile::BulkWaitOp&) {}, [](const tile::WaitGroupOp&) {},
                          [](const tile::EndOp&) {},
                          // No view, no expression (ops.def's plain ops).
                          [](const tile::PlainOp auto&) {}},
               op.body);
  }
}

bool is_param(const tile::Expr& e, std::string_view name) {
  return e.kind == tile::ExprKind::param && e.name == name;
}

bool names_param(const tile::Expr& e, std::string_view name) {
  if (is_param(e, name))
    return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [&](const tile::ExprPtr& a) { return names_param(*a, name); });
}

/// A comparison: an operator expr_ops.def gives a negation.
bool is_comparison(tile::ExprOp op) {
  return tile::info(op).negated != tile::ExprOp::none;
}

/// The comparison's truth for the values a and b, as the expression language evaluates it.
bool compare(tile::ExprOp op, std::int64_t a, std::int64_t b) {
  const auto v =
      tile::constant_value(*tile::make_binary(op, tile::make_constant(a), tile::make_constant(b)));
  return v.value_or(0) != 0;
}

/// Whether every expression that names parameter `name` evaluates the same for all of its
/// values in `launch.params[name]` (the range [c, hi] being tried). A use is decided when
/// it sits in a comparison whose two sides' intervals are disjoint, in a min or max whose
/// p side's interval lies wholly above (min) or below (max) the other side's, or in the arm
/// of a select that a decided comparison rules out. Any other use is not.
struct DecidedScan {
  std::string_view name;
  const tile::LaunchBounds& launch;
  bool used = false;
  bool decided = true;

  void scan(const tile::Expr& e) {
    if (is_param(e, name)) {
      used = true;
      decided = false; // a bare use: its value flows on
      return;
    }
    if (e.kind == tile::ExprKind::binary && e.args.size() == 2) {
      if (const auto taken = decided_node(e); taken)
        return;
    }
    if (e.kind == tile::ExprKind::select && e.args[0]->kind == tile::ExprKind::binary &&
        is_comparison(e.args[0]->op)) {
      if (const auto truth = decided_node(*e.args[0]); truth) {
        scan(*e.args[*truth ? 1 : 2]);
        return;
      }
    }
    for (const tile::ExprPtr& a : e.args)
      scan(*a);
  }

  /// For a binary node with p on exactly one side: its value when decided over the range
  /// (a comparison's truth; for min and max, true), else nullopt.
  std::optional<bool> decided_node(const tile::Expr& e) {
    const bool left = names_param(*e.args[0], name), right = names_param(*e.args[1], name);
    if (left == right)
      return std::nullopt;
    const bool comparison = is_comparison(e.op);
    if (!comparison && e.op != tile::ExprOp::min && e.op != tile::ExprOp::max)
      return std::nullopt;
    const auto a = tile::bounds(*e.args[0], launch), b = tile::bounds(*e.args[1], launch);
    if (!a || !b)
      return std::nullopt;
    const tile::Interval& p_side = left ? *a : *b;
    const tile::Interval& other = left ? *b : *a;
    if (comparison) {
      if (a->hi < b->lo || b->hi < a->lo) {
        used = true;
        return compare(e.op, a->lo, b->lo);
      }
      return std::nullopt;
    }
    // min(p side, other) is other when the p side is never below it; max the reverse.
    const bool is_other = e.op == tile::ExprOp::min ? p_side.lo >= other.hi : p_side.hi <= other.lo;
    if (!is_other)
      return std::nullopt;
    used = true;
    return true;
  }
};

/// Every use of the parameter decided over [c, range.hi]; `used` reports whether any
/// expression names it at all.
bool decided_from(const tile::Kernel& k, std::string_view name, tile::Interval range,
                  std::int64_t c, bool& used) {
  tile::LaunchBounds launch = k.launch_bounds();
  launch.params[std::string(name)] = tile::Interval{c, range.hi};
  DecidedScan scan{name, launch};
  visit_roots(k, [&](const tile::Expr& e) { scan.scan(e); });
  used = scan.used || !scan.decided;
  return scan.decided;
}

tile::Interval whole_range(const tile::ScalarParam& p) {
  if (p.range)
    return *p.range;
  return tile::Interval{0, p.is_u64 ? INT64_MAX : std::int64_t{0xFFFFFFFF}};
}

std::string values_text(const tile::Kernel& k, const std::vector<ParamCoverage>& plan,
                        std::span<const std::uint64_t> values) {
  std::string s;
  for (const ParamCoverage& c : plan) {
    if (!c.used)
      continue;
    const std::uint64_t v = values.empty() ? k.params[c.index].value : values[c.index];
    s += (s.empty() ? "" : ", ") + k.params[c.index].name + " = " + std::to_string(v);
  }
  return s;
}

/// Errors of one run, each naming the values; notes dropped unless `keep_notes`.
void add_run(Diagnostics& out, const Diagnostics& found, const std::string& at, bool keep_notes) {
  for (const Diagnostic& d : found.items()) {
    if (d.severity != Severity::error && !keep_notes)
      continue;
    Diagnostic copy = d;
    if (d.severity == Severity::error && !at.empty())
      copy.message += " (at " + at + ")";
    out.add(std::move(copy));
  }
}

Diagnostic coverage_note(const tile::Kernel& k, const ParamCoverage& c) {
  const tile::ScalarParam& p = k.params[c.index];
  std::string m = p.name + ": ";
  const std::string lo = std::to_string(c.range.lo), hi = std::to_string(c.range.hi);
  const std::string top = std::to_string(c.checked_hi);
  if (!c.used && !k.expectations.empty())
    m += "no expression of the kernel or its expectations names it, so its test value "
         "stands for " +
         lo + ".." + hi;
  else if (!c.used)
    m += "no expression the whole-launch checks depend on names it (at most src_size, "
         "ignore_src or a global tensor's view do: data, whose bounds the contract proves over "
         "the range), so its test value stands for " +
         lo + ".." + hi;
  else if (!c.merged_above)
    m += "every value of " + lo + ".." + hi + " checked (" + std::to_string(c.values()) + " value" +
         (c.values() == 1 ? "" : "s") + ")";
  else
    m += (c.values() == 1 ? lo + " checked" : lo + ".." + top + " checked value by value") +
         "; over " + top + ".." + hi + " every expression that names it evaluates as at " + top +
         " (each use is a comparison decided the same way, a min or max at its other "
         "side, or a select arm ruled out), so " +
         top + " stands for them";
  Diagnostic d(DiagId::check_param_coverage, m, Severity::note);
  d.file = k.file;
  d.line = p.pos.line;
  d.column = p.pos.column;
  return d;
}

Diagnostic too_wide(const tile::Kernel& k, const std::vector<ParamCoverage>& plan) {
  const ParamCoverage* widest = &plan.front();
  for (const ParamCoverage& c : plan)
    if (c.values() > widest->values())
      widest = &c;
  const tile::ScalarParam& p = k.params[widest->index];
  long double runs = 1;
  for (const ParamCoverage& c : plan)
    runs *= static_cast<long double>(c.values());
  const auto others = static_cast<std::uint64_t>(runs / widest->values());
  const std::uint64_t fit =
      std::max<std::uint64_t>(1, max_value_runs / std::max<std::uint64_t>(1, others));
  std::string m = "the whole-launch checks run at every value the parameters declare, and " +
                  p.name + "'s range " + std::to_string(widest->range.lo) + ".." +
                  std::to_string(widest->range.hi) + " makes " +
                  std::to_string(static_cast<unsigned long long>(runs)) +
                  " runs in all, more than " + std::to_string(max_value_runs) +
                  " (no proof covers it otherwise: some use of it is not a comparison or min "
                  "with a bounded expression" +
                  (k.expectations.empty()
                       ? std::string()
                       : std::string("; the expectations compare the bytes the kernel writes, so "
                                     "its data uses count too")) +
                  "); narrow its range to at most " + std::to_string(fit) + " values";
  Diagnostic d(DiagId::check_range_too_wide, m);
  d.file = k.file;
  d.line = p.pos.line;
  d.column = p.pos.column;
  return d;
}

/// Advances the odometer over the used parameters' values; false after the last.
bool next_values(std::vector<std::uint64_t>& values, const std::vector<ParamCoverage>& plan) {
  for (const ParamCoverage& c : plan) {
    if (!c.used)
      continue;
    auto& v = values[c.index];
    if (static_cast<std::int64_t>(v) < c.checked_hi) {
      ++v;
      return true;
    }
    v = static_cast<std::uint64_t>(c.range.lo);
  }
  return false;
}

std::vector<std::uint64_t> test_values(const tile::Kernel& k) {
  std::vector<std::uint64_t> v;
  for (const auto& p : k.params)
    v.push_back(p.value);
  return v;
}

/// The global tensors' initial bytes, by name. They depend on no parameter (a tensor's shape
/// and init are constants), so the runs at every value share one copy of them. None where
/// the runs do not hold the values (holds_values).
GlobalBytes initial_global_bytes(const tile::Kernel& k) {
  GlobalBytes bytes;
  if (!holds_values(k))
    return bytes;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      bytes[t->tensor.name] = initial_bytes(*t);
  return bytes;
}

/// reference_findings' run, starting from `initial` (initial_global_bytes).
Diagnostics findings_from(const tile::Kernel& k, const GlobalBytes& initial,
                          ExpectationRuns expectations, std::span<const std::uint64_t> values) {
  ReferenceInput in;
  in.kernel = &k;
  in.param_values.assign(values.begin(), values.end());
  in.values = holds_values(k);
  if (in.values)
    in.global = initial;
  const ReferenceOutput out = evaluate_reference(std::move(in));
  Diagnostics ds = findings_as_diagnostics(k, out);
  drop_disabled_rules(ds);
  // Expectations compare the initial bytes with the final ones.
  if (expectations == ExpectationRuns::check && !k.expectations.empty() && holds_values(k))
    ds.append(expectation_diagnostics(k, check_expectations(k, initial, out.global, values)));
  return ds;
}

/// The note that the expectations of a kernel whose values the runs do not hold were not
/// checked, at the first one.
Diagnostic expectations_unchecked(const tile::Kernel& k) {
  const tile::Expectation& x = k.expectations.front();
  Diagnostic d(DiagId::check_expectations_unchecked,
               "the global tensors hold " + std::to_string(global_bytes(k)) +
                   " bytes, more than the " + std::to_string(max_held_global_bytes) +
                   " the whole-launch checks hold: they ran without the values (their hazard "
                   "and ordering findings are the same with them), so the " +
                   std::to_string(k.expectations.size()) + " [[expect]] statement" +
                   (k.expectations.size() == 1 ? " was" : "s were") +
                   " not checked here; a run on the GPU or the simulator checks them",
               Severity::note);
  const tile::SourcePos& pos = x.lhs.pos;
  d.file = pos.file.empty() ? k.file : pos.file;
  d.line = pos.line;
  d.column = pos.column;
  d.source_line = pos.source_line;
  return d;
}

/// The other combinations' errors (the reference's and the mbarrier walk's), stopping at
/// the first combination with any.
void other_values(const tile::Kernel& k, const std::vector<ParamCoverage>& plan, Diagnostics& out) {
  const std::vector<std::uint64_t> test = test_values(k);
  const GlobalBytes initial = initial_global_bytes(k);
  std::vector<std::uint64_t> values = test;
  for (const ParamCoverage& c : plan)
    if (c.used)
      values[c.index] = static_cast<std::uint64_t>(c.range.lo);
  do {
    if (values == test)
      continue;
    // The contract's walk first, as at the test values, where its errors stop the lowering
    // before the reference runs: one cause, one error.
    Diagnostics found;
    tile::check_mbarrier_phases(k, found, tile::default_mbarrier_steps, values);
    drop_disabled_rules(found);
    if (!found.has_errors())
      found = findings_from(k, initial, ExpectationRuns::check, values);
    if (found.has_errors()) {
      add_run(out, found, values_text(k, plan, values), false);
      return;
    }
  } while (next_values(values, plan));
}

/// The runs a plan takes: the product of its parameters' values, max_value_runs + 1 for any
/// product above max_value_runs.
std::uint64_t runs_of(const std::vector<ParamCoverage>& plan) {
  std::uint64_t runs = 1;
  for (const ParamCoverage& c : plan)
    runs = c.values() > max_value_runs ? max_value_runs + 1
                                       : std::min(runs * c.values(), max_value_runs + 1);
  return runs;
}

} // namespace

Diagnostics reference_findings(const tile::Kernel& k, ExpectationRuns expectations,
                               std::span<const std::uint64_t> values) {
  Diagnostics ds = findings_from(k, initial_global_bytes(k), expectations, values);
  if (expectations == ExpectationRuns::check && !k.expectations.empty() && !holds_values(k))
    ds.add(expectations_unchecked(k));
  return ds;
}

std::uint64_t global_bytes(const tile::Kernel& k) {
  std::uint64_t total = 0;
  for (const auto& t : k.tensors) {
    if (t->tensor.space != tile::Space::global)
      continue;
    std::uint64_t n = naive_dtype_bytes(t->tensor.dtype);
    for (const std::int64_t s : t->tensor.shape)
      n *= static_cast<std::uint64_t>(std::max<std::int64_t>(s, 0));
    total += n;
  }
  return total;
}

bool holds_values(const tile::Kernel& k) {
  return global_bytes(k) <= max_held_global_bytes;
}

std::vector<ParamCoverage> plan_values(const tile::Kernel& k) {
  std::vector<ParamCoverage> plan;
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const tile::ScalarParam& p = k.params[i];
    ParamCoverage c;
    c.index = i;
    c.range = whole_range(p);
    c.checked_hi = c.range.hi;
    bool used = false;
    if (decided_from(k, p.name, c.range, c.range.lo, used) || !used) {
      c.used = used; // one value (or none that matters) stands for all
      c.checked_hi = c.range.lo;
      c.merged_above = used && c.range.lo < c.range.hi;
      plan.push_back(c);
      continue;
    }
    c.used = true;
    // Decided over [c, hi] only gets easier as c grows (the intervals shrink): the least
    // such c by bisection; values c..hi then all run as c does.
    std::int64_t lo = c.range.lo, hi = c.range.hi; // decided at hi (a single value)
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      bool named = false;
      (decided_from(k, p.name, c.range, mid, named) ? hi : lo) = mid;
    }
    c.checked_hi = hi;
    c.merged_above = hi < c.range.hi;
    plan.push_back(c);
  }
  return plan;
}

std::vector<std::vector<std::uint64_t>> planned_values(const tile::Kernel& k, std::size_t limit) {
  const std::vector<ParamCoverage> plan = plan_values(k);
  const std::uint64_t total = runs_of(plan);
  const std::uint64_t n = std::min<std::uint64_t>(total, std::max<std::size_t>(limit, 1));
  std::vector<std::vector<std::uint64_t>> out;
  for (std::uint64_t i = 0; i < n; ++i) {
    // The i-th of n evenly spaced indices of 0..total-1, decoded in mixed radix.
    std::uint64_t index = n == 1 ? 0 : i * (total - 1) / (n - 1);
    std::vector<std::uint64_t> values = test_values(k);
    for (const ParamCoverage& c : plan) {
      if (!c.used)
        continue;
      values[c.index] = static_cast<std::uint64_t>(c.range.lo) + index % c.values();
      index /= c.values();
    }
    out.push_back(std::move(values));
  }
  return out;
}

Diagnostics whole_launch_findings(const tile::Kernel& k, const RangeProofOptions& options) {
  Diagnostics out;
  // At the test values the errors name no values, as the contract's do.
  add_run(out, reference_findings(k), {}, true);
  if (options.test_values_only || out.has_errors())
    return out;
  out.append(range_findings(k, options));
  return out;
}

Diagnostics range_findings(const tile::Kernel& k, const RangeProofOptions& options) {
  const std::vector<ParamCoverage> plan = plan_values(k);
  Diagnostics out;
  if (plan.empty())
    return out;
  const std::uint64_t runs = runs_of(plan);
  if (runs > max_value_runs) {
    out.add(too_wide(k, plan));
    return out;
  }
  other_values(k, plan, out);
  if (options.coverage_notes && !out.has_errors())
    for (const ParamCoverage& c : plan)
      out.add(coverage_note(k, c));
  return out;
}

bool drop_disabled_rules(Diagnostics& ds) {
  static const std::vector<DiagId> disabled = [] {
    std::vector<DiagId> ids;
    const char* env = std::getenv("PTXGEN_TEST_DISABLE_RULE");
    std::string_view rest = env ? env : "";
    while (!rest.empty()) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      DiagId id{};
      if (parse_diag_id(rest.substr(0, comma), id))
        ids.push_back(id);
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
    return ids;
  }();
  if (disabled.empty())
    return false;
  std::vector<Diagnostic> kept;
  for (const Diagnostic& d : ds)
    if (std::find(disabled.begin(), disabled.end(), d.id) == disabled.end())
      kept.push_back(d);
  const bool dropped = kept.size() != ds.size();
  ds = Diagnostics(std::move(kept));
  return dropped;
}

} // namespace ptxgen::driver
