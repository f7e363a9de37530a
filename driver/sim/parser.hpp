#pragma once
// PTX text -> the simulator's compact IR (driver/sim/ir.hpp).

#include "driver/sim/ir.hpp"
#include "emitter/support/result.hpp"

#include <memory>
#include <string_view>

namespace ptxgen::sim {

/// Parses a whole PTX module. Syntax errors, undeclared registers and operand
/// width mismatches are Diagnostics (line, column, source line). Instructions
/// the simulator does not execute become ir::Code::unsupported ops.
ptxgen::Result<std::shared_ptr<const ir::Module>> parse_module(std::string_view text);

} // namespace ptxgen::sim
