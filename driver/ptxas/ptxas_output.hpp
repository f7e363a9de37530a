#pragma once
// Parsing what ptxas prints: diagnostics mapped back to PTX lines, and the
// resource usage that `ptxas -v` reports per entry. Pure functions over text.
// ptxas_diagnostics() turns the messages into ptxgen's Diagnostics (DiagIds
// run_ptxas_rejected and run_ptxas_warning), the one conversion that `asm`,
// `run` and the C++ API's assemble() share.
//
// Formats (ptxas 13.0):
//   ptxas /tmp/d/kernel.ptx, line 13; error   : Argument 2 of instruction 'cp.async': ...
//   ptxas fatal   : Ptx assembly aborted due to errors
//   ptxas info    : Compiling entry function 'copy_async' for 'sm_90'
//   ptxas info    : Function properties for copy_async
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 8 registers, used 1 barriers, 4096 bytes smem, 360 bytes cmem[0]

#include "driver/ptxas/assembly.hpp"
#include "emitter/support/diagnostic.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver {

/// The error, fatal and warning lines of `output`, in order; info lines are
/// not messages. A message naming a line gets that line of `ptx` attached
/// (without its line terminator).
std::vector<PtxasMessage> parse_ptxas_messages(std::string_view output, std::string_view ptx);

/// ptxas's closing line after every failing run ("Ptx assembly aborted due to errors"):
/// no news when another message says why.
bool is_abort_summary(const PtxasMessage& m);

/// Where the PTX that ptxas read came from, for ptxas_diagnostics().
struct PtxOrigin {
  /// The .ptx file (or the name a caller gives its PTX); with `emitted`, the spec
  /// the PTX was emitted from. Empty: no file.
  std::string file;
  /// The PTX exists only in memory, emitted from the spec `file`: a PTX line is no
  /// line of the spec, so the diagnostics name the spec without a position and say
  /// the PTX line (number and text) in their message.
  bool emitted = false;
};

/// What ptxas said about the PTX, as diagnostics, in ptxas's order:
/// run_ptxas_rejected (an error) for each error or fatal line, run_ptxas_warning (a
/// warning) for each warning line, at the PTX line ptxas names: column and caret
/// over the line's text without its indentation, source_line the line. Each message
/// ends with "(ptxas -arch=ARCH)". ptxas's closing "Ptx assembly aborted due to
/// errors" is left out when other messages say why; a rejection with no message
/// ptxgen recognises is one run_ptxas_rejected holding r.describe(). A ptxas that
/// could not run (crashed, timed out, ...) gives nothing: that is not about the PTX.
Diagnostics ptxas_diagnostics(const AssembleResult& r, const PtxOrigin& origin, ptx::Target arch);

/// One ResourceUsage per "Compiling entry function" line, in order, filled
/// from the "Used ..." line that follows it and from the "Function properties"
/// block naming it. constant_bytes sums every cmem[N] bank.
std::vector<ResourceUsage> parse_resource_usage(std::string_view output);

} // namespace ptxgen::driver
