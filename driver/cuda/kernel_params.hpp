#pragma once
// Kernel arguments as cuLaunchKernel wants them: an array of pointers, one per
// parameter in declaration order, each pointing at that parameter's value.

#include "emitter/support/result.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver::cuda {

struct KernelParam {
  enum class Kind : std::uint8_t {
    buffer, ///< a .u64 device address: the data start of buffers[buffer_index]
    u32,    ///< a .u32 value; `value` must fit in 32 bits
    u64,    ///< a .u64 value
  };
  Kind kind = Kind::u32;
  std::size_t buffer_index = 0; ///< for Kind::buffer
  std::uint64_t value = 0;      ///< for Kind::u32 and Kind::u64
};

/// Packed parameter values. Each parameter has its own 8-byte slot holding its
/// value in the parameter's width (little-endian, as on the GPU); the slots
/// outlive the launch because the caller keeps this object.
class PackedParams {
public:
  /// One pointer per parameter, into this object's slots. Valid while this
  /// object lives and is not modified (moving it keeps them valid too: the
  /// slots live on the heap).
  std::vector<void*> pointers();
  /// Bytes of parameter i: 4 for u32, 8 for u64 and buffer addresses.
  std::size_t width(std::size_t i) const { return widths_.at(i); }
  std::size_t size() const { return slots_.size(); }

private:
  friend Fallible<PackedParams> pack_kernel_params(const std::vector<KernelParam>&,
                                                   const std::vector<std::uint64_t>&);
  std::vector<std::uint64_t> slots_;
  std::vector<std::size_t> widths_;
};

/// Packs `params`; `buffer_addresses[i]` is the device address passed for a
/// buffer parameter with buffer_index i. Fails with a message such as "parameter 2
/// refers to buffer 5, but the case has 3 buffers" or "parameter 0 is u32 but its
/// value 4294967296 does not fit in 32 bits".
Fallible<PackedParams> pack_kernel_params(const std::vector<KernelParam>& params,
                                          const std::vector<std::uint64_t>& buffer_addresses);

} // namespace ptxgen::driver::cuda
