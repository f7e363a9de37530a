// The executor's CTA: tensor copies (cp.async.bulk.tensor.{1..5}d ... .tile / .im2col), the handles
// that stand for the launch's tensor maps, and the element runs a copy moves (cta.hpp; the model:
// simulator.hpp, "Tensor copies").

#include "driver/sim/cta.hpp"
#include "emitter/support/unreachable.hpp"
#include "emitter/tile/im2col.hpp"
#include "emitter/tile/reduce.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::sim {
namespace {

/// The first bytes of a handle: "ptxgenTM".
/// (The edits a tensormap.replace writes into a handle: simulator.hpp, "Tensor maps edited in
/// memory".)
constexpr std::array<std::uint8_t, 8> tensor_map_magic = {'p', 't', 'x', 'g', 'e', 'n', 'T', 'M'};

void put_u32(std::uint8_t* at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k)
    at[k] = static_cast<std::uint8_t>(v >> (8 * k));
}

std::uint32_t get_u32(const std::uint8_t* at) {
  std::uint32_t v = 0;
  for (int k = 0; k < 4; ++k)
    v |= static_cast<std::uint32_t>(at[k]) << (8 * k);
  return v;
}

/// The tile reduction of a decoded cp.reduce.async.bulk.tensor `.op` (never cas or exch: the
/// decoder refuses them).
tile::ReduceKind reduce_kind(ir::Atomic a) {
  switch (a) {
  case ir::Atomic::add:
    return tile::ReduceKind::add;
  case ir::Atomic::min:
    return tile::ReduceKind::min;
  case ir::Atomic::max:
    return tile::ReduceKind::max;
  case ir::Atomic::inc:
    return tile::ReduceKind::inc;
  case ir::Atomic::dec:
    return tile::ReduceKind::dec;
  case ir::Atomic::and_:
    return tile::ReduceKind::and_;
  case ir::Atomic::or_:
    return tile::ReduceKind::or_;
  case ir::Atomic::xor_:
    return tile::ReduceKind::xor_;
  default:
    unreachable("reduce_kind(): the decoder takes only cp.reduce.async.bulk's operations");
  }
}

ptx::BulkRedOp ptx_red_op(ir::Atomic a) {
  return tile::ptx_reduce_op(reduce_kind(a));
}

/// A map's element as the ALU's type: the float formats, signed int32 / int64, the rest
/// unsigned integers of their width.
ir::Type reduce_element(tile::DType d) {
  const auto bits = static_cast<std::uint8_t>(tile::size_bytes(d) * 8);
  switch (d) {
  case tile::DType::float16:
    return {bits, false, ir::Num::f16};
  case tile::DType::bfloat16:
    return {bits, false, ir::Num::bf16};
  case tile::DType::float32:
    return {bits, false, ir::Num::f32};
  case tile::DType::float64:
    return {bits, false, ir::Num::f64};
  case tile::DType::int8:
  case tile::DType::int16:
  case tile::DType::int32:
  case tile::DType::int64:
    return {bits, true, ir::Num::integer};
  default:
    return {bits, false, ir::Num::integer};
  }
}

} // namespace

std::array<std::uint8_t, tensor_map_bytes> tensor_map_handle(std::size_t index) {
  std::array<std::uint8_t, tensor_map_bytes> h{};
  std::copy(tensor_map_magic.begin(), tensor_map_magic.end(), h.begin());
  put_u32(h.data() + 8, static_cast<std::uint32_t>(index));
  put_u32(h.data() + 12, ~static_cast<std::uint32_t>(index));
  return h;
}

std::optional<std::size_t> tensor_map_index(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != tensor_map_bytes ||
      !std::equal(tensor_map_magic.begin(), tensor_map_magic.end(), bytes.begin()))
    return std::nullopt;
  const std::uint32_t index = get_u32(bytes.data() + 8);
  if (get_u32(bytes.data() + 12) != ~index ||
      std::any_of(bytes.begin() + tensor_map_edits_end, bytes.end(),
                  [](std::uint8_t b) { return b != 0; }))
    return std::nullopt;
  return index;
}

} // namespace ptxgen::sim

namespace ptxgen::sim::exec {
namespace {

/// An element's out-of-bounds fill: zero, or a NaN of the element's size with every bit but the
/// sign set (a NaN in f16, bf16, f32 and f64 alike).
std::array<std::uint8_t, 8> fill_bytes(const tile::TensorMapDesc& map, std::size_t element) {
  std::array<std::uint8_t, 8> fill{};
  if (map.oob_fill == tile::TensorMapOobFill::nan) // 0x7FF7 in each 16-bit half (the H200's)
    for (std::size_t i = 0; i + 1 < element; i += 2) {
      fill[i] = 0xF7;
      fill[i + 1] = 0x7F;
    }
  return fill;
}

/// Appends one element to `runs`, extending the last run when both sides are contiguous.
void add_element(std::vector<TensorRun>& runs, const TensorRun& e) {
  if (!runs.empty()) {
    TensorRun& last = runs.back();
    const bool fill = e.buffer < 0;
    if ((last.buffer < 0) == fill && last.shared + last.bytes == e.shared &&
        (fill || last.global + last.bytes == e.global)) {
      last.bytes += e.bytes;
      return;
    }
  }
  runs.push_back(e);
}

/// The plan of a swizzled copy whose shared address `at` is off its mode's repeat (256, 512 or
/// 1024 bytes): the GPU swizzles by shared address bits (probe 8, measured on the H100 on
/// 2026-12-05 for every mode at offsets 128 to 896), so the 16-byte chunk at unswizzled offset
/// u of the box lands at swz(at + u) - at, not at swz(u). swizzle_offset is its own inverse:
/// it undoes the plan's swizzle first. The runs split at 16-byte chunks.
std::shared_ptr<const TensorPlan> off_repeat(const TensorPlan& plan, tile::TensorMapSwizzle mode,
                                             std::uint64_t at) {
  auto out = std::make_shared<TensorPlan>(plan);
  out->runs.clear();
  constexpr auto chunk = static_cast<std::uint64_t>(tile::kSwizzleChunkBytes);
  for (const TensorRun& r : plan.runs) {
    for (std::uint64_t done = 0; done < r.bytes;) {
      const std::uint64_t o = r.shared + done;
      const std::uint64_t n = std::min<std::uint64_t>(r.bytes - done, chunk - o % chunk);
      const auto u = static_cast<std::uint64_t>(tile::swizzle_offset(mode, std::int64_t(o)));
      TensorRun piece = r;
      piece.shared =
          static_cast<std::uint64_t>(tile::swizzle_offset(mode, std::int64_t(at + u))) - at;
      piece.bytes = static_cast<std::uint32_t>(n);
      if (r.buffer >= 0)
        piece.global = r.global + done;
      out->extent = std::max(out->extent, piece.shared + n);
      out->runs.push_back(piece);
      done += n;
    }
  }
  return out;
}

} // namespace

TensorMapArg Cta::tensor_map_at(const Thread& t, const ir::Op& op) const {
  const std::uint64_t at = address(t, op.addr2);
  check_align(t, op, at, tensor_map_align, "tensor map");
  std::array<std::uint8_t, tensor_map_bytes> bytes{};
  const std::uint64_t param = at - param_window_base;
  if (at >= param_window_base && param <= params_.size() &&
      params_.size() - param >= tensor_map_bytes) {
    std::memcpy(bytes.data(), params_.data() + param, tensor_map_bytes);
  } else {
    if (in_shared_window(at))
      fault_at(FaultKind::illegal_address, t, op,
               "the tensor map address " + hex(at) +
                   " is in shared memory; a map lives in .param, .const or .global memory");
    std::memcpy(bytes.data(), global_bytes(t, op, at, tensor_map_bytes, "tensor map"),
                tensor_map_bytes);
  }
  if (is_built_tensor_map(bytes)) {
    auto built = built_tensor_map(bytes);
    if (const BuiltMapProblem* bad = std::get_if<BuiltMapProblem>(&built))
      fault_at(bad->unsupported ? FaultKind::unsupported : FaultKind::undefined_behavior, t, op,
               "the tensor map built in memory at " + hex(at) + " is not valid: " + bad->why);
    return std::get<TensorMapArg>(std::move(built));
  }
  const std::optional<std::size_t> k = tensor_map_index(bytes);
  if (!k || *k >= l_.tensor_maps.size())
    fault_at(FaultKind::unsupported, t, op,
             "the 128 bytes at " + hex(at) +
                 " are not a tensor map of this launch: the simulator cannot decode a "
                 "CUtensorMap; the caller states each map (Launch::tensor_maps), or the kernel "
                 "builds one with tensormap.replace from 128 zero bytes");
  return with_edits(l_.tensor_maps[*k], bytes);
}

TensorMapArg Cta::tensor_map(const Thread& t, const ir::Op& op) const {
  TensorMapArg m = tensor_map_at(t, op);
  if (m.desc.rank() != op.rank)
    fault_at(FaultKind::undefined_behavior, t, op,
             "a ." + std::to_string(op.rank) + "d tensor copy through the map of `" +
                 m.desc.tensor + "`, which has rank " + std::to_string(m.desc.rank()));
  // The instruction's mode is the map's: a `.tile` copy through an im2col map (or the other
  // way) reads the descriptor as what it is not.
  if (op.im2col != m.desc.is_im2col())
    fault_at(FaultKind::undefined_behavior, t, op,
             std::string(op.im2col ? "an .im2col" : "a .tile") + " tensor copy through the " +
                 std::string(tile::name(m.desc.mode)) + " map of `" + m.desc.tensor + "`");
  return m;
}

std::shared_ptr<const TensorPlan> Cta::tensor_plan(const Thread& t, const ir::Op& op,
                                                   const TensorMapArg& m,
                                                   tile::TensorAccess access) const {
  std::vector<std::int64_t> coords(op.rank);
  for (std::size_t c = 0; c < op.rank; ++c) // PTX lists them innermost first
    coords[op.rank - 1 - c] = sext(raw(t, op.coords[c]), 32);
  auto plan = std::make_shared<TensorPlan>();
  const auto element = static_cast<std::size_t>(tile::size_bytes(m.desc.dtype));
  const std::int64_t inner_bytes = coords[op.rank - 1] * static_cast<std::int64_t>(element);
  if (inner_bytes % tile::kTensorInnerCoordGranule != 0)
    fault_at(FaultKind::undefined_behavior, t, op,
             "the innermost tensor coordinate " + std::to_string(coords[op.rank - 1]) + " is " +
                 std::to_string(inner_bytes) + " bytes into the row, not a multiple of " +
                 std::to_string(tile::kTensorInnerCoordGranule) +
                 " (the H200 raises an illegal-instruction fault)");
  plan->element = static_cast<std::uint32_t>(element);
  plan->fill = fill_bytes(m.desc, element);
  plan->tx = static_cast<std::uint64_t>(tile::box_bytes(m.desc));
  std::vector<tile::BoxElement> elements;
  if (op.im2col) {
    // The offsets are unsigned 16-bit values, innermost first as the coordinates.
    const std::size_t spatial = op.rank - 2u;
    std::vector<std::int64_t> offsets(spatial);
    for (std::size_t s = 0; s < spatial; ++s)
      offsets[spatial - 1 - s] = static_cast<std::int64_t>(raw(t, op.offsets[s]) & 0xFFFF);
    elements = tile::im2col_elements(m.desc, coords, offsets);
  } else {
    elements = tile::box_elements(m.desc, coords, access);
  }
  for (const tile::BoxElement& e : elements) {
    const auto shared = static_cast<std::uint64_t>(e.shared_offset);
    plan->extent = std::max(plan->extent, shared + element);
    const bool moved = e.place == tile::BoxPlace::inside ||
                       (access == tile::TensorAccess::store && e.place == tile::BoxPlace::spill);
    if (!moved && access == tile::TensorAccess::store)
      continue; // a store skips what lies outside the tensor
    TensorRun r;
    r.shared = shared;
    r.bytes = plan->element;
    if (moved) {
      r.global = m.global_address + static_cast<std::uint64_t>(e.global_offset);
      r.buffer = 0; // resolved below, once the runs are merged
    }
    add_element(plan->runs, r);
  }
  // A swizzled row narrower than its span takes the whole span (the H200 writes the
  // destination up to it): the copy's shared extent is rows x span, not the box's bytes.
  plan->extent = std::max(plan->extent, static_cast<std::uint64_t>(tile::shared_box_bytes(m.desc)));
  for (TensorRun& r : plan->runs) {
    if (r.buffer < 0)
      continue;
    global_bytes(t, op, r.global, r.bytes,
                 access == tile::TensorAccess::load ? "cp.async.bulk.tensor source"
                                                    : "cp.async.bulk.tensor destination");
    r.buffer = find_buffer(r.global, r.bytes);
  }
  return plan;
}

std::uint64_t Cta::tensor_shared(const Thread& t, const ir::Op& op, const TensorPlan& plan) const {
  const bool load = op.code == ir::Code::tensor_load;
  const std::string_view what =
      load ? "cp.async.bulk.tensor destination" : "cp.async.bulk.tensor source";
  const std::uint64_t at = own_shared(t, op, address(t, op.addr), what);
  // 128 bytes in every mode: a swizzled box off its repeat runs (off_repeat says where its
  // chunks land); ptxgen's own specs keep the repeat (contract_tmap_shared_align).
  check_align(t, op, at, static_cast<std::uint64_t>(tile::kTensorMapSharedAlign), what);
  check_shared(t, op, at, plan.extent, what);
  not_an_mbarrier(t, op, at, plan.extent, what);
  return at;
}

Cta::TensorIssue Cta::tensor_issue(const Thread& t, const ir::Op& op,
                                   tile::TensorAccess access) const {
  const TensorMapArg m = tensor_map(t, op);
  std::shared_ptr<const TensorPlan> plan = tensor_plan(t, op, m, access);
  const std::uint64_t shared = tensor_shared(t, op, *plan);
  const auto repeat =
      static_cast<std::uint64_t>(row_of(tile::swizzle_rows, m.desc.swizzle).shared_align);
  if (shared % repeat != 0)
    plan = off_repeat(*plan, m.desc.swizzle, shared);
  return {std::move(plan), shared};
}

void Cta::tensor_load_issue(Thread& t, const ir::Op& op) {
  TensorIssue issue = tensor_issue(t, op, tile::TensorAccess::load);
  Copy c;
  c.dst = issue.shared;
  c.size = static_cast<std::uint32_t>(issue.plan->extent);
  for (const TensorRun& r : issue.plan->runs) {
    if (r.buffer >= 0)
      global_access(t, op, r.global, r.bytes, GlobalUse::async_read);
  }
  const std::uint64_t tx = issue.plan->tx;
  c.tensor = std::move(issue.plan);
  queue_bulk_load(t, op, std::move(c), tx);
}

void Cta::tensor_store_issue(Thread& t, const ir::Op& op) {
  TensorIssue issue = tensor_issue(t, op, tile::TensorAccess::store);
  BulkStore s;
  s.src = issue.shared;
  s.size = static_cast<std::uint32_t>(issue.plan->extent);
  if (op.code == ir::Code::tensor_reduce) {
    const tile::DType dtype = tensor_map(t, op).desc.dtype;
    if (!tile::tensor_reduce_ptx_type(reduce_kind(op.atomic), dtype))
      fault_at(FaultKind::undefined_behavior, t, op,
               "cp.reduce.async.bulk.tensor has no ." +
                   std::string(ptx::name(ptx_red_op(op.atomic))) + " of the map's " +
                   std::string(tile::name(dtype)) +
                   " elements (the PTX ISA's table for the tensor form)");
    s.reduce = true;
    s.atomic = op.atomic;
    s.elem = reduce_element(dtype);
  }
  s.tensor = std::move(issue.plan);
  queue_bulk_store(t, op, std::move(s));
}

void Cta::land_tensor(std::uint8_t* d, const TensorPlan& p) const {
  for (const TensorRun& r : p.runs) {
    if (r.buffer >= 0) {
      const auto& buf = mem_[static_cast<std::size_t>(r.buffer)];
      std::memcpy(d + r.shared, buf.bytes->data() + (r.global - buf.address), r.bytes);
      continue;
    }
    for (std::uint64_t b = 0; b < r.bytes; b += p.element)
      std::memcpy(d + r.shared + b, p.fill.data(), p.element);
  }
}

void Cta::prefetch_tensormap(const Thread& t, const ir::Op& op) const {
  // A hint, but its address must hold a map: the one check the simulator can make.
  (void)tensor_map_at(t, op);
}

} // namespace ptxgen::sim::exec
