// The executor's CTA: tensor maps edited in memory (tensormap.replace, tensormap.cp_fenceproxy)
// and the launch's map with a handle's edits (simulator.hpp, "Tensor maps edited in memory").

#include "driver/sim/cta.hpp"

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

} // namespace ptxgen::sim

namespace ptxgen::sim::exec {

std::uint8_t* Cta::map_bytes(const Thread& t, const ir::Op& op, std::uint64_t at, bool shared) {
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
  if (!tensor_map_index(view) || *tensor_map_index(view) >= l_.tensor_maps.size())
    fault_at(FaultKind::unsupported, t, op,
             "the 128 bytes at " + hex(at) +
                 " are not a tensor map of this launch: the simulator edits only the maps it "
                 "passed (Launch::tensor_maps) and their copies");
  return bytes;
}

void Cta::tensormap_replace(Thread& t, const ir::Op& op) {
  const std::uint64_t at = address(t, op.addr);
  std::uint8_t* bytes = map_bytes(t, op, at, op.space == ir::Space::shared);
  const bool ordinal = op.n != ir::tensormap_address;
  const std::uint64_t value = raw(t, op.src[ordinal ? 1 : 0]);
  const std::size_t rank = l_.tensor_maps[*tensor_map_index({bytes, tensor_map_bytes})].desc.rank();
  const auto o = ordinal ? static_cast<std::size_t>(raw(t, op.src[0])) : 0;
  if (op.n == ir::tensormap_address) {
    put_u64(bytes + tensor_map_edit_address, value);
  } else if (op.n == ir::tensormap_dim && o < rank) {
    put_u64(bytes + tensor_map_edit_dims + 8 * o, value & 0xffffffffu);
  } else if (op.n == ir::tensormap_stride && o + 1 < rank) {
    put_u64(bytes + tensor_map_edit_strides + 8 * o, value);
  } else {
    fault_at(FaultKind::undefined_behavior, t, op,
             "tensormap.replace's ordinal " + std::to_string(o) + " names no " +
                 (op.n == ir::tensormap_dim ? "dimension" : "stride") + " of a rank-" +
                 std::to_string(rank) + " map");
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
