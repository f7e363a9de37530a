#pragma once
// A kernel (built in C++ or loaded) written back as a spec file: what the loader
// reads to the same kernel (the same PTX, the same runs). Used to run a C++ kernel
// through `ptxgen run`'s conformance machinery, which takes spec files.

#include "emitter/tile/kernel.hpp"

#include <string>

namespace ptxgen::api {

/// The TOML spec of `k` (docs/spec-format.md): [kernel], [param.*], [tensor.*], the
/// ops in order (views and expressions in their spec spelling) and [[expect]].
std::string to_spec_toml(const tile::Kernel& k);

} // namespace ptxgen::api
