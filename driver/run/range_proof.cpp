#include "driver/run/range_proof.hpp"

#include "driver/reference/expect.hpp"
#include "driver/reference/reference.hpp"
#include "driver/run/tensor_data.hpp"
#include "emitter/support/overloaded.hpp"
#include "emitter/tile/mbarrier_contract.hpp"

#include <algorithm>
#include <functional>
#include <limits>
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
}

void visit_optional(const std::optional<tile::Located<tile::ExprPtr>>& e, const ExprVisitor& f) {
  if (e && e->value)
    f(*e->value);
}

/// Every root expression the whole-launch checks evaluate: the ops' fields and their views.
void visit_roots(const tile::Kernel& k, const ExprVisitor& f) {
  for (const tile::Op& op : k.ops) {
    std::visit(overloaded{[&](const tile::ApplyOp& a) {
                            visit_view(a.dst.value, f);
                            visit_view(a.src.value, f);
                            visit_optional(a.src_size, f);
                            visit_optional(a.ignore_src, f);
                            visit_optional(a.pred, f);
                          },
                          [&](const tile::FillOp& x) { visit_view(x.dst.value, f); },
                          [&](const tile::CopyOp& c) {
                            visit_view(c.dst.value, f);
                            visit_view(c.src.value, f);
                          },
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
                          },
                          [](const tile::CommitGroupOp&) {}, [](const tile::WaitGroupOp&) {},
                          [](const tile::WaitAllOp&) {}, [](const tile::CtaSyncOp&) {},
                          [](const tile::EndOp&) {}},
               op.body);
  }
  for (const tile::Expectation& x : k.expectations) {
    visit_view(x.lhs.value, f);
    if (const auto* v = std::get_if<tile::Located<tile::View>>(&x.rhs))
      visit_view(v->value, f);
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

bool merging_op(tile::ExprOp op) {
  switch (op) {
  case tile::ExprOp::lt:
  case tile::ExprOp::le:
  case tile::ExprOp::gt:
  case tile::ExprOp::ge:
  case tile::ExprOp::eq:
  case tile::ExprOp::ne:
  case tile::ExprOp::min:
    return true;
  default:
    return false;
  }
}

/// The value of the comparison `p OP e` (`e OP p` when !param_first) for every p above e.
bool truth_above(tile::ExprOp op, bool param_first) {
  switch (op) {
  case tile::ExprOp::lt:
  case tile::ExprOp::le:
    return !param_first;
  case tile::ExprOp::gt:
  case tile::ExprOp::ge:
    return param_first;
  case tile::ExprOp::ne:
    return true;
  default:
    return false;
  }
}

/// One parameter's uses in one expression: `merged` stays true while every use is a
/// comparison or min with a bounded other side, whose largest bound goes into `top`.
struct UseScan {
  std::string_view name;
  const tile::LaunchBounds& launch;
  bool used = false;
  bool merged = true;
  std::int64_t top = std::numeric_limits<std::int64_t>::min();

  void scan(const tile::Expr& e) {
    if (is_param(e, name)) {
      used = true;
      merged = false; // a bare use: its value flows on
      return;
    }
    if (e.kind == tile::ExprKind::binary && merges(e))
      return;
    // `c ? a : b` with c a comparison of p with a bounded e: above e, c is decided and only
    // the arm it picks is evaluated (the other may name p freely: its values are run).
    if (e.kind == tile::ExprKind::select && e.args[0]->kind == tile::ExprKind::binary &&
        e.args[0]->op != tile::ExprOp::min && merges(*e.args[0])) {
      const tile::Expr& c = *e.args[0];
      scan(*e.args[truth_above(c.op, is_param(*c.args[0], name)) ? 1 : 2]);
      return;
    }
    for (const tile::ExprPtr& a : e.args)
      scan(*a);
  }

  /// True when `e` is `p OP other` or `other OP p` with OP a comparison or min and other
  /// free of p: then it records other's upper bound (or that it has none).
  bool merges(const tile::Expr& e) {
    if (e.args.size() != 2 || !merging_op(e.op))
      return false;
    for (std::size_t side = 0; side < 2; ++side) {
      const tile::Expr& other = *e.args[1 - side];
      if (!is_param(*e.args[side], name) || names_param(other, name))
        continue;
      used = true;
      if (const auto b = tile::bounds(other, launch))
        top = std::max(top, b->hi);
      else
        merged = false;
      return true;
    }
    return false;
  }
};

tile::Interval whole_range(const tile::ScalarParam& p) {
  return p.range ? *p.range : tile::Interval{0, std::int64_t{0xFFFFFFFF}};
}

std::string values_text(const tile::Kernel& k, const std::vector<ParamCoverage>& plan) {
  std::string s;
  for (const ParamCoverage& c : plan) {
    if (!c.used)
      continue;
    const tile::ScalarParam& p = k.params[c.index];
    s += (s.empty() ? "" : ", ") + p.name + " = " + std::to_string(p.value);
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
  if (c.checked_hi == c.range.hi)
    m += "every value of " + lo + ".." + hi + " checked (" + std::to_string(c.values()) + " value" +
         (c.values() == 1 ? "" : "s") + ")";
  else
    m += lo + ".." + std::to_string(c.checked_hi) + " checked value by value; every value of " +
         std::to_string(c.checked_hi + 1) + ".." + hi + " acts as " + std::to_string(c.checked_hi) +
         " (each use compares it with, or takes the min with, an expression at most " +
         std::to_string(c.checked_hi - 1) + ")";
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
                  "with a bounded expression); narrow its range to at most " +
                  std::to_string(fit) + " values";
  Diagnostic d(DiagId::check_range_too_wide, m);
  d.file = k.file;
  d.line = p.pos.line;
  d.column = p.pos.column;
  return d;
}

/// Advances the odometer over the used parameters' values; false after the last.
bool next_values(tile::Kernel& k, const std::vector<ParamCoverage>& plan) {
  for (const ParamCoverage& c : plan) {
    if (!c.used)
      continue;
    auto& v = k.params[c.index].value;
    if (static_cast<std::int64_t>(v) < c.checked_hi) {
      ++v;
      return true;
    }
    v = static_cast<std::uint64_t>(c.range.lo);
  }
  return false;
}

/// Restores the parameters' test values when it goes out of scope.
class TestValues {
public:
  explicit TestValues(tile::Kernel& k) : k_(k) {
    for (const auto& p : k.params)
      saved_.push_back(p.value);
  }
  ~TestValues() {
    for (std::size_t i = 0; i < saved_.size(); ++i)
      k_.params[i].value = saved_[i];
  }
  bool at_test_values() const {
    for (std::size_t i = 0; i < saved_.size(); ++i)
      if (k_.params[i].value != saved_[i])
        return false;
    return true;
  }
  TestValues(const TestValues&) = delete;
  TestValues& operator=(const TestValues&) = delete;

private:
  tile::Kernel& k_;
  std::vector<std::uint64_t> saved_;
};

/// The other combinations' errors (the reference's and the mbarrier walk's), stopping at
/// the first combination with any.
void other_values(tile::Kernel& k, const std::vector<ParamCoverage>& plan, Diagnostics& out) {
  TestValues test(k);
  for (const ParamCoverage& c : plan)
    if (c.used)
      k.params[c.index].value = static_cast<std::uint64_t>(c.range.lo);
  do {
    if (test.at_test_values())
      continue;
    // The contract's walk first, as at the test values, where its errors stop the lowering
    // before the reference runs: one cause, one error.
    Diagnostics found;
    tile::check_mbarrier_phases(k, found);
    if (!found.has_errors())
      found = reference_findings(k, ExpectationRuns::skip);
    if (found.has_errors()) {
      add_run(out, found, values_text(k, plan), false);
      return;
    }
  } while (next_values(k, plan));
}

} // namespace

Diagnostics reference_findings(const tile::Kernel& k, ExpectationRuns expectations) {
  ReferenceInput in;
  in.kernel = &k;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      in.global[t->tensor.name] = initial_bytes(*t);
  // Expectations compare the initial bytes with the final ones: keep a copy.
  if (expectations == ExpectationRuns::check && !k.expectations.empty()) {
    const ReferenceOutput out = evaluate_reference(in);
    Diagnostics ds = findings_as_diagnostics(k, out);
    ds.append(expectation_diagnostics(k, check_expectations(k, in.global, out.global)));
    return ds;
  }
  return findings_as_diagnostics(k, evaluate_reference(std::move(in)));
}

std::vector<ParamCoverage> plan_values(const tile::Kernel& k) {
  const tile::LaunchBounds launch = k.launch_bounds();
  std::vector<ParamCoverage> plan;
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const tile::ScalarParam& p = k.params[i];
    if (p.is_u64)
      continue; // cache policies: no check reads them
    UseScan scan{p.name, launch};
    visit_roots(k, [&](const tile::Expr& e) { scan.scan(e); });
    ParamCoverage c;
    c.index = i;
    c.range = whole_range(p);
    c.used = scan.used;
    c.checked_hi = c.range.hi;
    if (scan.used && scan.merged && scan.top < c.range.hi - 1) {
      c.checked_hi = std::max(c.range.lo, scan.top + 1);
      c.merged_above = true;
    }
    plan.push_back(c);
  }
  return plan;
}

Diagnostics whole_launch_findings(tile::Kernel& k, const RangeProofOptions& options) {
  const std::vector<ParamCoverage> plan = plan_values(k);
  Diagnostics out;
  add_run(out, reference_findings(k), values_text(k, plan), true);
  if (options.test_values_only || out.has_errors() || plan.empty())
    return out;
  std::uint64_t runs = 1;
  for (const ParamCoverage& c : plan)
    runs = c.values() > max_value_runs ? max_value_runs + 1
                                       : std::min(runs * c.values(), max_value_runs + 1);
  if (runs > max_value_runs) {
    out.add(too_wide(k, plan));
    return out;
  }
  other_values(k, plan, out);
  if (options.coverage_notes && !out.has_errors())
    for (const ParamCoverage& c : plan)
      if (c.used)
        out.add(coverage_note(k, c));
  return out;
}

} // namespace ptxgen::driver
