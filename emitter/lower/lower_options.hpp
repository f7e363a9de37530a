#pragma once
// How lower() is asked to lower a kernel, apart from lower() itself (lower.hpp), so that the
// lowering's own class (lowerer.hpp) need not include the header of its caller.

#include "emitter/ptx/target.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::lower {

struct LowerOptions {
  ptx::Target target{80, false};
  std::optional<ptx::PtxVersion> version; ///< explicit `.version`; else the lowest that works
  std::vector<std::string> header_comments;
  /// The target the PTX will be assembled for and run on, when it differs from
  /// `target` (`ptxgen run` emits sm_80 PTX and assembles it for the device):
  /// shared memory is limited by that machine, not by the `.target`.
  std::optional<ptx::Target> run_target;
  /// Skip the contract and let validator errors through as warnings: only for
  /// showing on a device what the contract prevents (`ptxgen run --unchecked`).
  bool unchecked = false;
  /// Lower for tile::min_target(kernel) when `target` is older (a kernel of sm_90 ops under
  /// a default --target); the caller's choice otherwise, which the feature gates then judge.
  bool raise_target = false;
  /// Where the loop form is written as text once the loop passes ran
  /// (`ptxgen emit --dump-loops`); nowhere when null.
  std::ostream* dump_loop_form = nullptr;
};

} // namespace ptxgen::lower
