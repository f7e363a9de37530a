#include "driver/cuda/kernel_params.hpp"

#include <cstring>
#include <limits>

namespace ptxgen::driver::cuda {

std::vector<void*> PackedParams::pointers() {
  std::vector<void*> result;
  result.reserve(slots_.size());
  for (auto& slot : slots_) {
    result.push_back(slot.bytes.data());
  }
  return result;
}

Fallible<PackedParams> pack_kernel_params(const std::vector<KernelParam>& params,
                                          const std::vector<std::uint64_t>& buffer_addresses,
                                          const TensorMapEncoder& encode) {
  PackedParams packed;
  packed.slots_.resize(params.size());
  packed.widths_.assign(params.size(), 0);
  for (std::size_t i = 0; i < params.size(); ++i) {
    const KernelParam& p = params[i];
    auto* slot = packed.slots_[i].bytes.data();
    const bool addressed =
        p.kind == KernelParam::Kind::buffer || p.kind == KernelParam::Kind::tensor_map;
    if (addressed && p.buffer_index >= buffer_addresses.size())
      return Failure{"parameter " + std::to_string(i) + " refers to buffer " +
                     std::to_string(p.buffer_index) + ", but the case has " +
                     std::to_string(buffer_addresses.size()) +
                     (buffer_addresses.size() == 1 ? " buffer" : " buffers")};
    switch (p.kind) {
    case KernelParam::Kind::buffer: {
      const std::uint64_t address = buffer_addresses[p.buffer_index];
      std::memcpy(slot, &address, sizeof address);
      packed.widths_[i] = sizeof address;
      break;
    }
    case KernelParam::Kind::u32: {
      if (p.value > std::numeric_limits<std::uint32_t>::max())
        return Failure{"parameter " + std::to_string(i) + " is u32 but its value " +
                       std::to_string(p.value) + " does not fit in 32 bits"};
      const auto value = static_cast<std::uint32_t>(p.value);
      std::memcpy(slot, &value, sizeof value);
      packed.widths_[i] = sizeof value;
      break;
    }
    case KernelParam::Kind::u64:
      std::memcpy(slot, &p.value, sizeof p.value);
      packed.widths_[i] = sizeof p.value;
      break;
    case KernelParam::Kind::tensor_map: {
      if (!p.map)
        return Failure{"parameter " + std::to_string(i) + " is a tensor map but has no map"};
      if (!encode)
        return Failure{"parameter " + std::to_string(i) + " is the tensor map of `" +
                       p.map->tensor + "`, but this launch cannot encode tensor maps"};
      if (auto s = encode(*p.map, buffer_addresses[p.buffer_index], packed.slots_[i].bytes); !s)
        return Failure{"parameter " + std::to_string(i) + ": " + s.error()};
      packed.widths_[i] = tensor_map_bytes;
      break;
    }
    }
  }
  return packed;
}

} // namespace ptxgen::driver::cuda
