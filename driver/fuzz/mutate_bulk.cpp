// The bulk family's mutation rules: each edit undoes one choice gen_bulk.cpp makes to keep a
// rule, and returns false where the model has no such choice (another family, no refill...).

#include "driver/fuzz/mutate_bulk.hpp"

#include "emitter/tile/dtype.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>
#include <vector>

namespace ptxgen::driver::fuzz::bulk_mutants {

namespace {

template <class Op>
Op* first_op(SpecModel& m) {
  for (auto& op : m.ops)
    if (auto* o = std::get_if<Op>(&op.body))
      return o;
  return nullptr;
}

ModelTensor* tensor_named(SpecModel& m, const std::string& name) {
  for (auto& t : m.tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::int64_t element_bytes(const ModelTensor& t) {
  return static_cast<std::int64_t>(tile::size_bytes(*tile::parse_dtype(t.dtype.spelling)));
}

/// The index of the first op of kind Op after `from` (m.ops.size() when none).
template <class Op>
std::size_t next_op(const SpecModel& m, std::size_t from) {
  for (std::size_t i = from; i < m.ops.size(); ++i)
    if (m.ops[i].is<Op>())
      return i;
  return m.ops.size();
}

/// The read wait before a refill (gen_bulk.cpp's refill()), or m.ops.size().
std::size_t read_wait(const SpecModel& m) {
  for (std::size_t i = 0; i < m.ops.size(); ++i)
    if (const auto* w = std::get_if<ModelBulkWait>(&m.ops[i].body); w && w->read)
      return i;
  return m.ops.size();
}

/// The per-CTA offset of a store (its `bid * ...` part) taken away.
/// `coord` with every `bid` token as 0: `bid + 2` -> `0 + 2`, the loop's `(bid * 5 + k) * 5`
/// -> `(0 * 5 + k) * 5`, so that every CTA stores where CTA 0 does.
std::string without_bid(const std::string& coord) {
  std::string out;
  for (std::size_t i = 0; i < coord.size();) {
    const bool token =
        coord.compare(i, 3, "bid") == 0 &&
        (i == 0 ||
         !(std::isalnum(static_cast<unsigned char>(coord[i - 1])) || coord[i - 1] == '_')) &&
        (i + 3 == coord.size() ||
         !(std::isalnum(static_cast<unsigned char>(coord[i + 3])) || coord[i + 3] == '_'));
    out += token ? "0" : coord.substr(i, 1);
    i += token ? 3 : 1;
  }
  return out;
}

/// `coord` + `step`: a constant stays one (the loop's coordinates are expressions).
std::string plus(const std::string& coord, std::int64_t step) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(coord.data(), coord.data() + coord.size(), v);
  if (ec == std::errc() && end == coord.data() + coord.size())
    return std::to_string(v + step);
  return "(" + coord + ") + " + std::to_string(step);
}

/// Removes the model's first proxy fence; false when it has none.
bool erase_fence(SpecModel& m) {
  const auto fence = std::find_if(m.ops.begin(), m.ops.end(),
                                  [](const ModelOp& op) { return op.is<ModelProxyFence>(); });
  if (fence == m.ops.end())
    return false;
  m.ops.erase(fence);
  return true;
}

/// The first proxy fence's space set to `space` (which must then miss the space the writes
/// before it need); false when there is no fence or it already orders only `space`.
bool set_fence_space(SpecModel& m, tile::FenceSpace space) {
  for (auto& op : m.ops)
    if (auto* f = std::get_if<ModelProxyFence>(&op.body)) {
      if (f->space == space)
        return false;
      f->space = space;
      return true;
    }
  return false;
}

} // namespace

bool unaligned_inner_coord(SpecModel& m, Rng&) {
  // Every load of the tile (a refill repeats it; a TMA pipeline's are its ring loads).
  std::vector<ModelTensorLoad*> loads;
  for (auto& op : m.ops)
    if (auto* l = std::get_if<ModelTensorLoad>(&op.body))
      loads.push_back(l);
    else if (auto* p = std::get_if<ModelPipeline>(&op.body))
      for (auto& rl : p->ring_loads)
        if (auto* tl = std::get_if<ModelTensorLoad>(&rl))
          loads.push_back(tl);
  const ModelTensor* t = loads.empty() ? nullptr : tensor_named(m, loads.front()->tensor);
  if (!t)
    return false;
  const std::int64_t es = element_bytes(*t);
  const std::int64_t step = std::max<std::int64_t>(1, tile::kTensorInnerCoordGranule / es / 2);
  // Each moves by half a granule.
  for (auto* l : loads)
    l->coords.back().text = plus(l->coords.back().text, step);
  return step * es % tile::kTensorInnerCoordGranule != 0;
}

bool store_negative_coord(SpecModel& m, Rng&) {
  auto* store = first_op<ModelTensorStore>(m);
  const ModelTensor* t = store ? tensor_named(m, store->tensor) : nullptr;
  if (!t)
    return false;
  const std::int64_t granule =
      std::max<std::int64_t>(1, tile::kTensorInnerCoordGranule / element_bytes(*t));
  // The outermost coordinate -1; of a rank-1 tensor, one aligned granule before the tensor.
  store->coords[0].text = store->coords.size() > 1 ? "-1" : std::to_string(-granule);
  return true;
}

bool expect_tx_plus_16(SpecModel& m, Rng&) {
  if (m.family != Family::bulk)
    return false;
  auto* e = first_op<ModelExpectTx>(m);
  if (!e)
    return false;
  e->bytes += tile::kTensorMapGranule;
  return true;
}

bool store_never_waited(SpecModel& m, Rng&) {
  if (m.family != Family::bulk || m.ops.empty())
    return false;
  auto* last = std::get_if<ModelBulkWait>(&m.ops.back().body);
  if (!last || last->read)
    return false;
  // A read wait of every group after the last commit (the loop's with one slot) retires
  // them all: the kernel may end with the global writes in flight.
  for (auto it = m.ops.rbegin(); it != m.ops.rend() && !it->is<ModelBulkCommit>(); ++it)
    if (const auto* w = std::get_if<ModelBulkWait>(&it->body); w && w->read && w->n == 0)
      return false;
  // A refill's read wait retires only the first store's group: the last one stays pending.
  m.ops.pop_back();
  return true;
}

bool refill_without_read_wait(SpecModel& m, Rng&) {
  const std::size_t i = read_wait(m);
  if (i == m.ops.size())
    return false;
  m.ops.erase(m.ops.begin() + static_cast<std::ptrdiff_t>(i));
  return true;
}

bool refill_by_other_thread_without_sync(SpecModel& m, Rng&) {
  const std::size_t i = read_wait(m);
  if (i == m.ops.size())
    return false;
  const auto* tx = first_op<ModelExpectTx>(m);
  const ModelTensorStore* ts = first_op<ModelTensorStore>(m);
  const ModelBulkStore* bs = first_op<ModelBulkStore>(m);
  const auto& store_pred = ts ? ts->pred : bs ? bs->pred : std::optional<ExprText>{};
  // The loader and the storer must differ: the storer's own refill is ordered by its wait.
  if (!tx || !tx->pred || !store_pred || tx->pred->text == store_pred->text)
    return false;
  const std::size_t sync = next_op<ModelCtaSync>(m, i);
  if (sync != i + 1)
    return false;
  m.ops.erase(m.ops.begin() + static_cast<std::ptrdiff_t>(sync));
  return true;
}

bool packed_narrow_swizzle(SpecModel& m, Rng&) {
  ModelTensor* a = tensor_named(m, "A");
  ModelTensor* b = tensor_named(m, "B");
  ModelTensor* s = tensor_named(m, "S");
  if (!a || !b || !s || !a->map || !b->map || a->map->swizzle == tile::TensorMapSwizzle::none)
    return false;
  // Half the swizzle's span per row, the shared tile packed to it (the hardware pads each row
  // to the whole span), and the transaction bytes of the narrower box.
  a->map->box.back() /= 2;
  b->map->box.back() /= 2;
  b->shape.back() /= 2;
  s->shape.back() /= 2;
  for (auto& op : m.ops)
    if (auto* e = std::get_if<ModelExpectTx>(&op.body))
      e->bytes /= 2;
  // The packed tile must still hold whole periods of the pattern, or the builder refuses its
  // layout (spec_swizzle_layout) before the padding rule is reached.
  std::int64_t tile_bytes = element_bytes(*s);
  for (const auto n : s->shape)
    tile_bytes *= n;
  const std::int64_t period = row_of(tile::swizzle_rows, a->map->swizzle).repeat_bytes;
  return a->map->box.back() * element_bytes(*a) % tile::kTensorMapGranule == 0 &&
         tile_bytes % period == 0;
}

bool two_ctas_store_same_bytes(SpecModel& m, Rng&) {
  std::int64_t ctas = 1;
  for (auto g : m.grid)
    ctas *= g;
  if (m.family != Family::bulk || ctas < 2)
    return false;
  bool edited = false;
  for (auto& op : m.ops) {
    if (auto* ts = std::get_if<ModelTensorStore>(&op.body)) {
      const std::string moved = without_bid(ts->coords[0].text);
      edited = edited || moved != ts->coords[0].text;
      ts->coords[0].text = moved;
    } else if (auto* bs = std::get_if<ModelBulkStore>(&op.body)) {
      const std::size_t at = bs->dst.text.find("[bid,");
      if (at != std::string::npos) {
        bs->dst.text.replace(at, 5, "[0,");
        edited = true;
      }
    }
  }
  // The expectations held per CTA's tile; every CTA now writes tile 0.
  m.expects.clear();
  return edited;
}

bool store_without_proxy_fence(SpecModel& m, Rng&) {
  return m.has(Feature::bulk_fill_store) && erase_fence(m);
}

bool load_fill_without_fence(SpecModel& m, Rng&) {
  return m.has(Feature::bulk_fill_load) && erase_fence(m);
}

bool load_fill_fence_global_only(SpecModel& m, Rng&) {
  return m.has(Feature::bulk_fill_load) && set_fence_space(m, tile::FenceSpace::global);
}

bool global_write_without_fence(SpecModel& m, Rng&) {
  return m.has(Feature::bulk_global_write_load) && erase_fence(m);
}

bool global_fence_shared_only(SpecModel& m, Rng&) {
  return m.has(Feature::bulk_global_write_load) && set_fence_space(m, tile::FenceSpace::shared_cta);
}

bool read_wait_one_group_looser(SpecModel& m, Rng&) {
  if (m.family != Family::bulk)
    return false;
  for (auto& op : m.ops)
    if (auto* w = std::get_if<ModelBulkWait>(&op.body); w && w->read) {
      ++w->n;
      return true;
    }
  return false;
}

bool loop_parity_constant(SpecModel& m, Rng&) {
  if (!m.has(Feature::bulk_loop))
    return false;
  for (auto& op : m.ops)
    if (auto* w = std::get_if<ModelMbarrierWait>(&op.body);
        w && w->parity == IntOrExpr{ExprText{"k % 2"}}) {
      w->parity = std::int64_t{0};
      return true;
    }
  return false;
}

bool ring_full_without_stage(SpecModel& m, Rng&) {
  auto* p = first_op<ModelPipeline>(m);
  if (!p || !p->ring)
    return false;
  p->ring->full = ViewText{"full.sub[0]"};
  return true;
}

bool ring_offset_lap_ahead(SpecModel& m, Rng&) {
  auto* p = first_op<ModelPipeline>(m);
  if (!p || !p->ring || p->ring->offset)
    return false;
  // A whole lap: the first use the producer waits for a release of is one no consumer made.
  p->ring->offset = IntOrExpr{p->stages};
  return true;
}

bool ring_load_next_tile(SpecModel& m, Rng&) {
  auto* p = first_op<ModelPipeline>(m);
  if (!p || !p->ring)
    return false;
  for (auto& l : p->ring_loads)
    if (auto* bl = std::get_if<ModelBulkLoad>(&l); bl && bl->src.text == "A.sub[bid, k, :, :]") {
      bl->src = ViewText{"A.sub[bid, k + 1, :, :]"};
      m.expects.clear();
      return true;
    }
  return false;
}

bool readback_without_sync(SpecModel& m, Rng&) {
  if (!m.has(Feature::bulk_global_readback))
    return false;
  // The cta_sync right before the first copy out of B (gen_bulk_proxy.cpp's read-back).
  for (std::size_t i = 1; i < m.ops.size(); ++i)
    if (const auto* c = std::get_if<ModelCopy>(&m.ops[i].body);
        c && c->src.text.starts_with("B.sub[") && m.ops[i - 1].is<ModelCtaSync>()) {
      m.ops.erase(m.ops.begin() + static_cast<std::ptrdiff_t>(i - 1));
      return true;
    }
  return false;
}

bool copy_over_pending_store(SpecModel& m, Rng&) {
  if (!m.has(Feature::bulk_fill_load) && !m.has(Feature::bulk_global_write_load))
    return false;
  // The 1-D shapes' bulk store of S into the CTA's rows of B ({G, T, row}), and its commit.
  for (std::size_t i = 0; i < m.ops.size(); ++i)
    if (const auto* st = std::get_if<ModelBulkStore>(&m.ops[i].body);
        st && st->dst.text == "B.sub[bid, :, :]") {
      const std::size_t commit = next_op<ModelBulkCommit>(m, i);
      if (commit == m.ops.size())
        return false;
      // Every thread writes its row of B while the store may still write it.
      m.ops.insert(m.ops.begin() + static_cast<std::ptrdiff_t>(commit + 1),
                   ModelOp{ModelCopy{ViewText{"B.sub[bid, tid, :]"}, ViewText{"S.sub[tid, :]"}},
                           m.ops[commit].unit});
      m.expects.clear();
      return true;
    }
  return false;
}

} // namespace ptxgen::driver::fuzz::bulk_mutants
