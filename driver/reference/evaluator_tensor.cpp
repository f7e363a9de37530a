// The tensor copies: a box of a global tensor through its map (tensor_map_naive.hpp) to or
// from the raw bytes of a shared view. The map's swizzle places the box's elements in those
// bytes; a swizzled shared tensor's views read them back through the same swizzle
// (naive_view.hpp), so a view sees the box's elements in order.

#include "driver/reference/evaluator.hpp"
#include "driver/reference/tensor_map_naive.hpp"

#include <algorithm>

namespace ptxgen::driver::evaluation {
namespace {

/// Appends `p` to `pieces`, merged with the last one where both sides continue it.
void append_piece(std::vector<Piece>& pieces, Piece p) {
  if (!pieces.empty()) {
    Piece& last = pieces.back();
    const bool both_filled = last.src == filled && p.src == filled;
    const bool both_continue =
        last.src != filled && p.src != filled && last.src + last.len == p.src;
    if (last.dst + last.len == p.dst && (both_filled || both_continue)) {
      last.len += p.len;
      return;
    }
  }
  pieces.push_back(p);
}

} // namespace

bool Evaluator::box_in_buffer(std::size_t op, const std::vector<NaiveBoxElement>& elements,
                              const Buffer& gb, std::int64_t esize) {
  for (const NaiveBoxElement& el : elements) {
    if (el.place == tile::BoxPlace::inside &&
        (el.global_offset < 0 || el.global_offset + esize > gb.size)) {
      problems_.add(op, DiagId::check_out_of_bounds, "bytes outside the tensor (not written)", [&] {
        return "the box element " + coords_text(el.coordinate) + " lies at byte " +
               std::to_string(el.global_offset) + " of '" + gb.name + "' (" +
               std::to_string(gb.size) + " bytes)";
      });
      return false;
    }
  }
  return true;
}

const tile::TensorMapDesc* Evaluator::tensor_map(std::size_t op,
                                                 const tile::Located<std::string>& t) {
  const tile::TensorDecl* d = k_.find_tensor(t.value);
  const auto it = by_name_.find(t.value);
  if (d == nullptr || !d->map || it == by_name_.end() || it->second.shared) {
    problems_.add(op, DiagId::check_view_unusable, "tensor names no global tensor with a map",
                  [&] { return "'" + t.value + "'"; });
    return nullptr;
  }
  return &*d->map;
}

std::optional<std::vector<std::int64_t>>
Evaluator::box_coords(std::size_t op, const std::vector<tile::Located<tile::ExprPtr>>& coords,
                      const tile::ExprEnv& e) {
  std::vector<std::int64_t> out;
  for (const auto& c : coords) {
    const auto v = eval(op, c, "coords", e);
    if (!v) {
      return std::nullopt;
    }
    out.push_back(*v);
  }
  return out;
}

std::optional<std::int64_t> Evaluator::box_base(std::size_t op, const tile::Located<tile::View>& v,
                                                const Buffer& b, const tile::ExprEnv& e,
                                                const tile::TensorMapDesc& map,
                                                std::int64_t bytes) {
  const NaivePlan& p = plan(v.value);
  std::int64_t held = p.element_bytes();
  for (std::int64_t s : p.shape()) {
    held *= s;
  }
  if (held != bytes) {
    problems_.add(op, DiagId::check_views_do_not_fit, "the shared view does not hold the box", [&] {
      return "'" + v.text + "' holds " + std::to_string(held) + " bytes, the box " +
             std::to_string(bytes);
    });
    return std::nullopt;
  }
  Runs first;
  if (!locate(op, v, b, e, std::vector<std::int64_t>(p.shape().size(), 0), std::nullopt, first)) {
    return std::nullopt;
  }
  // The view's first byte where it is stored, unswizzled (the swizzle is its own inverse).
  const std::int64_t raw = naive_swizzle(v.value.tensor->swizzle, first.first.off);
  const std::int64_t period = naive_swizzle_period(map.swizzle);
  if (raw % period != 0 || raw + bytes > b.size) {
    problems_.add(op, DiagId::check_view_unusable,
                  "the shared view of a tensor copy does not start on its swizzle's period", [&] {
                    return where(cta_, e.tid) + ": '" + v.text + "' starts at byte " +
                           std::to_string(raw) + " of '" + b.name + "' (" + std::to_string(b.size) +
                           " bytes), the box takes " + std::to_string(bytes) +
                           " bytes from a multiple of " + std::to_string(period);
                  });
    return std::nullopt;
  }
  return raw;
}

std::optional<Evaluator::PlacedBox>
Evaluator::place_box(std::size_t op, const std::vector<tile::Located<tile::ExprPtr>>& coords,
                     const tile::Located<tile::View>& shared_view, const Buffer& sb,
                     const Buffer& gb, const tile::ExprEnv& e, const tile::TensorMapDesc& map,
                     tile::TensorAccess access,
                     const std::vector<tile::Located<tile::ExprPtr>>* offsets) {
  const auto c = box_coords(op, coords, e);
  if (!c)
    return std::nullopt;
  std::vector<std::int64_t> offs;
  const bool im2col = map.mode == tile::TensorMapMode::im2col && offsets != nullptr;
  if (im2col) {
    const auto o = box_coords(op, *offsets, e);
    if (!o)
      return std::nullopt;
    offs = *o;
  }
  // An im2col walk wraps at the bounding box: its pieces do not move with the coordinates.
  if (auto moved = im2col ? std::nullopt : moved_box(op, map, *c, gb)) {
    const auto base = box_base(op, shared_view, sb, e, map, naive_shared_box_bytes(map));
    if (!base)
      return std::nullopt;
    moved->base = *base;
    return moved;
  }
  const std::vector<NaiveBoxElement> elements =
      im2col ? naive_im2col_elements(map, *c, offs) : naive_box_elements(map, *c, access);
  PlacedBox box;
  const auto esize = static_cast<std::int64_t>(naive_dtype_bytes(map.dtype));
  box.bytes = static_cast<std::int64_t>(elements.size()) * esize;
  const auto base = box_base(op, shared_view, sb, e, map, naive_shared_box_bytes(map));
  if (!base || !box_in_buffer(op, elements, gb, esize))
    return std::nullopt;
  box.base = *base;
  bool inside = true;
  for (const NaiveBoxElement& el : elements) {
    inside = inside && el.place == tile::BoxPlace::inside;
    append_piece(
        box.pieces,
        {el.shared_offset, el.place == tile::BoxPlace::inside ? el.global_offset : filled, esize});
  }
  if (inside && !elements.empty() && !im2col) {
    InsideBox& ib = inside_boxes_[op];
    ib.coords = *c;
    ib.low.assign(c->size(), 0);
    ib.high.assign(c->size(), 0);
    ib.first = elements.front().global_offset;
    ib.end = ib.first;
    for (const NaiveBoxElement& el : elements) {
      for (std::size_t k = 0; k < c->size(); ++k) {
        ib.low[k] = std::min(ib.low[k], el.coordinate[k] - (*c)[k]);
        ib.high[k] = std::max(ib.high[k], el.coordinate[k] - (*c)[k]);
      }
      ib.first = std::min(ib.first, el.global_offset);
      ib.end = std::max(ib.end, el.global_offset + esize);
    }
    ib.pieces = box.pieces;
    ib.bytes = box.bytes;
  }
  return box;
}

std::optional<Evaluator::PlacedBox> Evaluator::moved_box(std::size_t op,
                                                         const tile::TensorMapDesc& map,
                                                         const std::vector<std::int64_t>& c,
                                                         const Buffer& gb) const {
  const auto it = inside_boxes_.find(op);
  if (it == inside_boxes_.end() || it->second.coords.size() != c.size())
    return std::nullopt;
  const InsideBox& ib = it->second;
  std::int64_t delta = 0;
  for (std::size_t k = 0; k < c.size(); ++k) {
    if (c[k] + ib.low[k] < 0 || c[k] + ib.high[k] >= map.global_dims[k])
      return std::nullopt; // some element outside the tensor
    delta += (c[k] - ib.coords[k]) * naive_stride(map, k);
  }
  if (ib.first + delta < 0 || ib.end + delta > gb.size)
    return std::nullopt; // the naive path reports the element
  PlacedBox box;
  box.bytes = ib.bytes;
  box.pieces = ib.pieces;
  for (Piece& p : box.pieces)
    p.src += delta;
  return box;
}

void Evaluator::step_op(std::size_t op, const tile::TensorLoadOp& m) {
  if ((!m.map && tensor_map(op, m.tensor) == nullptr) || !prepare(op, m.dst, "dst") ||
      (m.map && !prepare(op, *m.map, "map"))) {
    return;
  }
  Buffer& db = buffer(*slot(m.dst.value), cta_state_);
  each_receiving(op, m.pred, m.multicast, [&](std::int64_t tid, const tile::ExprEnv& e) {
    const auto id = used_barrier(op, m.barrier, tid);
    if (!id) {
      return;
    }
    const auto cm = copy_map(op, m.tensor, m.map, e);
    if (!cm) {
      return;
    }
    const tile::TensorMapDesc* map = cm->desc;
    const Buffer& gb = *cm->global;
    const std::vector<std::uint8_t> fill = naive_fill_element(*map);
    const auto box = place_box(op, m.coords, m.dst, db, gb, e, *map, tile::TensorAccess::load,
                               m.offsets ? &*m.offsets : nullptr);
    if (!box) {
      return;
    }
    PendingLoad l{.access = model::Access::tensor_load,
                  .op = op,
                  .tid = tid,
                  .barrier = *id,
                  .bytes = box->bytes};
    l.dst = &db;
    l.src = &gb;
    l.writes.append({box->base, naive_shared_box_bytes(*map)}); // a narrow row's padding too
    l.fill = fill;
    l.pieces = std::move(box->pieces);
    for (Piece& p : l.pieces)
      p.dst += box->base;
    issue_load(std::move(l));
  });
}

void Evaluator::step_op(std::size_t op, const tile::TensorStoreOp& m) {
  issue_tensor_store(op, m.tensor, m.map, m.coords, m.src, m.pred, std::nullopt);
}

void Evaluator::step_op(std::size_t op, const tile::TensorReduceOp& m) {
  issue_tensor_store(op, m.tensor, std::nullopt, m.coords, m.src, m.pred, m.reduce);
}

void Evaluator::issue_tensor_store(std::size_t op, const tile::Located<std::string>& tensor,
                                   const std::optional<tile::Located<tile::View>>& map_slot,
                                   const std::vector<tile::Located<tile::ExprPtr>>& coords,
                                   const tile::Located<tile::View>& src,
                                   const std::optional<tile::Located<tile::ExprPtr>>& pred,
                                   std::optional<tile::ReduceKind> reduce) {
  if ((!map_slot && tensor_map(op, tensor) == nullptr) || !prepare(op, src, "src") ||
      (map_slot && !prepare(op, *map_slot, "map"))) {
    return;
  }
  Buffer& sb = buffer(*slot(src.value), cta_state_);
  each_issuing_thread(op, pred, [&](std::int64_t tid, const tile::ExprEnv& e) {
    const auto cm = copy_map(op, tensor, map_slot, e);
    if (!cm) {
      return;
    }
    const tile::TensorMapDesc* map = cm->desc;
    Buffer& gb = *cm->global;
    const auto box = place_box(op, coords, src, sb, gb, e, *map, tile::TensorAccess::store);
    if (!box) {
      return;
    }
    PendingStore st;
    st.op = op;
    st.src = &sb;
    st.dst = &gb;
    // A reduction combines each element inside the tensor in the map's dtype (the pieces are
    // runs of whole elements of a box row); outside it nothing is written, as for a store.
    st.reduce = reduce;
    st.dtype = src.value.dtype;
    st.reads.append({box->base, naive_shared_box_bytes(*map)}); // staged from the first byte
    for (const Piece& p : box->pieces) {
      // Outside the tensor: skipped. A spill (the H100 writing the rest of a row's last 16
      // bytes) the contract refuses; it is skipped here too.
      if (p.src != filled) {
        st.pieces.push_back({p.src, p.dst, p.len});
      }
    }
    issue_store(tid, std::move(st));
  });
}

} // namespace ptxgen::driver::evaluation
