#pragma once
// Parses a cp.async opcode string in any qualifier order ptxas accepts.

#include "emitter/ptx/opcode.hpp"
#include "emitter/support/result.hpp"

#include <string_view>

namespace ptxgen::ptx {

/// Parses e.g. "cp.async.cg.shared.global.L2::128B" (and "cp.async.shared.global.ca").
/// Rejections carry a diagnostic on line 1 whose column and length underline
/// the offending qualifier within `text`. print(*parse_opcode(s)) is canonical.
/// On success, `layout` (when given) receives where each qualifier group was written.
Result<CpAsyncOpcode> parse_opcode(std::string_view text, OpcodeLayout* layout = nullptr);

} // namespace ptxgen::ptx
