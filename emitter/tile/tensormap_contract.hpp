#pragma once
// The ordering proof of tensor maps edited in memory (docs/spec-format.md, "Tensor maps
// edited on the device"): every tensor copy through a map slot (`map = VIEW`) reads a map
// that its thread may use. Each edit of the slot (a tensormap_copy into it, a
// tensormap_replace of it) is a generic-proxy write; the copy reads the map through the
// tensormap proxy. Between the two: a release by the editing thread after the edit
// (tensormap_fence sem = "release", or a tensormap_copy with src, which is one), then, when the
// copying thread is another of the CTA, a cta_sync, then an acquire of the slot by the copying
// thread (tensormap_fence sem = "acquire") before the copy. The slot must also hold the map of
// the copy's `tensor`.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

namespace ptxgen::tile {

/// Proves the fence pair before every copy through a slot, for every thread whose pred may
/// hold (a fence counts for the threads whose pred surely holds): contract_tensormap_fence at
/// the copy's `map`, naming the edit's line and thread; contract_tensormap_source for a slot
/// that holds no map or another tensor's. Ops in loops are refused (the proof walks straight
/// code).
void check_tensormap_order(const Kernel& k, Diagnostics& out);

} // namespace ptxgen::tile
