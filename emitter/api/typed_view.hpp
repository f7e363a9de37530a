#pragma once
// The C++ API's tensors and views (docs/library.md).
//
//   View src = A.rearrange("(w t) (r v) -> w t r v", {{"w", 4}, {"t", 32}, {"v", 8}});
//   View row = shared.sub({tid(), all});           // the spec's shared.sub[tid, :]
//   View words = A.sub({bid(), slice(0, 8)}).as(DType::uint32);
//
// Each call applies one step with tile::apply_step, so a typed view is the very
// tile::View the spec's string gives (steps, affine form and all). A step that
// fails (a size that does not divide, a slice out of range) leaves the view in
// error: later steps keep the first error, and the kernel reports it where the
// view is used, as a spec reports a bad view string.

#include "emitter/api/typed_expr.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/view.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::api {

using tile::DType;

/// A slice of one axis, `begin:end` (end exclusive; nullopt: the axis's size).
struct Slice {
  std::int64_t begin = 0;
  std::optional<std::int64_t> end = std::nullopt;
  /// A bound that names scalar parameters (`B.sub[0:n]`), in place of begin or end: only an
  /// expectation's side takes one (its value moves with the parameters; ops refuse it).
  std::optional<Expr> begin_expr = std::nullopt;
  std::optional<Expr> end_expr = std::nullopt;
};
/// The whole axis: the spec's `:`.
inline const Slice all{};
/// `begin:end`.
inline Slice slice(std::int64_t begin, std::int64_t end) {
  return Slice{begin, end};
}
/// `begin:`.
inline Slice from(std::int64_t begin) {
  return Slice{begin, std::nullopt};
}

/// One entry of sub(): an index (the axis disappears) or a slice.
class Index {
public:
  Index(Expr e) : index_(std::move(e)) {}        // NOLINT: implicit on purpose
  Index(std::int64_t v) : index_(Expr(v)) {}     // NOLINT
  Index(int v) : index_(Expr(v)) {}              // NOLINT
  Index(Slice s) : index_(Expr(0)), slice_(s) {} // NOLINT
  const std::optional<Slice>& slice_part() const { return slice_; }
  const Expr& index() const { return index_; }

private:
  Expr index_;
  std::optional<Slice> slice_;
};

/// A rearrange keyword size: `w=4` is {"w", 4}.
struct AxisSize {
  std::string name;
  std::int64_t size = 1;
};

/// A view of a tensor: the tile layer's View and the spec spelling of its steps.
class View {
public:
  /// The whole tensor `t`, spelled `name`.
  explicit View(const tile::Tensor& t);

  /// `.rearrange("pattern", name=size, ...)` (einops).
  View rearrange(std::string pattern, std::vector<AxisSize> sizes,
                 Pos at = CallSite::current()) const;
  /// `.sub[entries]`: fewer entries than axes leave the trailing axes whole.
  View sub(std::vector<Index> entries, Pos at = CallSite::current()) const;
  /// `.view("dtype")`: the last axis's bytes as another element type.
  View as(DType dtype, Pos at = CallSite::current()) const;

  /// `S@(rank)`: the same view of the copy of shared tensor S in CTA `rank` of the cluster
  /// (distributed shared memory; copy and fill take it). A global tensor's view is left in
  /// error (view_peer_not_shared).
  View peer(Expr rank, Pos at = CallSite::current()) const;

  /// False when a step failed; diagnostics() then says why.
  bool ok() const { return !error_.has_value(); }
  /// The first failed step's diagnostic, when there is one.
  const std::optional<Diagnostic>& error() const { return error_; }
  /// The tile layer's view (meaningful when ok()).
  const tile::View& tile() const { return v_; }
  /// The spec spelling: `A.rearrange("(w t) v -> w t v", w=4, t=32).sub[tid, :]`.
  const std::string& text() const { return text_; }

  /// A view the string parser built (KernelBuilder::view), spelled `text`.
  static View parsed(tile::View v, std::string text);
  /// A view string that did not parse.
  static View failed(Diagnostic d, std::string text);

private:
  View() = default;
  View step(const tile::ViewStep& s, std::string spelling, const Pos& at) const;

  tile::View v_;
  std::string text_;
  std::optional<Diagnostic> error_;
};

/// A tensor declared by a KernelBuilder (it stays valid while the builder lives).
class Tensor {
public:
  explicit Tensor(const tile::Tensor& t) : t_(&t) {}
  /// The whole tensor as a view.
  View view() const { return View(*t_); }
  View rearrange(std::string pattern, std::vector<AxisSize> sizes,
                 Pos at = CallSite::current()) const {
    return view().rearrange(std::move(pattern), std::move(sizes), std::move(at));
  }
  View sub(std::vector<Index> entries, Pos at = CallSite::current()) const {
    return view().sub(std::move(entries), std::move(at));
  }
  View as(DType dtype, Pos at = CallSite::current()) const {
    return view().as(dtype, std::move(at));
  }
  View peer(Expr rank, Pos at = CallSite::current()) const {
    return view().peer(std::move(rank), std::move(at));
  }
  operator View() const { return view(); } // NOLINT: a tensor is its whole view
  const tile::Tensor& tile() const { return *t_; }
  const std::string& name() const { return t_->name; }

private:
  const tile::Tensor* t_;
};

/// True when a .sub step has a slice bound naming parameters (only expectations take it).
bool has_parameter_bounds(const tile::View& v);

/// The spec spelling of a tile layer view, from its tensor and steps (not from any
/// text it was parsed from): `A.sub[bid, 0:32].rearrange("(r v) -> r v", v=8)`.
/// parse_view of it over the same tensors gives the same view.
std::string spelling(const tile::View& v);

/// Same tensor, element type, steps (the derivation the reference replays) and affine
/// form: what makes two views the same view for every later stage.
bool same_view(const tile::View& a, const tile::View& b);

} // namespace ptxgen::api
