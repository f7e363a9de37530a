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

/// The key of `k`'s cached results (driver/run/result_cache.hpp): to_spec_toml(k), which fixes
/// every PTX byte and every run, then where each part was written (file, line, column, text and
/// source line of every op, view, expression, parameter, tensor and expectation), which the
/// diagnostics quote, and what the TOML leaves out (the origin of a pipeline's ops, whether it
/// was built in code, `expect = "fault"`). Two kernels with equal keys get equal diagnostics.
std::string content_key(const tile::Kernel& k);

} // namespace ptxgen::api
