#pragma once
// The proofs about views of a peer CTA's shared tensor (`S@rank`, distributed shared memory;
// docs/spec-format.md, "Clusters"), for every thread and every value of the declared ranges:
//
//  - the rank names a CTA of the cluster: 0..cluster_size-1 (contract_peer_rank, with the
//    rank where it fails);
//  - no peer's shared memory is accessed after that peer may have exited: a cluster_sync that
//    is not relaxed lies between every peer access and the end of the kernel, on every path
//    (contract_peer_exit). Every CTA runs the same ops, so the barrier that the accessing CTA
//    waits on before it ends is the one the peer arrives on before it ends.
//
// Whether a peer's access and the owner's access of the same bytes are ordered (a
// cluster_sync of both between them) is the reference's finding
// (check_cluster_shared_race): it depends on which bytes each thread reaches.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <string_view>

namespace ptxgen::tile {

/// The rank of a peer view (`S@rank`) in 0..cluster_size-1 for every thread and declared
/// value: by interval arithmetic over `lb`, and where that does not prove it and the rank
/// names no parameter or loop variable, for each thread of the launch. Nothing for a view of
/// the CTA's own tensor. With `pred` (an op's, a remote arrival's or a peer copy's), only the
/// threads where it may hold: the bounds narrowed by it, the threads where it is false skipped.
void check_peer_rank(const Kernel& k, const LaunchBounds& lb, const Located<View>& v,
                     std::string_view role, Diagnostics& out, const Expr* pred = nullptr);

/// A non-relaxed cluster_sync after the last peer access of every path to the kernel's end.
void check_peer_exit(const Kernel& k, Diagnostics& out);

} // namespace ptxgen::tile
