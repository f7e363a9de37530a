#pragma once
// The printer: a pure function of a validated AST to deterministic PTX text.

#include "emitter/ptx/module.hpp"

#include <string>

namespace ptxgen::ptx {

/// One instruction without indentation or newline: "@%p1 cp.async.cg.shared.global [%r1], [%rd2],
/// 16;"
std::string print(const Instruction& i);

/// The whole module. `.version` is m.version or, when absent, required_version(m).
std::string print(const Module& m);

} // namespace ptxgen::ptx
