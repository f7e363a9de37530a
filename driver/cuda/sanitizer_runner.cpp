#include "driver/cuda/sanitizer_runner.hpp"

#include "driver/cuda/frame.hpp"
#include "driver/cuda/wire.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/support/process.hpp"
#include "driver/support/temp_dir.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

namespace ptxgen::driver::cuda {

namespace {

/// The last `n` bytes of a process's output, for a message.
std::string tail(const std::string& text, std::size_t n = 2000) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

/// An outcome that says the case did not run to an answer, and why.
LaunchOutcome broken(LaunchOutcome::Status status, const LaunchRequest& request,
                     const std::string& why) {
  LaunchOutcome o;
  o.status = status;
  o.message = "case " + request.case_name + ": " + why;
  return o;
}

/// The worker's outcome from its output file; nullopt when there is none whole.
std::optional<LaunchOutcome> read_outcome(const std::filesystem::path& file) {
  auto bytes = read_file(file);
  if (!bytes)
    return std::nullopt;
  FrameReader reader;
  reader.feed(*bytes);
  BatchFrame frame;
  if (reader.next(frame) != FrameReader::Next::frame || frame.index != 0)
    return std::nullopt;
  return std::move(frame.outcome);
}

SanitizedOutcome run_one(LaunchRequest request, const SanitizeOptions& o) {
  SanitizedOutcome out;
  out.report.tool = o.tool;
  auto dir = TempDir::create("ptxgen-sanitize-");
  if (!dir) {
    out.outcome = broken(LaunchOutcome::Status::unavailable, request, dir.error());
    out.report.problem = dir.error();
    return out;
  }
  const auto log = dir->path() / "sanitizer.log";
  const auto requests = dir->path() / "request.bin";
  const auto outcomes = dir->path() / "outcome.bin";
  request.timeout = o.limit / 2; // the kernel's own limit, well inside the process's
  if (auto written = write_file_atomically(requests, encode_requests({request})); !written) {
    out.outcome = broken(LaunchOutcome::Status::unavailable, request, written.error());
    out.report.problem = written.error();
    return out;
  }
  ProcessOptions po;
  po.timeout = o.limit;
  po.max_output_bytes = std::size_t{1} << 20;
  const ProcessResult p =
      run_process(o.sanitizer, sanitizer_arguments(o, log, requests, outcomes), po);
  auto text = read_file(log); // a missing log parses as "not checked"
  out.report = parse_sanitizer_log(o.tool, text ? *text : std::string());
  const std::string what =
      "compute-sanitizer " + std::string(name(o.tool)) + " (" + o.sanitizer.string() + ")";
  if (p.status == ProcessResult::Status::timed_out) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(o.limit).count();
    out.outcome = broken(LaunchOutcome::Status::timed_out, request,
                         what + " did not finish within " + std::to_string(seconds) +
                             " s; its process group was killed");
    if (!out.report.checked)
      out.report.problem = "killed after " + std::to_string(seconds) + " s";
    return out;
  }
  if (auto got = read_outcome(outcomes)) {
    out.outcome = std::move(*got);
    out.worker_answered = true;
  } else {
    out.outcome = broken(LaunchOutcome::Status::unavailable, request,
                         what + " " + p.describe() +
                             " without the worker's outcome; output: " + tail(p.output));
  }
  if (!out.report.checked)
    out.report.problem = what + " " + p.describe() + "; " + out.report.problem;
  return out;
}

} // namespace

std::vector<std::string> sanitizer_arguments(const SanitizeOptions& o,
                                             const std::filesystem::path& log,
                                             const std::filesystem::path& requests,
                                             const std::filesystem::path& outcomes) {
  std::vector<std::string> args = {"--tool",          std::string(name(o.tool)),
                                   "--print-limit",   std::to_string(o.print_limit),
                                   "--log-file",      log.string(),
                                   o.worker.string(), "device-worker",
                                   "--device",        std::to_string(o.device),
                                   "--requests",      requests.string(),
                                   "--out",           outcomes.string()};
  if (!o.driver_library.empty()) {
    args.push_back("--driver-library");
    args.push_back(o.driver_library);
  }
  return args;
}

std::vector<SanitizedOutcome>
run_sanitized(std::vector<LaunchRequest> requests, const SanitizeOptions& options,
              const std::function<void(std::size_t, const SanitizedOutcome&)>& on_done) {
  std::vector<SanitizedOutcome> results(requests.size());
  std::atomic<std::size_t> next{0};
  std::mutex done_mutex;
  auto worker = [&] {
    for (std::size_t i; (i = next++) < requests.size();) {
      results[i] = run_one(std::move(requests[i]), options);
      if (on_done) {
        std::lock_guard<std::mutex> lock(done_mutex);
        on_done(i, results[i]);
      }
    }
  };
  const std::size_t threads = std::min<std::size_t>(std::max(1u, options.jobs), requests.size());
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  for (auto& t : pool)
    t.join();
  return results;
}

} // namespace ptxgen::driver::cuda
