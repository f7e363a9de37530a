#pragma once
// What a bulk_reduce makes of one element (cp.reduce.async.bulk, PTX ISA): integers wrap,
// min / max compare by the element's signedness, inc / dec are the ISA's (inc: old >= b ? 0 :
// old + 1; dec: old == 0 || old > b ? b : old - 1), and / or / xor act on the bits; float adds
// round to nearest even: .add.f32 flushes subnormal inputs and results to signed zero, .f64 and
// the .noftz.f16 / .noftz.bf16 forms keep them. Float min / max of a NaN give the other operand
// (two NaNs: the canonical NaN). Written apart from the simulator's ALU, against which it is
// compared (docs/ptx-bulk.md, "Bulk reductions").

#include "emitter/tile/dtype.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>

namespace ptxgen::driver::evaluation {

/// `dst` (one element of `t`, little-endian) becomes its reduction with `src` by `k`.
void reduce_element(tile::ReduceKind k, tile::DType t, std::uint8_t* dst, const std::uint8_t* src);

} // namespace ptxgen::driver::evaluation
