#pragma once
// Invalid mutants of generated specs (mutants() in generator.hpp) and the one check both
// the generator's tests and the fuzz loop apply to spec text: what `ptxgen check` does to
// a file (load, contract, lowering, validation, then the reference and the expectations),
// on TOML text in memory.

#include "driver/run/range_proof.hpp"
#include "emitter/support/diagnostic.hpp"

#include <string>
#include <string_view>

namespace ptxgen::driver::fuzz {

/// `ptxgen check` on spec text (the default target, sm_80): every diagnostic it reports
/// (`range`: how the whole-launch checks cover the declared ranges).
Diagnostics check_spec_text(std::string_view toml, std::string display_name,
                            const RangeProofOptions& range = {});

} // namespace ptxgen::driver::fuzz
