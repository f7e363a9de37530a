#pragma once
// Parsing what ptxas prints: diagnostics mapped back to PTX lines, and the
// resource usage that `ptxas -v` reports per entry. Pure functions over text.
//
// Formats (ptxas 13.0):
//   ptxas /tmp/d/kernel.ptx, line 13; error   : Argument 2 of instruction 'cp.async': ...
//   ptxas fatal   : Ptx assembly aborted due to errors
//   ptxas info    : Compiling entry function 'copy_async' for 'sm_90'
//   ptxas info    : Function properties for copy_async
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 8 registers, used 1 barriers, 4096 bytes smem, 360 bytes cmem[0]

#include "driver/ptxas/ptxas.hpp"

#include <string_view>
#include <vector>

namespace ptxgen::driver {

/// The error, fatal and warning lines of `output`, in order; info lines are
/// not messages. A message naming a line gets that line of `ptx` attached
/// (without its line terminator).
std::vector<PtxasMessage> parse_ptxas_messages(std::string_view output, std::string_view ptx);

/// One ResourceUsage per "Compiling entry function" line, in order, filled
/// from the "Used ..." line that follows it and from the "Function properties"
/// block naming it. constant_bytes sums every cmem[N] bank.
std::vector<ResourceUsage> parse_resource_usage(std::string_view output);

} // namespace ptxgen::driver
