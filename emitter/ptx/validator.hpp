#pragma once
// The validator: a side-effect-free query over the AST. Every rule of
// docs/ptx-rules.md has its own DiagId and a message that says what was expected.
// Operand rules come from each instruction's declaration (instruction.hpp);
// the rules about an instruction as a whole are its semantics (validator.cpp);
// targets and versions come from the feature table only (feature.hpp).

#include "emitter/ptx/module.hpp"
#include "emitter/support/diagnostic.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace ptxgen::ptx {

/// The largest N ptxgen accepts in `cp.async.wait_group N` (ptxas accepts any integer).
/// The one wait_group limit: the spec loader and the tile contract use it too.
inline constexpr std::int64_t max_wait_group = 64;

/// The largest expected arrival count of `mbarrier.init` (the manual's 2^20 - 1).
inline constexpr std::int64_t max_mbarrier_count = (std::int64_t{1} << 20) - 1;
/// The size and alignment in bytes of an mbarrier object in shared memory.
inline constexpr std::int64_t mbarrier_bytes = 8;

/// The largest byte count of one bulk copy or bulk prefetch (2^20 - 16; ptxas 13.0
/// refuses a larger immediate); a size is also a multiple of bulk_granule.
inline constexpr std::int64_t max_bulk_bytes = (std::int64_t{1} << 20) - 16;
/// Bulk copies move whole 16-byte granules: sizes and addresses are multiples of this.
inline constexpr std::int64_t bulk_granule = 16;
/// The largest transaction count one expect_tx may add (the manual's tx-count range,
/// 2^20 - 1; ptxas 13.0 takes any immediate).
inline constexpr std::int64_t max_tx_count = (std::int64_t{1} << 20) - 1;

/// One rule broken by an instruction, with the cp.async opcode qualifier it is about
/// (OpcodePart::none when it is about an operand or the instruction as a whole).
struct Finding {
  Diagnostic diagnostic;
  OpcodePart part = OpcodePart::none;
};

/// Checks one instruction for `target` at `version`; an empty result means valid.
std::vector<Finding> check(const Instruction& i, Target target, PtxVersion version);

/// The diagnostics of check().
Diagnostics validate(const Instruction& i, Target target, PtxVersion version);

/// Checks that `target` and `version` are ones ptxas knows and that the version is at
/// least the target's own minimum (sm_90 needs 7.8). validate(Module) calls it.
Diagnostics validate_target_version(Target target, PtxVersion version);

/// Checks a whole module: each instruction, declarations, the registers and symbols each
/// instruction names, and the version against every feature.
Diagnostics validate(const Module& m);

/// The lowest `.version` the module's target and every feature it uses allow.
PtxVersion required_version(const Module& m);

} // namespace ptxgen::ptx
