#include "emitter/api/typed_view.hpp"

#include "emitter/tile/contract.hpp"

#include <variant>

namespace ptxgen::api {

namespace {

/// One step's spelling; sizes in the order given.
std::string rearrange_spelling(const std::string& pattern, const std::vector<AxisSize>& sizes) {
  std::string out = ".rearrange(\"" + pattern + "\"";
  for (const AxisSize& s : sizes)
    out += ", " + s.name + "=" + std::to_string(s.size);
  return out + ")";
}

std::string reinterpret_spelling(DType dtype) {
  return ".view(\"" + std::string(tile::name(dtype)) + "\")";
}

/// Spells each step of a view.
struct StepSpelling {
  std::string operator()(const tile::RearrangeStep& r) const {
    std::vector<AxisSize> sizes;
    for (const auto& [name, size] : r.sizes)
      sizes.push_back({name, size});
    return rearrange_spelling(r.pattern, sizes);
  }
  std::string operator()(const tile::SubStep& s) const {
    std::string out = ".sub[";
    for (std::size_t i = 0; i < s.entries.size(); ++i) {
      const tile::SubEntry& e = s.entries[i];
      out += i ? ", " : "";
      if (!e.is_slice)
        out += tile::print(*e.index);
      else
        out += (e.begin_expr ? tile::print(*e.begin_expr) : std::to_string(e.begin)) + ":" +
               (e.end_expr ? tile::print(*e.end_expr) : std::to_string(e.end));
    }
    return out + "]";
  }
  std::string operator()(const tile::ReinterpretStep& r) const {
    return reinterpret_spelling(r.dtype);
  }
};

} // namespace

std::string spelling(const tile::View& v) {
  std::string out = v.tensor ? v.tensor->name : std::string();
  if (v.peer)
    out += "@(" + tile::print(*v.peer) + ")";
  for (const tile::ViewStep& s : v.steps)
    out += std::visit(StepSpelling{}, s);
  return out;
}

View::View(const tile::Tensor& t) : v_(tile::whole(t)), text_(t.name) {}

View View::parsed(tile::View v, std::string text) {
  View out;
  out.v_ = std::move(v);
  out.text_ = std::move(text);
  return out;
}

View View::failed(Diagnostic d, std::string text) {
  View out;
  out.text_ = std::move(text);
  out.error_ = std::move(d);
  return out;
}

View View::step(const tile::ViewStep& s, std::string spelling, const Pos& at) const {
  View out = *this;
  out.text_ += spelling;
  if (!ok())
    return out;
  auto r = tile::apply_step(v_, s);
  if (r) {
    out.v_ = std::move(*r);
    return out;
  }
  // The tile layer places the error inside the step's own text; a typed call has
  // none, so it goes to the call's position.
  Diagnostic d = r.diagnostics.items().front();
  d.file = at.file();
  d.line = at.line();
  d.column = at.column();
  d.length = 1;
  d.source_line = at.source_pos().source_line;
  out.error_ = std::move(d);
  return out;
}

View View::peer(Expr rank, Pos at) const {
  View out = *this;
  if (!ok())
    return out;
  const tile::Tensor& t = *v_.tensor;
  // `@rank` follows the tensor's name, before the steps.
  out.text_ = t.name + "@(" + tile::print(*rank.ptr()) + ")" + text_.substr(t.name.size());
  if (t.space != tile::Space::shared) {
    Diagnostic d = tile::diagnostic_at(DiagId::view_peer_not_shared, at.source_pos(),
                                       "'" + t.name +
                                           "' is a global tensor; only a shared tensor has a "
                                           "copy in each CTA of the cluster (S@rank)");
    out.error_ = std::move(d);
    return out;
  }
  out.v_.peer = rank.ptr();
  return out;
}

View View::rearrange(std::string pattern, std::vector<AxisSize> sizes, Pos at) const {
  tile::RearrangeStep r;
  for (const AxisSize& s : sizes)
    r.sizes[s.name] = s.size;
  r.pattern = pattern;
  return step(r, rearrange_spelling(pattern, sizes), at);
}

View View::sub(std::vector<Index> entries, Pos at) const {
  tile::SubStep s;
  std::string spelling = ".sub[";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Index& e = entries[i];
    tile::SubEntry entry;
    spelling += i ? ", " : "";
    if (const auto& sl = e.slice_part()) {
      entry.is_slice = true;
      const std::int64_t size = i < v_.rank() ? v_.axes[i].size : 0;
      entry.begin = sl->begin_expr ? 0 : sl->begin;
      // An open end is the axis's size, as the parser takes `a:` (an entry past the
      // last axis is reported by apply_step); a bound naming parameters spans the whole axis
      // in the affine form, as the parser's does.
      entry.end = sl->end_expr ? size : sl->end.value_or(size);
      entry.open_end = !sl->end && !sl->end_expr;
      if (sl->begin_expr)
        entry.begin_expr = sl->begin_expr->ptr();
      if (sl->end_expr)
        entry.end_expr = sl->end_expr->ptr();
      if (sl->begin_expr)
        spelling += sl->begin_expr->str();
      else if (sl->begin != 0 || sl->end || sl->end_expr)
        spelling += std::to_string(sl->begin);
      spelling += ":";
      if (sl->end_expr)
        spelling += sl->end_expr->str();
      else if (sl->end)
        spelling += std::to_string(*sl->end);
    } else {
      entry.index = e.index().ptr();
      spelling += e.index().str();
    }
    s.entries.push_back(std::move(entry));
  }
  return step(s, spelling + "]", at);
}

View View::as(DType dtype, Pos at) const {
  return step(tile::ReinterpretStep{dtype}, reinterpret_spelling(dtype), at);
}

namespace {

bool same_bound(const tile::ExprPtr& a, const tile::ExprPtr& b) {
  return !a || !b ? !a && !b : tile::structurally_equal(*a, *b);
}

bool same_entry(const tile::SubEntry& a, const tile::SubEntry& b) {
  if (a.is_slice != b.is_slice)
    return false;
  if (a.is_slice)
    return a.begin == b.begin && a.end == b.end && same_bound(a.begin_expr, b.begin_expr) &&
           same_bound(a.end_expr, b.end_expr);
  return tile::structurally_equal(*a.index, *b.index);
}

/// Compares one step with another of any kind.
struct SameStep {
  const tile::ViewStep& other;
  bool operator()(const tile::RearrangeStep& a) const {
    const auto* b = std::get_if<tile::RearrangeStep>(&other);
    return b && a.pattern == b->pattern && a.sizes == b->sizes;
  }
  bool operator()(const tile::SubStep& a) const {
    const auto* b = std::get_if<tile::SubStep>(&other);
    if (!b || a.entries.size() != b->entries.size())
      return false;
    for (std::size_t i = 0; i < a.entries.size(); ++i)
      if (!same_entry(a.entries[i], b->entries[i]))
        return false;
    return true;
  }
  bool operator()(const tile::ReinterpretStep& a) const {
    const auto* b = std::get_if<tile::ReinterpretStep>(&other);
    return b && a.dtype == b->dtype;
  }
};

} // namespace

bool has_parameter_bounds(const tile::View& v) {
  for (const tile::ViewStep& s : v.steps)
    if (const auto* sub = std::get_if<tile::SubStep>(&s))
      for (const tile::SubEntry& e : sub->entries)
        if (e.is_slice && e.symbolic())
          return true;
  return false;
}

bool same_view(const tile::View& a, const tile::View& b) {
  if (a.tensor != b.tensor || a.dtype != b.dtype || a.offset_bytes != b.offset_bytes ||
      a.axes.size() != b.axes.size() || a.terms.size() != b.terms.size() ||
      a.steps.size() != b.steps.size() || !a.peer != !b.peer ||
      (a.peer && !tile::structurally_equal(*a.peer, *b.peer)))
    return false;
  for (std::size_t i = 0; i < a.axes.size(); ++i)
    if (a.axes[i].name != b.axes[i].name || a.axes[i].size != b.axes[i].size ||
        a.axes[i].stride_bytes != b.axes[i].stride_bytes)
      return false;
  for (std::size_t i = 0; i < a.terms.size(); ++i)
    if (a.terms[i].stride_bytes != b.terms[i].stride_bytes ||
        !tile::structurally_equal(*a.terms[i].index, *b.terms[i].index))
      return false;
  for (std::size_t i = 0; i < a.steps.size(); ++i)
    if (!std::visit(SameStep{b.steps[i]}, a.steps[i]))
      return false;
  return true;
}

} // namespace ptxgen::api
