// The builder's operand rules: views and expressions over the kernel's names, an
// apply's repeat axes, cache-policy parameters, wait_group, fill patterns and mbarriers.
#include "emitter/builder/builder.hpp"
#include "emitter/builder/text.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/limits.hpp"
#include "emitter/tile/name_chars.hpp"
#include "emitter/tile/suggest.hpp"
#include "emitter/tile/well_formed.hpp"

#include <algorithm>

namespace ptxgen::build {

namespace {

/// The tensor name a view string starts with ("A" in `A.sub[tid, :]`).
std::string_view leading_name(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  std::size_t n = 0;
  while (n < s.size() && tile::name_char(s[n]))
    ++n;
  return s.substr(0, n);
}

/// The first parameter leaf of e whose name is also one of `axes`, else nullptr.
const tile::Expr*
param_named_like_axis(const tile::Expr& e,
                      const std::map<std::string, std::size_t, std::less<>>& axes) {
  if (e.kind == tile::ExprKind::param && axes.count(e.name))
    return &e;
  for (const auto& a : e.args)
    if (const tile::Expr* hit = param_named_like_axis(*a, axes))
      return hit;
  return nullptr;
}

} // namespace

bool Builder::is_open_loop(std::string_view name) const {
  return std::any_of(loops_.begin(), loops_.end(),
                     [&](const OpenLoop& l) { return l.var == name; });
}

/// The names expressions may use here: parameters and the open loop variables.
tile::ExprNames Builder::expr_names() const {
  tile::ExprNames n;
  n.is_param = [this](std::string_view x) { return is_param(x); };
  if (!loops_.empty())
    n.is_loop = [this](std::string_view x) { return is_open_loop(x); };
  return n;
}

/// Diagnostics of a view or expression string `text`, with "did you mean" added to an
/// unknown tensor or name: the parsers do not know the kernel's tensors and parameters.
Diagnostics
Builder::with_suggestions(const Diagnostics& inner, std::string_view text,
                          const std::map<std::string, std::size_t, std::less<>>* axes) const {
  Diagnostics out;
  for (Diagnostic d : inner.items()) {
    const bool tensor = d.id == DiagId::view_unknown_tensor;
    if ((tensor || d.id == DiagId::expr_unknown_name) && d.line == 1 && d.column >= 1 &&
        d.column - 1 < text.size()) {
      std::string_view word = text.substr(d.column - 1, d.length);
      std::vector<std::string_view> names;
      if (tensor) {
        for (const auto& t : kernel_->tensors)
          names.push_back(t->tensor.name);
        for (const auto& t : broken_)
          names.push_back(t->tensor.name);
      } else {
        names.assign(reserved_names().begin(), reserved_names().end());
        names.insert(names.end(), param_names_.begin(), param_names_.end());
        if (axes)
          for (const auto& [name, index] : *axes)
            names.push_back(name);
      }
      d.message += tile::did_you_mean(word, names);
    }
    out.add(std::move(d));
  }
  return out;
}

std::optional<tile::Located<tile::View>> Builder::view(const Text& text) {
  return view(text, expr_names(), tile::SliceBounds::constant);
}

std::optional<tile::Located<tile::View>>
Builder::view(const Text& text, const tile::ExprNames& names, tile::SliceBounds bounds) {
  // A view of a tensor whose declaration was rejected: that error is enough.
  const tile::Tensor* named = find_any_tensor(leading_name(text.text));
  if (named && is_broken(named))
    return std::nullopt;
  auto r = tile::parse_view(
      text.text,
      [this](std::string_view n) -> const tile::Tensor* {
        const tile::TensorDecl* d = kernel_->find_tensor(n);
        return d ? &d->tensor : nullptr;
      },
      names, bounds);
  if (!r) {
    const Diagnostics found = with_suggestions(r.diagnostics, text.text, nullptr);
    for (const Diagnostic& d : found.items())
      diags_.add(text.place(d));
    return std::nullopt;
  }
  for (const tile::RuntimeTerm& t : r->terms)
    if (!cluster_names(*t.index, text))
      return std::nullopt;
  if (r->peer && !peer_names(*r, text))
    return std::nullopt;
  return tile::Located<tile::View>{std::move(*r), text.text, text.pos};
}

bool Builder::axis_shadow(const tile::Expr& e,
                          const std::map<std::string, std::size_t, std::less<>>& axes,
                          const Text& at) {
  const tile::Expr* clash = param_named_like_axis(e, axes);
  if (!clash)
    return true;
  error_in(DiagId::spec_axis_shadows_param, at, clash->offset, clash->length,
           "'" + clash->name +
               "' is both a kernel parameter and a repeat axis of the src view; rename one of "
               "them");
  return false;
}

std::optional<tile::Located<tile::ExprPtr>>
Builder::expr(const Text& text, const std::map<std::string, std::size_t, std::less<>>* axes) {
  tile::ExprNames names = expr_names();
  if (axes && !axes->empty())
    names.is_axis = [axes](std::string_view n) { return axes->find(n) != axes->end(); };
  auto r = tile::parse_expr(text.text, names);
  if (!r) {
    const Diagnostics found = with_suggestions(r.diagnostics, text.text, axes);
    for (const Diagnostic& d : found.items())
      diags_.add(text.place(d));
    return std::nullopt;
  }
  if (axes && !axis_shadow(**r, *axes, text))
    return std::nullopt;
  if (!cluster_names(**r, text))
    return std::nullopt;
  return tile::Located<tile::ExprPtr>{std::move(*r), text.text, text.pos};
}

bool Builder::check_view(const tile::View& v, const Text& at) {
  const tile::Tensor* t = v.tensor;
  if (t && is_broken(t))
    return false; // its declaration's error is enough
  const tile::TensorDecl* d = t ? kernel_->find_tensor(t->name) : nullptr;
  if (!d || &d->tensor != t) {
    error_in(DiagId::view_unknown_tensor, at, 0, at.text.size(),
             "view '" + at.text + "' is of a tensor another builder declared");
    return false;
  }
  bool ok = true;
  for (const tile::RuntimeTerm& term : v.terms)
    ok = tree_names(*term.index, at, nullptr) && ok;
  if (v.peer)
    ok = tree_names(*v.peer, at, nullptr) && ok;
  return ok;
}

bool Builder::check_expr(const tile::ExprPtr& e, const Text& at, const tile::ApplyOp* apply) {
  if (!tree_names(*e, at, apply))
    return false;
  return !apply || axis_shadow(*e, tile::repeat_axis_names(*apply), at);
}

/// Every parameter leaf names a parameter, every loop leaf an open loop, and every
/// axis leaf a repeat axis of `apply`'s src (none outside an apply).
bool Builder::tree_names(const tile::Expr& x, const Text& at, const tile::ApplyOp* apply) {
  // Only these three kinds of leaf carry a name; the others name nothing.
  std::string_view problem;
  if (x.kind == tile::ExprKind::param && !is_param(x.name))
    problem = "no parameter";
  else if (x.kind == tile::ExprKind::loop && !is_open_loop(x.name))
    problem = "no loop of that variable is open here";
  else if (x.kind == tile::ExprKind::axis &&
           (!apply || tile::repeat_axis_names(*apply).count(x.name) == 0))
    problem = "not a repeat axis of this apply's src view";
  bool ok = problem.empty();
  if (!ok)
    error_in(DiagId::expr_unknown_name, at, x.offset, x.length,
             "unknown name " + quoted(x.name) + ": " + std::string(problem));
  for (const tile::ExprPtr& a : x.args)
    ok = tree_names(*a, at, apply) && ok;
  return ok;
}

bool Builder::policy_param(std::string_view name, const Text& at, std::size_t offset) {
  const std::size_t length = std::max<std::size_t>(name.size(), 1);
  if (name.empty() || !tile::name_start(name[0]) ||
      !std::all_of(name.begin(), name.end(), tile::name_char))
    return bad_policy(at, offset, length,
                      "expected a parameter name after \"param:\"; got " + quoted(name));
  if (!kernel_->find_param(name) && is_param(name))
    return false; // declared but rejected: its own error says why
  if (auto d = tile::policy_param_rule(kernel_->params, name)) {
    error_in(d->id, at, offset, length, std::move(d->message));
    return false;
  }
  return true;
}

bool Builder::wait_group(std::int64_t n, const At& at) {
  if (auto d = tile::wait_group_rule(n)) {
    error(d->id, at, std::move(d->message));
    return false;
  }
  return true;
}

bool Builder::operand_forms(const At* src_size, const At* ignore_src) {
  auto d = tile::operand_forms_rule(src_size != nullptr, ignore_src != nullptr);
  if (!d)
    return true;
  // The one written second is the one too many.
  const auto key = [](const At* a) { return std::pair(a->pos.line, a->pos.column); };
  error(d->id, key(src_size) < key(ignore_src) ? *ignore_src : *src_size, std::move(d->message));
  return false;
}

bool Builder::barrier(const tile::View& v, const At& at) {
  if (v.tensor->space == tile::Space::shared)
    return true;
  error(DiagId::spec_mbarrier_operand, at,
        "an mbarrier lives in shared memory; '" + v.tensor->name + "' is a global tensor");
  return false;
}

void Builder::push(tile::Op op) {
  kernel_->ops.push_back(std::move(op));
}

} // namespace ptxgen::build
