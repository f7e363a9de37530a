// parse_view: `NAME(.rearrange("pattern", k=v, ...) | .sub[entries] | .view("dtype"))*`.

#include "emitter/support/parse_error.hpp"
#include "emitter/tile/name_chars.hpp"
#include "emitter/tile/suggest.hpp"
#include "emitter/tile/view.hpp"

#include <array>
#include <cctype>
#include <optional>
#include <string>

namespace ptxgen::tile {

namespace {

class ViewParser {
public:
  ViewParser(std::string_view text,
             const std::function<const Tensor*(std::string_view)>& find_tensor,
             const ExprNames& names, SliceBounds bounds)
      : t_(text), find_tensor_(find_tensor), names_(names), bounds_(bounds) {}

  /// The diagnostic of a nested parse (an expression, a step) that ended the parse, as
  /// that parse positioned it; nullopt when the parser's own error did.
  const std::optional<Diagnostic>& nested() const { return nested_; }

  View run() {
    skip_ws();
    if (i_ >= t_.size() || !name_start(t_[i_]))
      fail(DiagId::view_syntax, i_, 1, "expected a tensor name; found " + describe());
    std::size_t name_at = i_;
    std::string_view n = name();
    const Tensor* tensor = find_tensor_ ? find_tensor_(n) : nullptr;
    if (!tensor)
      fail(DiagId::view_unknown_tensor, name_at, n.size(),
           "unknown tensor '" + std::string(n) + "'");
    View v = whole(*tensor);
    skip_ws();
    if (i_ < t_.size() && t_[i_] == '@')
      peer(v, name_at, n.size());
    while (true) {
      skip_ws();
      if (i_ >= t_.size())
        return v;
      if (t_[i_] != '.')
        fail(DiagId::view_syntax, i_, 1,
             "expected '.rearrange(...)', '.sub[...]', '.view(...)' or the end; found " +
                 describe());
      ++i_;
      skip_ws();
      std::size_t method_at = i_;
      std::string_view method = name();
      if (method == "rearrange")
        v = rearrange(v);
      else if (method == "sub")
        v = sub(v);
      else if (method == "view")
        v = reinterpret(v);
      else if (method.empty())
        fail(DiagId::view_syntax, method_at, 1,
             "expected a method name after '.'; found " + describe());
      else
        fail(DiagId::view_unknown_method, method_at, method.size(),
             "unknown method '" + std::string(method) + "'" +
                 or_choices(did_you_mean(method, kMethods), "; expected rearrange, sub or view"));
    }
  }

private:
  static constexpr std::array<std::string_view, 3> kMethods = {"rearrange", "sub", "view"};

  [[noreturn]] void fail(DiagId id, std::size_t offset, std::size_t length, std::string message) {
    throw ParseError{id, offset, length, std::move(message)};
  }
  [[noreturn]] void fail(const Diagnostic& nested) {
    nested_ = nested;
    throw ParseError{nested.id, 0, 0, nested.message};
  }

  std::string describe() const {
    if (i_ >= t_.size())
      return "the end of the view";
    return "'" + std::string(1, t_[i_]) + "'";
  }

  void skip_ws() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_])))
      ++i_;
  }

  std::string_view name() {
    std::size_t b = i_;
    if (i_ < t_.size() && name_start(t_[i_]))
      while (i_ < t_.size() && name_char(t_[i_]))
        ++i_;
    return t_.substr(b, i_ - b);
  }

  void expect(char c, std::string_view what) {
    skip_ws();
    if (i_ >= t_.size() || t_[i_] != c)
      fail(DiagId::view_syntax, i_, 1,
           "expected '" + std::string(1, c) + "' " + std::string(what) + "; found " + describe());
    ++i_;
  }

  // A quoted string; returns the span of its characters (quotes excluded).
  std::pair<std::size_t, std::size_t> string_literal(std::string_view what) {
    skip_ws();
    if (i_ >= t_.size() || (t_[i_] != '"' && t_[i_] != '\''))
      fail(DiagId::view_syntax, i_, 1,
           "expected " + std::string(what) + " in quotes; found " + describe());
    char q = t_[i_];
    std::size_t open = i_++;
    std::size_t b = i_;
    while (i_ < t_.size() && t_[i_] != q)
      ++i_;
    if (i_ >= t_.size())
      fail(DiagId::view_syntax, open, t_.size() - open,
           "unterminated string: no closing " + std::string(1, q));
    std::size_t e = i_++;
    return {b, e};
  }

  std::int64_t integer(std::size_t& at) {
    skip_ws();
    at = i_;
    bool negative = i_ < t_.size() && t_[i_] == '-';
    std::size_t j = i_ + (negative ? 1 : 0);
    while (j < t_.size() && name_char(t_[j]))
      ++j;
    auto parsed = parse_expr_in(t_, i_, j, ExprNames{});
    if (j == i_ || !parsed || (*parsed)->kind != ExprKind::constant)
      fail(DiagId::view_syntax, i_, std::max<std::size_t>(j - i_, 1),
           "expected an integer size; found " +
               (j == i_ ? describe() : "'" + std::string(t_.substr(i_, j - i_)) + "'"));
    i_ = j;
    return (*parsed)->value;
  }

  View checked(Result<View> r) {
    if (!r)
      fail(r.diagnostics.items().front());
    return std::move(*r);
  }

  // `@rank` or `@(expression)` after the tensor's name: the copy in CTA `rank` of the cluster.
  void peer(View& v, std::size_t name_at, std::size_t name_length) {
    if (v.tensor->space != Space::shared)
      fail(DiagId::view_peer_not_shared, name_at, name_length,
           "'" + v.tensor->name +
               "' is a global tensor; only a shared tensor has a copy in each CTA of the "
               "cluster (S@rank)");
    ++i_; // @
    skip_ws();
    std::size_t b = i_, e = i_;
    if (i_ < t_.size() && t_[i_] == '(') {
      int depth = 0;
      for (; e < t_.size(); ++e) {
        depth += t_[e] == '(' ? 1 : t_[e] == ')' ? -1 : 0;
        if (depth == 0)
          break;
      }
      if (e >= t_.size())
        fail(DiagId::view_syntax, b, 1, "expected ')' to close the rank after '@'");
      ++e;
    } else {
      while (e < t_.size() && name_char(t_[e]))
        ++e;
    }
    if (e == b)
      fail(DiagId::view_syntax, b, 1,
           "expected a CTA rank after '@' (an integer, a name or a parenthesized expression); "
           "found " +
               describe());
    auto r = parse_expr_in(t_, b, e, names_);
    if (!r)
      fail(r.diagnostics.items().front());
    v.peer = *r;
    v.peer_offset = static_cast<std::uint32_t>(b);
    v.peer_length = static_cast<std::uint32_t>(e - b);
    i_ = e;
  }

  View rearrange(const View& v) {
    expect('(', "after .rearrange");
    auto [pb, pe] = string_literal("the pattern");
    RearrangeStep step;
    step.pattern = std::string(t_.substr(pb, pe - pb));
    while (true) {
      skip_ws();
      if (i_ < t_.size() && t_[i_] == ')')
        break;
      expect(',', "or ')' after the pattern and sizes");
      skip_ws();
      if (i_ < t_.size() && t_[i_] == ')')
        break; // a trailing comma
      std::size_t key_at = i_;
      std::string key(name());
      if (key.empty())
        fail(DiagId::view_syntax, i_, 1, "expected a size keyword like w=4; found " + describe());
      expect('=', "after the size keyword '" + key + "'");
      std::size_t value_at = 0;
      std::int64_t value = integer(value_at);
      if (step.sizes.count(key))
        fail(DiagId::view_duplicate_size, key_at, key.size(), "size for '" + key + "' given twice");
      step.sizes[key] = value;
      step.size_offsets[key] = static_cast<std::uint32_t>(key_at);
    }
    ++i_; // )
    return checked(apply_step(v, step, t_, pb));
  }

  // The first ':' at depth 0 of text[b, e) that is not the ':' of a `?`.
  std::size_t slice_colon(std::size_t b, std::size_t e) const {
    int depth = 0, pending = 0;
    for (std::size_t k = b; k < e; ++k) {
      char c = t_[k];
      if (c == '(')
        ++depth;
      else if (c == ')')
        --depth;
      else if (depth == 0 && c == '?')
        ++pending;
      else if (depth == 0 && c == ':') {
        if (pending == 0)
          return k;
        --pending;
      }
    }
    return std::string_view::npos;
  }

  void trim(std::size_t& b, std::size_t& e) const {
    while (b < e && std::isspace(static_cast<unsigned char>(t_[b])))
      ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(t_[e - 1])))
      --e;
  }

  /// A slice bound: its value, or (SliceBounds::parameters) the expression when it is
  /// not a constant.
  struct Bound {
    std::int64_t value = 0;
    ExprPtr expr;
  };

  Bound slice_bound(std::size_t b, std::size_t e) {
    auto r = parse_expr_in(t_, b, e, names_);
    if (!r)
      fail(r.diagnostics.items().front());
    if (!is_constant(**r)) {
      if (bounds_ == SliceBounds::parameters)
        return Bound{0, *r};
      fail(DiagId::view_slice_not_constant, b, e - b,
           "slice bounds must be constants; index with a runtime value instead of slicing");
    }
    auto c = constant_value(**r);
    if (!c)
      fail(DiagId::view_index_not_evaluable, b, e - b,
           "the slice bound cannot be evaluated (a division by zero or an overflow)");
    return Bound{*c, nullptr};
  }

  View sub(const View& v) {
    skip_ws();
    std::size_t open = i_;
    expect('[', "after .sub");
    // Find the matching ']' and the entries' top-level commas.
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    int depth = 0;
    std::size_t entry_begin = i_, k = i_;
    for (; k < t_.size(); ++k) {
      char c = t_[k];
      if (c == '(' || c == '[')
        ++depth;
      else if ((c == ')' || c == ']') && depth > 0)
        --depth;
      else if (c == ']')
        break;
      else if (c == ',' && depth == 0) {
        spans.emplace_back(entry_begin, k);
        entry_begin = k + 1;
      }
    }
    if (k >= t_.size())
      fail(DiagId::view_syntax, open, 1, "expected ']' to close '.sub['");
    spans.emplace_back(entry_begin, k);
    i_ = k + 1;

    SubStep step;
    for (std::size_t n = 0; n < spans.size(); ++n) {
      auto [b, e] = spans[n];
      trim(b, e);
      if (b == e)
        fail(DiagId::view_syntax, b, 1, "expected an index or a slice (`a:b`, `:`) in .sub[]");
      SubEntry entry;
      entry.offset = static_cast<std::uint32_t>(b);
      entry.length = static_cast<std::uint32_t>(e - b);
      std::size_t colon = slice_colon(b, e);
      if (colon == std::string_view::npos) {
        auto r = parse_expr_in(t_, b, e, names_);
        if (!r)
          fail(r.diagnostics.items().front());
        entry.index = *r;
      } else {
        entry.is_slice = true;
        std::size_t lb = b, le = colon, hb = colon + 1, he = e;
        trim(lb, le);
        trim(hb, he);
        // An open end is the axis size (too many entries are reported by apply_step).
        const std::int64_t size = n < v.rank() ? v.axes[n].size : 0;
        entry.open_end = hb == he;
        const Bound lo = lb == le ? Bound{} : slice_bound(lb, le);
        const Bound hi = entry.open_end ? Bound{size, nullptr} : slice_bound(hb, he);
        entry.begin_expr = lo.expr;
        entry.end_expr = hi.expr;
        // A bound that moves with the parameters: the affine form spans the whole axis.
        entry.begin = lo.value;
        entry.end = hi.expr ? size : hi.value;
      }
      step.entries.push_back(std::move(entry));
    }
    return checked(apply_step(v, step, t_, open));
  }

  View reinterpret(const View& v) {
    expect('(', "after .view");
    auto [b, e] = string_literal("an element type");
    std::string_view dt = t_.substr(b, e - b);
    auto parsed = parse_dtype(dt);
    if (!parsed)
      fail(DiagId::view_unknown_dtype, b, std::max<std::size_t>(e - b, 1),
           "unknown element type '" + std::string(dt) + "'" +
               or_choices(did_you_mean(dt, dtype_spellings()), "; expected " + dtype_choices()));
    expect(')', "after the element type");
    return checked(apply_step(v, ReinterpretStep{*parsed}, t_, b));
  }

  std::string_view t_;
  std::size_t i_ = 0;
  const std::function<const Tensor*(std::string_view)>& find_tensor_;
  const ExprNames& names_;
  SliceBounds bounds_;
  std::optional<Diagnostic> nested_;
};

} // namespace

Result<View> parse_view(std::string_view text,
                        const std::function<const Tensor*(std::string_view)>& find_tensor,
                        const std::function<bool(std::string_view)>& is_param) {
  return parse_view(text, find_tensor, ExprNames{is_param, {}, {}});
}

Result<View> parse_view(std::string_view text,
                        const std::function<const Tensor*(std::string_view)>& find_tensor,
                        const ExprNames& names) {
  return parse_view(text, find_tensor, names, SliceBounds::constant);
}

Result<View> parse_view(std::string_view text,
                        const std::function<const Tensor*(std::string_view)>& find_tensor,
                        const ExprNames& names, SliceBounds bounds) {
  ViewParser p(text, find_tensor, names, bounds);
  try {
    return Result<View>::success(p.run());
  } catch (const ParseError& e) {
    if (p.nested())
      return Result<View>::failure(*p.nested());
    return Result<View>::failure(error_at(e.id, text, e.pos, e.length, e.message));
  }
}

} // namespace ptxgen::tile
