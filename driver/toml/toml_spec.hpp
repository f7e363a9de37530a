#pragma once
// The spec loader: a TOML spec file (format: DESIGN.md, "Spec files") to the kernel IR.
//
//   [kernel]        name (identifier, required), grid (1..2^31-1, default 1), block (1..1024,
//   required) [tensor.NAME]   space = "global" | "shared" (required), shape = [n, ...] (required),
//                   dtype (required; tile::parse_dtype spellings), align (power of two;
//                   global 1..4096, default 16; shared 16..4096, default 128),
//                   layout = "default" (the only one), and for global tensors only:
//                   init = "zero" | "0" | "arange % M" | "random(SEED)" | "constant(V)"
//                   (default zero), output = true | false (default false)
//   [param.NAME]    dtype = "u32" | "u64" (required), value (required; an integer that
//                   fits the type; a u64 may also be a string "0x..." or decimal for
//                   values above 2^63-1), range = [lo, hi] (optional; value must lie inside)
//   [[op]]          op = "apply" | "commit_group" | "wait_group" | "wait_all" | "cta_sync" |
//                   "fill" | "copy", in program order:
//     apply         opcode, dst, src (strings), chunk_bytes (integer literal, required),
//                   scope = "thread" | "cta", src_size (integer or expression string),
//                   ignore_src / pred (boolean or expression string), cache_policy:
//                   "NAME" or "param:NAME" (a u64 parameter), "createpolicy(P[, S][, F])",
//                   or a table { param = "NAME" } / { primary = P, secondary = S, fraction = F }
//                   (P: evict_last|evict_normal|evict_first|evict_unchanged, S: evict_first|
//                   evict_unchanged, F in (0, 1], default 1; an `L2::` prefix is accepted)
//     wait_group    n (integer >= 0, required)
//     fill          dst (view string), pattern: a byte 0..255, an array of bytes, or a
//                   hex string "0xDEADBEEF" whose bytes repeat in the written order
//                   (DE AD BE EF DE ...); at most 256 bytes
//     copy          dst, src (view strings)
//     pipeline      var, start, stop (as a `for`'s; the tiles advance by 1), stages (2..8,
//                   required), unroll, stage_var (default "stage"); [[op.load]] tables
//                   (applies: one tile's loads; `var` is the tile loaded, stage_var its
//                   slot) and [[op.body]] tables (copy, fill: one tile's consumer); expanded
//                   into plain ops by tile::expand_pipeline (emitter/tile/pipeline.hpp)
//   [[expect]]      that = "LEFT == RIGHT" (required): LEFT a view of a global tensor with
//                   only .sub[...] steps of constant entries; RIGHT such a view of the same
//                   shape and element size (two whole tensors: the same byte size), an
//                   integer LEFT's element type holds exactly,
//                   or `sentinel` (LEFT's initial bytes); see tile::Expectation
//
// Limits with clear messages: a global tensor at most 2^40 bytes; all shared tensors
// together (each aligned) at most ptx::max_dynamic_shared_bytes_any_target() (232448 bytes);
// the contract checks the target's own limit.
//
// Tensors and parameters are loaded first (in file order, whatever the table order),
// then ops, so ops may name anything declared anywhere. Every error is a Diagnostic
// with file:line:col, also inside view, expression, opcode and cache-policy strings:
// a single-line string without escapes maps its characters to file columns exactly;
// a multi-line or escaped string reports at its opening quote. Loading goes on
// after an error (next key, next table, next op) so that one run reports all it can;
// diagnostics come back sorted by position.
//
// The reader checks only the TOML: value types, unknown and missing keys, and the
// spelling of enums. Every rule of a kernel (names, sizes, ranges, loops, pipelines,
// operands, expectations) is build::Builder's (emitter/build/builder.hpp), which the
// reader calls with the file position of each value; the C++ API calls the same one.

#include "emitter/support/result.hpp"
#include "emitter/tile/kernel.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace ptxgen::driver {

/// Loads a spec file; `path` as given is the file name in diagnostics.
Result<std::unique_ptr<tile::Kernel>> load_spec_file(const std::filesystem::path& path);

/// Loads spec text; `display_name` is the file name in diagnostics and Kernel::file.
Result<std::unique_ptr<tile::Kernel>> load_spec_text(std::string_view text,
                                                     std::string display_name);

} // namespace ptxgen::driver
