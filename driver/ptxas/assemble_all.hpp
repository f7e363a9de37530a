#pragma once
// Assembling many PTX texts at once on worker threads (ptxas is single-threaded).

#include "driver/ptxas/ptxas.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace ptxgen::driver {

struct AssembleJob {
  std::string ptx;
  AssembleOptions options;
};

/// Runs assemble() for every job with at most `parallelism` ptxas processes
/// at a time (0: the hardware concurrency). Results are in job order.
std::vector<AssembleResult> assemble_all(const std::filesystem::path& ptxas,
                                         const std::vector<AssembleJob>& jobs,
                                         unsigned parallelism);

} // namespace ptxgen::driver
