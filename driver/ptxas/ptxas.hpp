#pragma once
// Locating and running ptxas: argument vector, never a shell; temporary files
// in a private directory; a time limit.

#include "driver/ptxas/assembly.hpp"
#include "emitter/ptx/target.hpp"
#include "emitter/support/result.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver {

/// Looks in order: `explicit_path` (from --ptxas; empty when not given), the
/// PTXGEN_PTXAS environment variable, the toolkit found at configure time,
/// then PATH. An explicit path or variable that does not name an executable
/// file is an error, not a fall-through; so is finding none.
Fallible<PtxasLocation> locate_ptxas(const std::string& explicit_path);

/// Assembles `ptx` text for options.target with the ptxas at `ptxas`.
AssembleResult assemble(const std::filesystem::path& ptxas, std::string_view ptx,
                        const AssembleOptions& options);

/// Assembles an empty kernel whose PTX declares `.target ptx_target` for
/// `arch` (as the real PTX will be). A ptxas that cannot is broken, or does not
/// know `arch`: whatever it says about the real PTX then means nothing, so a
/// caller that cannot tell a rejection from a broken tool checks this first.
AssembleResult self_test(const std::filesystem::path& ptxas, ptx::Target ptx_target,
                         ptx::Target arch);

} // namespace ptxgen::driver
