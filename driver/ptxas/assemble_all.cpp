#include "driver/ptxas/assemble_all.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace ptxgen::driver {

std::vector<AssembleResult> assemble_all(const std::filesystem::path& ptxas,
                                         const std::vector<AssembleJob>& jobs,
                                         unsigned parallelism) {
  std::vector<AssembleResult> results(jobs.size());
  if (parallelism == 0)
    parallelism = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::min<std::size_t>(parallelism, jobs.size());
  std::atomic<std::size_t> next{0};
  // Each worker takes the next job index; each result slot is written by one worker only.
  auto work = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++)
      results[i] = assemble(ptxas, jobs[i].ptx, jobs[i].options);
  };
  if (workers <= 1) {
    work();
    return results;
  }
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back(work);
  for (auto& t : threads)
    t.join();
  return results;
}

} // namespace ptxgen::driver
