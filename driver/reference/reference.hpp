#pragma once
// The independent CPU reference: evaluates a kernel's ops on host buffers,
// straight from the seed's semantics, without the lowering's arithmetic.
//
// Launch: kernel.grid CTAs of kernel.block threads (grid_dim, block_dim in 3-D;
// tid and bid are the linear indices); warp = tid / 32, lane = tid % 32. Every
// CTA has its own copy of each shared tensor, whose bytes start undefined. CTAs
// run one after the other (that order defines the result); in a CTA, ops run in
// order and for each op each thread (tid ascending) applies its own effect:
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
// Loops: `for` evaluates start, stop and step once at entry (thread 0's values:
// they are CTA-uniform) and repeats the ops up to its `end`.
// Problems found along the way (the reference's own findings, one per op and
// kind with a count and the first instance, which names the thread (CTA, tid;
// its role where its op has one, roles.hpp, and so the other thread of a race),
// the iteration (the live loop variables), the shared tensor's element and the
// byte): a byte outside its tensor (that chunk / element is not written), a read
// of shared bytes a pending copy will write (a wait too loose for that read), a
// read of shared bytes another thread wrote with no cta_sync in between, a copy
// issued or a store into shared bytes another thread read with no cta_sync in
// between (refill without a barrier: the issue of a cp.async counts as its
// write), two pending copies to the same shared bytes, an undefined (never
// written shared) byte reaching a global tensor, copies never waited for,
// ops whose views do not fit together, and two CTAs accessing the same global
// bytes, one writing (with different values where both write: grid_races.hpp).
// Notes (Severity::note; not problems, the spec is valid):
//  - a wait_group stricter than needed: over all its runs, the largest count n'
//    such that completing only the groups older than the newest n' would still
//    serve every read and write of the bytes it landed before the thread's next
//    wait, with the next wait (the end of the kernel counts as one that completes
//    nothing) completing the rest. An empty group (a commit with no copy) is a
//    group of the FIFO like any other.
//  - a `for` whose iterations commit different numbers of groups. No op is
//    conditional, so every thread of a CTA commits the same groups; iterations
//    differ only through a nested loop whose trip count varies.

#include "driver/reference/reference_types.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptxgen::driver {

ReferenceOutput evaluate_reference(const ReferenceInput& in);
/// The same, taking the bytes of in.global instead of copying them where it can (the tensors'
/// final bytes are then built in them): afterwards in.global holds what is left of them, empty
/// vectors among it, and is not an input any more.
ReferenceOutput evaluate_reference(ReferenceInput&& in);

/// The findings as diagnostics (errors and notes, each with its severity): each at its op's
/// position in the spec (the kernel's file for whole-kernel findings), as
/// "running the spec's ops: MESSAGE [check_...]".
Diagnostics findings_as_diagnostics(const tile::Kernel& k, const ReferenceOutput& out);

} // namespace ptxgen::driver
