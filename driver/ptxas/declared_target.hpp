#pragma once
// The target a PTX text declares: what `ptxgen asm` assembles a file for without
// --arch, and what `ptxgen run --ptx` simulates it for.

#include "emitter/ptx/target.hpp"

#include <optional>
#include <string_view>

namespace ptxgen::driver {

/// The target of the first `.target` directive (`.target sm_90a, texmode_independent`
/// gives sm_90a); nullopt when there is none or it names no sm_XX target.
std::optional<ptx::Target> declared_target(std::string_view ptx);

} // namespace ptxgen::driver
