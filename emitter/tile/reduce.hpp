#pragma once
// A bulk_reduce's element type: which cp.reduce.async.bulk `.type` a view's dtype and a
// reduction make, when the pair is a PTX form at all (docs/ptx-bulk.md, "Bulk reductions").

#include "emitter/ptx/bulk.hpp"
#include "emitter/tile/dtype.hpp"
#include "emitter/tile/kernel.hpp"

#include <optional>

namespace ptxgen::tile {

/// The PTX reduction of a ReduceKind (the two enums spell the same words).
ptx::BulkRedOp ptx_reduce_op(ReduceKind k);

/// The `.type` of a bulk_reduce of elements of `t` with `k`: the typed one for arithmetic
/// (add, min, max, inc, dec), `.b32` / `.b64` for the bitwise ones on any integer of that
/// width; nullopt when cp.reduce.async.bulk has no such form (add.s64, min.f32, inc.s32,
/// an untyped add, anything on 8- or 16-bit integers, ...).
std::optional<ptx::BulkRedType> reduce_ptx_type(ReduceKind k, DType t);

/// The element `.type` of a tensor_reduce of a map of `t` with `k`, when
/// cp.reduce.async.bulk.tensor has it: the ISA's table for the tensor form, which is
/// reduce_ptx_type's without add.f64 (the instruction names no type, so ptxas cannot check
/// it: the map's dtype decides at run time).
std::optional<ptx::BulkRedType> tensor_reduce_ptx_type(ReduceKind k, DType t);

/// "add.f32", "add.noftz.f16", "and.b32": the qualifiers a form is written with.
std::string reduce_form_text(ReduceKind k, ptx::BulkRedType t);

} // namespace ptxgen::tile
