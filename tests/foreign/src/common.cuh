// Shared helpers of the foreign-PTX corpus (tests/foreign/): 128 threads per
// CTA, one 16-byte chunk (four u32) per thread per tile. See docs/foreign.md.
#pragma once
#include <cstdint>

namespace corpus {
constexpr unsigned kThreads = 128;
constexpr unsigned kChunkWords = 4; // one 16-byte cp.async chunk
constexpr unsigned kTileWords = kThreads * kChunkWords;
} // namespace corpus

namespace corpus {
/// The thread whose row a thread writes out: the other half of the block
/// (tid ^ 64), so every read crosses warps and needs the barrier, and a spec
/// can state the result as two halves swapped.
__device__ __forceinline__ unsigned partner(unsigned tid) { return tid ^ (kThreads / 2); }
} // namespace corpus
