#pragma once
// The independent CPU reference: evaluates a kernel's ops on host buffers,
// straight from the seed's semantics, without the lowering's arithmetic.
//
// Launch: kernel.grid CTAs of kernel.block threads (x only); warp = tid / 32,
// lane = tid % 32. Every CTA has its own copy of each shared tensor, whose
// bytes start undefined. Ops run in order; for each op, each CTA, each thread
// (tid ascending) applies its own effect:
//  - apply: pred false -> nothing. Otherwise for each repeat coordinate (row
//    major; at CTA scope the first two coordinates are the thread's warp and
//    lane) the chunk (the last axis, chunk_bytes bytes on both sides, element
//    widths may differ: a bit copy) is queued on the thread. It is performed
//    at the thread's wait that covers its commit group: src_size s copies the
//    first s bytes and zeroes the rest; ignore_src (nonzero) zeroes the chunk.
//  - commit_group closes the thread's open group; wait_group n performs all
//    committed groups but the newest n; wait_all performs everything
//    (it commits first, as in PTX).
//  - cta_sync: a barrier (no effect on pending copies).
//  - fill: byte k of the thread's view (row-major element order, then bytes
//    within the element) becomes pattern[k % pattern.size()]; defined.
//  - copy: element by element, dst element <- the bytes of the src element.
// Problems found along the way (the reference's own findings, one line per op
// and kind with a count and the first instance): a byte outside its tensor
// (that chunk / element is not written), a read of shared bytes a pending copy
// will write, a read of shared bytes another thread wrote with no cta_sync in
// between, an undefined (never written shared) byte reaching a global tensor,
// copies never waited for, and ops whose views do not fit together.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptxgen::driver {

struct ReferenceInput {
  const tile::Kernel* kernel = nullptr;
  /// Initial bytes per global tensor name (missing ones start as zeros, with a problem).
  std::map<std::string, std::vector<std::uint8_t>> global;
};

/// One of the reference's findings, typed.
struct ReferenceFinding {
  DiagId id = DiagId::check_no_kernel;
  std::size_t op = 0;  ///< the op it is about, or ReferenceOutput::kernel_problem
  std::string message; ///< what and the first instance, without the op's name
};

struct ReferenceOutput {
  /// Final bytes of every global tensor.
  std::map<std::string, std::vector<std::uint8_t>> global;
  /// Per byte of each global tensor: false when the byte came from uninitialised shared memory.
  std::map<std::string, std::vector<bool>> defined;
  /// The reference's own findings; empty for a correct kernel.
  std::vector<std::string> problems;
  /// For each problem, the index of the op it is about, or kernel_problem.
  std::vector<std::size_t> problem_ops;
  static constexpr std::size_t kernel_problem = static_cast<std::size_t>(-1);
  /// The same problems, typed (one per line of `problems`, in the same order).
  std::vector<ReferenceFinding> findings;
};

ReferenceOutput evaluate_reference(const ReferenceInput& in);

/// The findings as diagnostics: each at its op's position in the spec (the kernel's file
/// for whole-kernel findings), as "running the spec's ops: MESSAGE [check_...]".
Diagnostics findings_as_diagnostics(const tile::Kernel& k, const ReferenceOutput& out);

} // namespace ptxgen::driver
