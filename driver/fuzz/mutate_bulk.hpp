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

} // namespace ptxgen::driver::fuzz::bulk_mutants
