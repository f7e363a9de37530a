#pragma once
// The reference's model of asynchronous memory: per kind of memory access, whose completion
// orders it, which proxy performs it and which memory it reads and writes, as one table
// (docs/design-notes.md, "One model of asynchronous memory"). The proxy rules of the
// reference are derived from it: whether a pair of accesses needs a proxy fence, which fence
// space orders it, and which finding a missing fence is. A new kind of access is one row.

#include "emitter/support/diagnostic.hpp"
#include "emitter/support/enum_names.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <optional>

namespace ptxgen::driver::evaluation::model {

/// A memory access as the hazard checks see it (one tile op can make several: a bulk store
/// reads shared memory and writes global memory).
enum class Access : std::uint8_t {
  cp_async,      ///< apply (cp.async): the copy's shared write
  copy_arrive,   ///< cp.async.mbarrier.arrive: no access of its own
  bulk_load,     ///< cp.async.bulk shared <- global
  tensor_load,   ///< cp.async.bulk.tensor shared <- global
  bulk_store,    ///< cp.async.bulk global <- shared
  tensor_store,  ///< cp.async.bulk.tensor global <- shared
  bulk_wait,     ///< cp.async.bulk.wait_group{.read}: completes, accesses nothing
  generic_load,  ///< ld, the read side of copy
  generic_store, ///< st, copy's write, fill
  mbarrier,      ///< init, arrive, expect_tx, wait: the barrier word only
  proxy_fence,   ///< fence.proxy.async{.space}
  cta_sync,      ///< bar.sync 0
  bulk_reduce,   ///< cp.reduce.async.bulk global <- shared: reads both, combines into global
  tensor_reduce, ///< cp.reduce.async.bulk.tensor global <- shared, as bulk_reduce
};

/// Whose completion makes an access's effect visible to a thread.
enum class Completes : std::uint8_t {
  program_order,   ///< the thread's next op (generic accesses)
  issuing_thread,  ///< the issuing thread's wait_group / bulk_wait only
  barrier_waiters, ///< every thread that waits for the mbarrier phase it completes
  participants,    ///< every thread of the barrier (cta_sync)
};

enum class Proxy : std::uint8_t { none, generic, async };

/// A set of state spaces.
enum Mem : std::uint8_t { no_mem = 0, shared = 1, global = 2, both = shared | global };

struct Row {
  std::string_view name;
  Completes completes_for;
  Proxy proxy;
  Mem reads;
  Mem writes;
};

inline constexpr auto rows = enum_table<Access::tensor_reduce>(std::array<Row, 14>{{
    {"cp.async + commit/wait_group", Completes::issuing_thread, Proxy::generic, global, shared},
    {"cp.async.mbarrier.arrive", Completes::barrier_waiters, Proxy::none, no_mem, no_mem},
    {"bulk load", Completes::barrier_waiters, Proxy::async, global, shared},
    {"tensor load", Completes::barrier_waiters, Proxy::async, global, shared},
    {"bulk store", Completes::issuing_thread, Proxy::async, shared, global},
    {"tensor store", Completes::issuing_thread, Proxy::async, shared, global},
    {"bulk_wait{.read}", Completes::issuing_thread, Proxy::none, no_mem, no_mem},
    {"generic load", Completes::program_order, Proxy::generic, both, no_mem},
    {"generic store, copy, fill", Completes::program_order, Proxy::generic, no_mem, both},
    {"mbarrier op", Completes::barrier_waiters, Proxy::none, no_mem, no_mem},
    {"proxy_fence", Completes::program_order, Proxy::none, no_mem, no_mem},
    {"cta_sync", Completes::participants, Proxy::none, no_mem, no_mem},
    // As a bulk store, and it reads the global bytes it combines into: two reductions of one
    // element do not race (atomic per element: GlobalAccess::reduce), one and any other
    // access of it do until the issuer's bulk_wait.
    {"bulk reduce", Completes::issuing_thread, Proxy::async, both, global},
    {"tensor reduce", Completes::issuing_thread, Proxy::async, both, global},
}});

constexpr const Row& row(Access a) {
  return row_of(rows, a);
}

/// The state spaces a proxy_fence of `space` orders.
constexpr Mem fence_orders(tile::FenceSpace space) {
  return space == tile::FenceSpace::shared_cta ? shared
         : space == tile::FenceSpace::global   ? global
                                               : both;
}

/// Whether a write by `earlier` of `space` memory followed by an access of the same bytes by
/// `later` crosses proxies, so that a proxy_fence ordering `space` must sit between them.
constexpr bool needs_proxy_fence(Access earlier, Access later, Mem space) {
  const Row& e = row(earlier);
  const Row& l = row(later);
  const bool touches = ((l.reads | l.writes) & space) != 0;
  return (e.writes & space) != 0 && touches && e.proxy != Proxy::none && l.proxy != Proxy::none &&
         e.proxy != l.proxy;
}

/// The finding of a missing proxy fence between a generic write of `space` and `later`: the
/// async proxy reading shared bytes (a store's source), writing them (a load's destination),
/// or reading global bytes.
constexpr DiagId missing_fence_id(Access later, Mem space) {
  if (space == global)
    return DiagId::check_proxy_fence_global;
  return (row(later).writes & shared) != 0 ? DiagId::check_proxy_fence_load
                                           : DiagId::check_proxy_fence_missing;
}

/// Whether an access completes for threads other than its issuer without a barrier: a
/// bulk_wait (issuing_thread) orders nothing for another thread, so another thread's access of
/// the bytes after it needs a cta_sync or an mbarrier phase in between.
constexpr bool completes_for_others(Access a) {
  return row(a).completes_for != Completes::issuing_thread &&
         row(a).completes_for != Completes::program_order;
}

} // namespace ptxgen::driver::evaluation::model
