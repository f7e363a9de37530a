#pragma once
// The bulk family's mutation rules (mutate_bulk.cpp): typed edits of a model of the bulk
// family (gen_bulk.cpp), each breaking one rule of the bulk/TMA contract or of the
// whole-launch checks; the table in mutate.cpp names the DiagId each must be refused with.

#include "driver/fuzz/gen_rng.hpp"
#include "driver/fuzz/spec_model.hpp"

namespace ptxgen::driver::fuzz::bulk_mutants {

bool unaligned_inner_coord(SpecModel& m, Rng& rng);
bool store_negative_coord(SpecModel& m, Rng& rng);
bool expect_tx_plus_16(SpecModel& m, Rng& rng);
bool store_never_waited(SpecModel& m, Rng& rng);
bool refill_without_read_wait(SpecModel& m, Rng& rng);
bool refill_by_other_thread_without_sync(SpecModel& m, Rng& rng);
bool packed_narrow_swizzle(SpecModel& m, Rng& rng);
bool two_ctas_store_same_bytes(SpecModel& m, Rng& rng);
bool store_without_proxy_fence(SpecModel& m, Rng& rng);
/// The shapes with a generic write before a load (gen_bulk_proxy.cpp): the writers' fence
/// dropped, or narrowed to the other space.
bool load_fill_without_fence(SpecModel& m, Rng& rng);
bool load_fill_fence_global_only(SpecModel& m, Rng& rng);
bool global_write_without_fence(SpecModel& m, Rng& rng);
bool global_fence_shared_only(SpecModel& m, Rng& rng);
/// The read-back of a bulk store's global bytes by every thread without the cta_sync after
/// the storer's wait.
bool readback_without_sync(SpecModel& m, Rng& rng);
/// The storer's read wait before a refill allows one more pending group: the refilled slot
/// may still be read.
bool read_wait_one_group_looser(SpecModel& m, Rng& rng);
/// The bulk loop's wait for phase k with parity 0 in every iteration (right for k = 0 only).
bool loop_parity_constant(SpecModel& m, Rng& rng);
/// The TMA pipeline (gen_bulk_loop.cpp): its full barrier one for every stage; a ring_offset
/// of a whole lap where the barriers are fresh (the producer waits for a release that never
/// comes: a hang); each stage loaded with the next tile (the last one past the end).
bool ring_full_without_stage(SpecModel& m, Rng& rng);
bool ring_offset_lap_ahead(SpecModel& m, Rng& rng);
bool ring_load_next_tile(SpecModel& m, Rng& rng);
/// Every thread copies its row into the global bytes of a bulk store before its wait.
bool copy_over_pending_store(SpecModel& m, Rng& rng);

} // namespace ptxgen::driver::fuzz::bulk_mutants
