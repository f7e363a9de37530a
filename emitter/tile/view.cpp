// The view algebra: the affine form of whole tensors and of each step.
// The parser of view strings is in view_parser.cpp.

#include "emitter/tile/view.hpp"

#include "emitter/tile/rearrange_pattern.hpp"

#include <algorithm>
#include <cctype>

namespace ptxgen::tile {

namespace {

using i64 = std::int64_t;

std::string join_sizes(const std::vector<std::pair<std::string, i64>>& known) {
  std::string s;
  for (const auto& [n, v] : known) {
    if (!s.empty())
      s += ", ";
    s += n + "=" + std::to_string(v);
  }
  return s;
}

struct Elementary {
  i64 size = 1;
  i64 stride = 0;
};

using ElementaryAxes = std::map<std::string, Elementary, std::less<>>;

// Every size the step gives must name an input of the pattern and be positive.
std::optional<Diagnostic> check_step_sizes(const RearrangeStep& step, const RearrangePattern& p,
                                           std::string_view text, std::size_t offset) {
  auto keyword_error = [&](DiagId id, const std::string& name, std::string message) {
    auto it = step.size_offsets.find(name);
    if (it != step.size_offsets.end() && it->second + name.size() <= text.size() &&
        text.substr(it->second, name.size()) == name)
      return error_at(id, text, it->second, name.size(), std::move(message));
    return error_at(id, text, offset, step.pattern.size(), std::move(message));
  };
  for (const auto& [name, size] : step.sizes) {
    bool named = false;
    for (const auto& g : p.inputs)
      for (const auto& n : g.names)
        named = named || n.name == name;
    if (!named)
      return keyword_error(DiagId::view_size_unused, name,
                           "size given for '" + name + "', which the pattern does not name");
    if (size <= 0)
      return keyword_error(DiagId::view_size_not_positive, name,
                           "size of '" + name + "' must be positive; got " + std::to_string(size));
  }
  return std::nullopt;
}

// Splits input axis `i` into the names of its group `g`, adding them to `axes`.
std::optional<Diagnostic> split_input_axis(const PatternGroup& g, const ViewAxis& a, std::size_t i,
                                           const RearrangeStep& step, std::string_view text,
                                           ElementaryAxes& axes) {
  std::vector<std::pair<std::string, i64>> known;
  std::vector<std::string> unknown;
  i64 product = 1;
  for (const auto& n : g.names) {
    auto it = step.sizes.find(n.name);
    if (it == step.sizes.end()) {
      unknown.push_back(n.name);
      continue;
    }
    known.emplace_back(n.name, it->second);
    if (__builtin_mul_overflow(product, it->second, &product))
      return error_at(DiagId::view_overflow, text, g.offset, g.length,
                      "the sizes of " + g.str() + " overflow 64 bits");
  }
  std::map<std::string, i64, std::less<>> sizes(known.begin(), known.end());
  std::string axis_desc = "axis " + std::to_string(i) + " of size " + std::to_string(a.size);
  if (unknown.size() > 1) {
    std::string names;
    for (const auto& u : unknown)
      names += (names.empty() ? "" : ", ") + u;
    return error_at(DiagId::view_cannot_infer, text, g.offset, g.length,
                    "cannot infer more than one size in " + g.str() + " (" + axis_desc +
                        "): give sizes for all but one of " + names);
  }
  if (unknown.size() == 1) {
    if (a.size % product != 0)
      return error_at(DiagId::view_split_mismatch, text, g.offset, g.length,
                      "axis of size " + std::to_string(a.size) + " cannot be split into " +
                          g.str() + " with " + join_sizes(known));
    sizes[unknown[0]] = a.size / product;
  } else if (product != a.size) {
    return error_at(DiagId::view_split_mismatch, text, g.offset, g.length,
                    g.names.size() == 1
                        ? axis_desc + " cannot be named " + g.str() + " with " + join_sizes(known)
                        : "axis of size " + std::to_string(a.size) + " cannot be split into " +
                              g.str() + " with " + join_sizes(known) + " (their product is " +
                              std::to_string(product) + ")");
  }
  // Inner names step by the axis stride; each outer one by the span of those inside it.
  i64 stride = a.stride_bytes;
  for (auto it = g.names.rbegin(); it != g.names.rend(); ++it) {
    i64 size = sizes[it->name];
    axes[it->name] = {size, stride};
    if (it + 1 != g.names.rend() && __builtin_mul_overflow(stride, size, &stride))
      return error_at(DiagId::view_overflow, text, g.offset, g.length, "strides overflow 64 bits");
  }
  return std::nullopt;
}

// Merges the names of output group `g` into one axis.
std::optional<Diagnostic> merge_output_group(const PatternGroup& g, ElementaryAxes& axes,
                                             std::string_view text, ViewAxis& merged) {
  merged.name = g.names.size() == 1 ? g.names[0].name : g.str();
  const PatternName* inner = nullptr; // the innermost name of size > 1 seen so far
  i64 size = 1;
  for (auto it = g.names.rbegin(); it != g.names.rend(); ++it) {
    const Elementary& e = axes[it->name];
    if (e.size != 1) {
      if (inner) {
        const Elementary& in = axes[inner->name];
        // Merging needs the outer stride to continue where the inner axis ends.
        if (e.stride != in.size * in.stride)
          return error_at(DiagId::view_unmergeable, text, g.offset, g.length,
                          "cannot merge " + g.str() + ": axis '" + it->name + "' has stride " +
                              std::to_string(e.stride) + " bytes, but '" + inner->name +
                              "' (size " + std::to_string(in.size) + ", stride " +
                              std::to_string(in.stride) + " bytes) spans " +
                              std::to_string(in.size * in.stride) +
                              " bytes; a merge needs stride(" + it->name + ") == size(" +
                              inner->name + ") * stride(" + inner->name + ")");
      } else {
        merged.stride_bytes = e.stride;
      }
      inner = &*it;
    }
    if (__builtin_mul_overflow(size, e.size, &size))
      return error_at(DiagId::view_overflow, text, g.offset, g.length, "the merged size overflows");
  }
  if (!inner)
    merged.stride_bytes = axes[g.names.back().name].stride;
  merged.size = size;
  return std::nullopt;
}

Result<View> apply_rearrange(const View& v, const RearrangeStep& step, std::string_view text,
                             std::size_t offset) {
  using R = Result<View>;
  // Report inside the view text when it holds the pattern at `offset`, else inside the pattern.
  if (text.size() < offset || text.substr(offset, step.pattern.size()) != step.pattern) {
    text = step.pattern;
    offset = 0;
  }
  auto parsed = parse_rearrange_pattern(text, offset, offset + step.pattern.size());
  if (!parsed)
    return R::failure(parsed.diagnostics);
  const RearrangePattern& p = *parsed;
  if (auto d = check_step_sizes(step, p, text, offset))
    return R::failure(std::move(*d));
  if (p.inputs.size() != v.rank())
    return R::failure(error_at(DiagId::view_pattern_rank, text, p.inputs_offset, p.inputs_length,
                               "the pattern has " + std::to_string(p.inputs.size()) +
                                   " input group" + (p.inputs.size() == 1 ? "" : "s") +
                                   "; the view has " + std::to_string(v.rank()) + " axes"));

  ElementaryAxes axes;
  for (std::size_t i = 0; i < p.inputs.size(); ++i)
    if (auto d = split_input_axis(p.inputs[i], v.axes[i], i, step, text, axes))
      return R::failure(std::move(*d));

  View out = v;
  out.axes.clear();
  for (const PatternGroup& g : p.outputs) {
    ViewAxis merged;
    if (auto d = merge_output_group(g, axes, text, merged))
      return R::failure(std::move(*d));
    out.axes.push_back(std::move(merged));
  }
  out.steps.emplace_back(std::in_place_type<std::decay_t<decltype(step)>>, step);
  return R::success(std::move(out));
}

Result<View> apply_sub(const View& v, const SubStep& step, std::string_view text,
                       std::size_t offset) {
  using R = Result<View>;
  auto where = [&](const SubEntry& e) {
    return e.length > 0 ? std::pair<std::size_t, std::size_t>{e.offset, e.length}
                        : std::pair<std::size_t, std::size_t>{offset, 1};
  };
  if (step.entries.size() > v.rank()) {
    auto [o, l] = where(step.entries[v.rank()]);
    return R::failure(
        error_at(DiagId::view_sub_too_many, text, o, l,
                 "too many entries in .sub[]: " + std::to_string(step.entries.size()) +
                     " for a view of " + std::to_string(v.rank()) + " axes"));
  }
  View out = v;
  out.axes.clear();
  for (std::size_t i = 0; i < v.rank(); ++i) {
    const ViewAxis& a = v.axes[i];
    if (i >= step.entries.size()) {
      out.axes.push_back(a);
      continue;
    }
    const SubEntry& e = step.entries[i];
    auto [o, l] = where(e);
    std::string axis_desc = "axis " + std::to_string(i) + " of size " + std::to_string(a.size);
    if (e.is_slice) {
      if (e.begin < 0 || e.end > a.size || e.begin >= e.end)
        return R::failure(error_at(DiagId::view_slice_range, text, o, l,
                                   "slice " + std::to_string(e.begin) + ":" +
                                       std::to_string(e.end) + " is out of range for " + axis_desc +
                                       " (it needs 0 <= begin < end <= " + std::to_string(a.size) +
                                       ")"));
      ViewAxis s = a;
      s.size = e.end - e.begin;
      out.offset_bytes += e.begin * a.stride_bytes;
      out.axes.push_back(std::move(s));
      continue;
    }
    if (!e.index)
      return R::failure(error_at(DiagId::view_syntax, text, o, l, "a .sub[] entry has no index"));
    if (is_constant(*e.index)) {
      auto c = constant_value(*e.index);
      if (!c)
        return R::failure(error_at(DiagId::view_index_not_evaluable, text, o, l,
                                   "the index cannot be evaluated (a division by "
                                   "zero or an overflow)"));
      if (*c < 0 || *c >= a.size)
        return R::failure(
            error_at(DiagId::view_index_range, text, o, l,
                     "index " + std::to_string(*c) + " is out of range for " + axis_desc));
      out.offset_bytes += *c * a.stride_bytes;
      continue;
    }
    out.terms.push_back({e.index, a.stride_bytes});
  }
  out.steps.emplace_back(std::in_place_type<std::decay_t<decltype(step)>>, step);
  return R::success(std::move(out));
}

Result<View> apply_reinterpret(const View& v, const ReinterpretStep& step, std::string_view text,
                               std::size_t offset) {
  using R = Result<View>;
  std::size_t len = 0;
  while (
      offset + len < text.size() &&
      (std::isalnum(static_cast<unsigned char>(text[offset + len])) || text[offset + len] == '_'))
    ++len;
  auto fail = [&](std::string m) {
    return R::failure(error_at(DiagId::view_bad_reinterpret, text, offset, len, std::move(m)));
  };
  std::string target = "." + std::string(name(step.dtype)) + " view";
  const i64 old_size = size_bytes(v.dtype);
  const i64 new_size = size_bytes(step.dtype);
  if (v.rank() == 0)
    return fail("cannot view a scalar (rank 0) as " + std::string(name(step.dtype)) +
                ": the view needs a last axis to reinterpret");
  const ViewAxis& last = v.axes.back();
  if (last.size != 1 && last.stride_bytes != old_size)
    return fail("cannot view as " + std::string(name(step.dtype)) +
                ": the last axis is not contiguous (its stride is " +
                std::to_string(last.stride_bytes) + " bytes; " + std::string(name(v.dtype)) +
                " elements are " + std::to_string(old_size) + " bytes)");
  const i64 bytes = last.size * old_size;
  if (bytes % new_size != 0)
    return fail("cannot view as " + std::string(name(step.dtype)) + ": the last axis holds " +
                std::to_string(bytes) + " bytes (" + std::to_string(last.size) + " x " +
                std::string(name(v.dtype)) + "), not a multiple of " + std::to_string(new_size) +
                " bytes");
  View out = v;
  out.dtype = step.dtype;
  out.axes.back().size = bytes / new_size;
  out.axes.back().stride_bytes = new_size;
  out.steps.emplace_back(std::in_place_type<std::decay_t<decltype(step)>>, step);
  return R::success(std::move(out));
}

} // namespace

std::vector<std::int64_t> View::shape() const {
  std::vector<std::int64_t> s;
  for (const auto& a : axes)
    s.push_back(a.size);
  return s;
}

std::optional<std::int64_t> View::byte_offset(std::span<const std::int64_t> coords,
                                              const ExprEnv& env) const {
  if (coords.size() != axes.size())
    return std::nullopt;
  i64 off = offset_bytes;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    i64 t = 0;
    if (__builtin_mul_overflow(coords[i], axes[i].stride_bytes, &t) ||
        __builtin_add_overflow(off, t, &off))
      return std::nullopt;
  }
  for (const auto& term : terms) {
    auto x = evaluate(*term.index, env);
    i64 t = 0;
    if (!x || __builtin_mul_overflow(*x, term.stride_bytes, &t) ||
        __builtin_add_overflow(off, t, &off))
      return std::nullopt;
  }
  return off;
}

std::string View::str() const {
  std::string s = tensor ? tensor->name : std::string("?");
  if (peer)
    s += "@(" + print(*peer) + ")";
  std::string shape_s, stride_s;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (i) {
      shape_s += ',';
      stride_s += ',';
    }
    shape_s += std::to_string(axes[i].size);
    stride_s += std::to_string(axes[i].stride_bytes);
  }
  s += "(" + shape_s + "):(" + stride_s + ")+" + std::to_string(offset_bytes);
  for (const auto& t : terms)
    s += " + (" + print(*t.index) + ")*" + std::to_string(t.stride_bytes);
  return s;
}

View whole(const Tensor& t) {
  View v;
  v.tensor = &t;
  v.dtype = t.dtype;
  v.axes.resize(t.shape.size());
  i64 stride = size_bytes(t.dtype);
  for (std::size_t i = t.shape.size(); i-- > 0;) {
    v.axes[i].size = t.shape[i];
    v.axes[i].stride_bytes = stride;
    stride *= t.shape[i];
  }
  return v;
}

Result<View> apply_step(const View& v, const ViewStep& step, std::string_view text,
                        std::size_t offset) {
  if (const auto* r = std::get_if<RearrangeStep>(&step))
    return apply_rearrange(v, *r, text, offset);
  if (const auto* s = std::get_if<SubStep>(&step))
    return apply_sub(v, *s, text, offset);
  return apply_reinterpret(v, std::get<ReinterpretStep>(step), text, offset);
}

} // namespace ptxgen::tile
