#pragma once
// Kernel arguments as cuLaunchKernel wants them: an array of pointers, one per
// parameter in declaration order, each pointing at that parameter's value.

#include "emitter/support/result.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver::cuda {

struct KernelParam {
  enum class Kind : std::uint8_t {
    buffer,     ///< a .u64 device address: the data start of buffers[buffer_index]
    u32,        ///< a .u32 value; `value` must fit in 32 bits
    u64,        ///< a .u64 value
    tensor_map, ///< the 128-byte tensor map `map` of buffers[buffer_index], encoded at launch
  };
  Kind kind = Kind::u32;
  std::size_t buffer_index = 0; ///< for Kind::buffer and Kind::tensor_map
  std::uint64_t value = 0;      ///< for Kind::u32 and Kind::u64
  /// For Kind::tensor_map: what cuTensorMapEncodeTiled encodes over the buffer's device
  /// address (known only once the buffer is allocated, so the map is encoded there).
  std::optional<tile::TensorMapDesc> map;
};

/// The bytes of an encoded tensor map (a CUtensorMap), as the launch passes them.
inline constexpr std::size_t tensor_map_bytes = 128;
using TensorMapBytes = std::array<unsigned char, tensor_map_bytes>;

/// Encodes `map` over the tensor at device address `address` into `out` (the runner's:
/// cuTensorMapEncodeTiled through the driver; tests pass a fake).
using TensorMapEncoder = std::function<ptxgen::Status(const tile::TensorMapDesc& map,
                                                      std::uint64_t address, TensorMapBytes& out)>;

/// Packed parameter values. Each parameter has its own slot holding its value in the
/// parameter's width (little-endian, as on the GPU; a tensor map's 128 bytes as encoded);
/// the slots outlive the launch because the caller keeps this object.
class PackedParams {
public:
  /// One pointer per parameter, into this object's slots. Valid while this
  /// object lives and is not modified (moving it keeps them valid too: the
  /// slots live on the heap).
  std::vector<void*> pointers();
  /// Bytes of parameter i: 4 for u32, 8 for u64 and buffer addresses, 128 for a tensor map.
  std::size_t width(std::size_t i) const { return widths_.at(i); }
  std::size_t size() const { return slots_.size(); }

private:
  friend Fallible<PackedParams> pack_kernel_params(const std::vector<KernelParam>&,
                                                   const std::vector<std::uint64_t>&,
                                                   const TensorMapEncoder&);
  /// A CUtensorMap's alignment (64 bytes; alignas(128) in CUDA 13's <cuda.h>).
  struct alignas(128) Slot {
    TensorMapBytes bytes{};
  };
  std::vector<Slot> slots_;
  std::vector<std::size_t> widths_;
};

/// Packs `params`; `buffer_addresses[i]` is the device address passed for a
/// buffer parameter with buffer_index i, and the address `encode` encodes a tensor
/// map parameter's map over. Fails with a message such as "parameter 2
/// refers to buffer 5, but the case has 3 buffers", "parameter 0 is u32 but its
/// value 4294967296 does not fit in 32 bits", or the encoder's failure.
Fallible<PackedParams> pack_kernel_params(const std::vector<KernelParam>& params,
                                          const std::vector<std::uint64_t>& buffer_addresses,
                                          const TensorMapEncoder& encode = {});

} // namespace ptxgen::driver::cuda
