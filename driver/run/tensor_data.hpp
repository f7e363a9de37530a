#pragma once
// Initial contents of a kernel's global tensors for test runs (TensorInit).
//
// Every backend (CUDA runner, simulator, CPU reference) starts from these
// exact bytes, so the generator and the conversions are fixed here:
//  - zero:          every byte 0.
//  - arange_mod:    element i (row-major flat index) holds i % modulus (modulus <= 0 means
//                   plain i), converted to the element type (see encode_integer()).
//  - random(seed):  the bytes of successive splitmix64 outputs, each little-endian:
//                   state += 0x9E3779B97F4A7C15; z = state;
//                   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
//                   z = (z ^ (z >> 27)) * 0x94D049BB133111EB; output z ^ (z >> 31).
//                   The state starts at the seed; output k fills bytes 8k..8k+7.
//  - constant:      every element holds `value`, converted like arange_mod.

#include "emitter/tile/dtype.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <vector>

namespace ptxgen::driver {

/// The initial bytes of a tensor: element_count * element size bytes.
std::vector<std::uint8_t> initial_bytes(const tile::TensorDecl& t);

/// The little-endian bytes of integer `v` as one element of `dtype`:
/// integer and untyped types take v modulo 2^width (two's complement);
/// float16 the nearest IEEE binary16 (round to nearest even; exact for |v| <= 2048;
/// beyond 65519 infinity); bfloat16 the top 16 bits of the float32 (truncation);
/// float32 / float64 the nearest value.
std::vector<std::uint8_t> encode_integer(tile::DType dtype, std::int64_t v);

/// IEEE binary16 bits of integer v, round to nearest even, +-infinity on overflow.
std::uint16_t half_bits_from_integer(std::int64_t v);

/// One step of splitmix64: advances `state`, returns the output (see above).
std::uint64_t splitmix64_next(std::uint64_t& state);

} // namespace ptxgen::driver
