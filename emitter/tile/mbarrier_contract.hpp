#pragma once
// The mbarrier part of the contract (docs/spec-format.md, "mbarriers"): a walk of each
// CTA's ops in program order, every thread of the CTA at the same op, loops at the
// parameters' test values, that counts the arrivals of every barrier's phases exactly as
// PTX does: mbarrier_arrive and copy_arrive with noinc are arrivals; copy_arrive without
// noinc increments the pending count before its deferred arrival, which nets zero.
//
// It proves: a barrier is used only after its mbarrier_init and a cta_sync; each phase
// receives its count of arrivals before a wait closes it and no op gives more
// (contract_mbarrier_count); a thread arrives again only in the phase of its previous
// arrival or after waiting for it, and a barrier is initialised again only when no phase
// is open and a cta_sync followed its last use (contract_mbarrier_reuse); a wait names the
// parity of the phase the waiting thread arrived in, which must be the last completed one
// (for a thread that did not arrive: the last completed phase; contract_mbarrier_parity).
// Transaction bytes: each phase's loads deliver what its expect_tx ops announced
// (contract_mbarrier_tx, _tx_range), a load follows an expect_tx of its phase
// (contract_mbarrier_tx_unexpected), and an expect_tx stays in its phase in every order of
// the threads: after its thread knows the previous phase completed, before one of its
// phase's arrivals (contract_mbarrier_tx_unordered).
//
// The walk assumes what the per-op checks prove first: a barrier view is the same for
// every thread of a CTA, 8 contiguous bytes, inside its tensor.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <span>

namespace ptxgen::tile {

/// True when the kernel has an mbarrier op (the walk below runs only then).
bool uses_mbarriers(const Kernel& k);

/// The work the walk may do (thread-op executions) unless told otherwise.
inline constexpr std::int64_t default_mbarrier_steps = std::int64_t{1} << 26;

/// The walk; adds at most one diagnostic per (rule, op). `max_steps` bounds the work
/// (thread-op executions); a kernel whose walk needs more is refused
/// (contract_mbarrier_too_long at the op where the budget ran out), never accepted
/// unseen.
/// `values`: the parameters' values (as Kernel::env_for takes them; empty: the test values).
void check_mbarrier_phases(const Kernel& k, Diagnostics& out,
                           std::int64_t max_steps = default_mbarrier_steps,
                           std::span<const std::uint64_t> values = {});

} // namespace ptxgen::tile
