// The executor's CTA: tensor maps edited in memory (tensormap.replace, tensormap.cp_fenceproxy)
// and the launch's map with a handle's edits (simulator.hpp, "Tensor maps edited in memory").

#include "driver/sim/cta.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::sim {

namespace {

std::uint64_t get_u64(const std::uint8_t* at) {
  std::uint64_t v = 0;
  for (int k = 0; k < 8; ++k)
    v |= static_cast<std::uint64_t>(at[k]) << (8 * k);
  return v;
}

void put_u64(std::uint8_t* at, std::uint64_t v) {
  for (int k = 0; k < 8; ++k)
    at[k] = static_cast<std::uint8_t>(v >> (8 * k));
}

} // namespace

TensorMapArg with_edits(const TensorMapArg& launch, std::span<const std::uint8_t> handle) {
  TensorMapArg m = launch;
  if (const std::uint64_t a = get_u64(handle.data() + tensor_map_edit_address); a != 0)
    m.global_address = a;
  const std::size_t rank = m.desc.rank();
  for (std::size_t o = 0; o < rank; ++o)
    if (const std::uint64_t d = get_u64(handle.data() + tensor_map_edit_dims + 8 * o); d != 0)
      m.desc.global_dims[rank - 1 - o] = static_cast<std::int64_t>(d);
  for (std::size_t o = 0; o + 1 < rank; ++o)
    if (const std::uint64_t s = get_u64(handle.data() + tensor_map_edit_strides + 8 * o); s != 0)
      m.desc.global_strides[rank - 2 - o] = static_cast<std::int64_t>(s);
  return m;
}

namespace {

/// The first bytes of a map built in memory: "ptxgenTB".
constexpr std::array<std::uint8_t, 8> built_magic = {'p', 't', 'x', 'g', 'e', 'n', 'T', 'B'};

std::uint32_t get_u32(const std::uint8_t* at) {
  std::uint32_t v = 0;
  for (int k = 0; k < 4; ++k)
    v |= static_cast<std::uint32_t>(at[k]) << (8 * k);
  return v;
}

void put_u32(std::uint8_t* at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k)
    at[k] = static_cast<std::uint8_t>(v >> (8 * k));
}

/// tensormap.replace's .elemtype values (PTX ISA) the simulator copies; 8 (.f32.ftz), 11 and 12
/// (.tf32) and the packed sub-byte types are not simulated.
std::optional<tile::DType> built_dtype(std::uint8_t v) {
  using D = tile::DType;
  static constexpr std::array<std::optional<D>, 11> table = {
      D::uint8,   D::uint16,  D::uint32,    D::int32,   D::uint64,  D::int64,
      D::float16, D::float32, std::nullopt, D::float64, D::bfloat16};
  return v < table.size() ? table[v] : std::nullopt;
}

} // namespace

bool is_built_tensor_map(std::span<const std::uint8_t> bytes) {
  return bytes.size() == tensor_map_bytes &&
         std::equal(built_magic.begin(), built_magic.end(), bytes.begin());
}

std::variant<TensorMapArg, BuiltMapProblem> built_tensor_map(std::span<const std::uint8_t> bytes) {
  const std::uint8_t* f = bytes.data() + tensor_map_built_fields;
  const std::size_t rank = std::size_t{f[0]} + 1;
  const std::optional<tile::DType> dtype = built_dtype(f[1]);
  if (rank > 5)
    return BuiltMapProblem{false,
                           "its rank field " + std::to_string(f[0]) + " (rank - 1) exceeds 4"};
  if (!dtype)
    return BuiltMapProblem{true, "its elemtype " + std::to_string(f[1]) + " is not simulated"};
  if (f[2] != 0 || f[3] > 3 || f[4] > 1)
    return BuiltMapProblem{true, "its interleave_layout " + std::to_string(f[2]) +
                                     ", swizzle_mode " + std::to_string(f[3]) + " or fill_mode " +
                                     std::to_string(f[4]) + " is not simulated"};
  TensorMapArg m;
  m.global_address = get_u64(bytes.data() + tensor_map_built_address);
  tile::TensorMapDesc& d = m.desc;
  d.tensor = "a map built in memory";
  d.dtype = *dtype;
  d.swizzle = static_cast<tile::TensorMapSwizzle>(f[3]);
  d.oob_fill = f[4] == 1 ? tile::TensorMapOobFill::nan : tile::TensorMapOobFill::zero;
  d.global_dims.assign(rank, 0);
  d.box_dims.assign(rank, 0);
  d.element_strides.assign(rank, 0);
  d.global_strides.assign(rank - 1, 0);
  for (std::size_t o = 0; o < rank; ++o) { // ordinal o is dimension rank - 1 - o, outermost first
    d.global_dims[rank - 1 - o] = get_u32(bytes.data() + tensor_map_built_dims + 4 * o);
    d.box_dims[rank - 1 - o] = get_u32(bytes.data() + tensor_map_built_box + 4 * o);
    d.element_strides[rank - 1 - o] =
        get_u32(bytes.data() + tensor_map_built_element_strides + 4 * o);
    if (o + 1 < rank)
      d.global_strides[rank - 2 - o] =
          static_cast<std::int64_t>(get_u64(bytes.data() + tensor_map_built_strides + 8 * o));
  }
  if (const Diagnostics bad = tile::check_tensor_map(d); !bad.items().empty())
    return BuiltMapProblem{false, bad.items().front().message};
  return m;
}

} // namespace ptxgen::sim

namespace ptxgen::sim::exec {

std::uint8_t* Cta::map_bytes(const Thread& t, const ir::Op& op, std::uint64_t at, bool shared,
                             bool blank) {
  std::uint8_t* bytes = nullptr;
  if (shared) {
    const std::uint64_t off = own_shared(t, op, at, "tensor map");
    check_align(t, op, off, tensor_map_align, "tensor map");
    check_shared(t, op, off, tensor_map_bytes, "tensor map");
    bytes = smem_.data() + off;
  } else {
    check_align(t, op, at, tensor_map_align, "tensor map");
    bytes = global_bytes(t, op, at, tensor_map_bytes, "tensor map");
  }
  const std::span<const std::uint8_t> view(bytes, tensor_map_bytes);
  const std::optional<std::size_t> k = tensor_map_index(view);
  const bool launch = k && *k < l_.tensor_maps.size();
  const bool zero = std::all_of(view.begin(), view.end(), [](std::uint8_t b) { return b == 0; });
  if (!launch && !is_built_tensor_map(view) && !(blank && zero))
    fault_at(FaultKind::unsupported, t, op,
             "the 128 bytes at " + hex(at) +
                 " are not a tensor map of this launch: the simulator edits the maps it passed "
                 "(Launch::tensor_maps) and their copies, and builds a map from 128 zero bytes");
  return bytes;
}

void Cta::tensormap_replace(Thread& t, const ir::Op& op) {
  const std::uint64_t at = address(t, op.addr);
  std::uint8_t* bytes = map_bytes(t, op, at, op.space == ir::Space::shared, true);
  if (tensor_map_index({bytes, tensor_map_bytes})) {
    edit_launch_map(t, op, bytes);
    return;
  }
  std::copy(built_magic.begin(), built_magic.end(), bytes); // zero bytes become a built map
  const bool ordinal = ir::tensormap_ordinal(op.n);
  const std::uint64_t value = raw(t, op.src[ordinal ? 1 : 0]);
  const std::uint64_t o = ordinal ? raw(t, op.src[0]) : 0;
  if (ordinal && o >= 5)
    fault_at(FaultKind::undefined_behavior, t, op,
             "tensormap.replace's ordinal " + std::to_string(o) + " names no dimension (0 .. 4)");
  switch (op.n) {
  case ir::tensormap_address:
    put_u64(bytes + tensor_map_built_address, value);
    return;
  case ir::tensormap_box:
    put_u32(bytes + tensor_map_built_box + 4 * o, static_cast<std::uint32_t>(value));
    return;
  case ir::tensormap_element_stride:
    put_u32(bytes + tensor_map_built_element_strides + 4 * o, static_cast<std::uint32_t>(value));
    return;
  case ir::tensormap_dim:
    put_u32(bytes + tensor_map_built_dims + 4 * o, static_cast<std::uint32_t>(value));
    return;
  case ir::tensormap_stride:
    if (o >= 4)
      fault_at(FaultKind::undefined_behavior, t, op,
               "tensormap.replace.global_stride's ordinal " + std::to_string(o) +
                   " names no stride (0 .. 3)");
    put_u64(bytes + tensor_map_built_strides + 8 * o, value);
    return;
  default: // rank, elemtype, interleave_layout, swizzle_mode, fill_mode: a byte each, in order
    bytes[tensor_map_built_fields + static_cast<std::size_t>(op.n - ir::tensormap_rank)] =
        static_cast<std::uint8_t>(value);
    return;
  }
}

void Cta::edit_launch_map(Thread& t, const ir::Op& op, std::uint8_t* bytes) {
  const bool ordinal = ir::tensormap_ordinal(op.n);
  const std::uint64_t value = raw(t, op.src[ordinal ? 1 : 0]);
  const std::size_t rank = l_.tensor_maps[*tensor_map_index({bytes, tensor_map_bytes})].desc.rank();
  const auto o = ordinal ? static_cast<std::size_t>(raw(t, op.src[0])) : 0;
  if (op.n == ir::tensormap_address) {
    put_u64(bytes + tensor_map_edit_address, value);
  } else if (op.n == ir::tensormap_dim && o < rank) {
    put_u64(bytes + tensor_map_edit_dims + 8 * o, value & 0xffffffffu);
  } else if (op.n == ir::tensormap_stride && o + 1 < rank) {
    put_u64(bytes + tensor_map_edit_strides + 8 * o, value);
  } else if (op.n == ir::tensormap_dim || op.n == ir::tensormap_stride) {
    fault_at(FaultKind::undefined_behavior, t, op,
             "tensormap.replace's ordinal " + std::to_string(o) + " names no " +
                 (op.n == ir::tensormap_dim ? "dimension" : "stride") + " of a rank-" +
                 std::to_string(rank) + " map");
  } else {
    fault_at(FaultKind::unsupported, t, op,
             "the simulator edits a launch map's global address, dims and strides only");
  }
}

void Cta::tensormap_copy(Thread& t, const ir::Op& op) {
  const std::uint64_t src = address(t, op.addr2);
  const std::uint8_t* from = map_bytes(t, op, src, true);
  const std::uint64_t dst = address(t, op.addr);
  std::uint8_t* to = global_bytes(t, op, dst, tensor_map_bytes, "tensor map");
  check_align(t, op, dst, tensor_map_align, "tensor map");
  std::memcpy(to, from, tensor_map_bytes);
}

} // namespace ptxgen::sim::exec
