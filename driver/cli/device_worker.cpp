// `ptxgen device-worker`: the exec'd GPU worker that `run --sanitize` starts
// under compute-sanitizer (driver/cuda/sanitizer_runner.hpp). Internal: not for
// people. It reads LaunchRequests (wire.hpp's encode_requests) from --requests
// FILE (default: standard input), runs them in order with one in-process
// Runner, and writes each outcome as a frame (frame.hpp) to --out FILE
// (default: standard output) as soon as it is known. It stops after a case
// that leaves the context unusable (a fault, a timeout), that frame marked
// `last`, as IsolatedRunner's children do. Files rather than pipes by default
// for the sanitizer: its own output can never mix into the frames.
//
// Exit status: 0 every frame written (whatever the cases' outcomes), 2 usage,
// 3 unreadable or malformed requests, or an outcome that could not be written.

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"
#include "driver/cuda/frame.hpp"
#include "driver/cuda/runner.hpp"
#include "driver/cuda/wire.hpp"
#include "driver/support/atomic_file.hpp"

#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <optional>

#include <fcntl.h>
#include <unistd.h>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;
constexpr std::string_view command = "device-worker";

bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// The requests from `file`, or from standard input when it is empty.
Fallible<std::string> read_requests(const std::string& file) {
  if (!file.empty())
    return driver::read_file(file);
  std::string bytes;
  std::cin >> std::noskipws;
  bytes.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  if (std::cin.bad())
    return Failure{"cannot read the requests from standard input"};
  return bytes;
}

/// Runs the requests, writing each frame to `fd`; the exit status.
int serve(std::vector<driver::cuda::LaunchRequest> requests, int device, const std::string& library,
          int fd) {
  driver::cuda::Runner runner(device,
                              library.empty() ? driver::cuda::default_driver_library : library);
  using Status = driver::cuda::LaunchOutcome::Status;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    driver::cuda::BatchFrame frame;
    frame.index = i;
    frame.outcome = runner.launch(std::move(requests[i]));
    frame.last = !runner.available() || frame.outcome.status == Status::fault ||
                 frame.outcome.status == Status::timed_out;
    if (!write_all(fd, driver::cuda::encode_frame(frame)))
      return command_error(command, exit_environment, "cannot write the outcome frames");
    if (frame.last)
      break;
  }
  return exit_ok;
}

int run_device_worker(const std::vector<std::string>& args) {
  po::options_description opts("options");
  int device = 0;
  std::string requests_file, out_file, library;
  opts.add_options()("help,h", "show this help")("device", po::value(&device)->default_value(0),
                                                 "CUDA device ordinal")(
      "requests", po::value(&requests_file), "read the requests from FILE (default: stdin)")(
      "out", po::value(&out_file), "write the outcome frames to FILE (default: stdout)")(
      "driver-library", po::value(&library), "the CUDA driver library to open (tests)");
  std::vector<std::string> positional;
  po::variables_map vm;
  auto help = [&opts] {
    std::cout << "usage: ptxgen device-worker [--device N] [--requests FILE] [--out FILE]\n\n"
                 "Internal: the GPU worker that `ptxgen run --sanitize TOOL` runs under\n"
                 "compute-sanitizer, one process per case. Reads encoded launch requests,\n"
                 "writes encoded outcome frames.\n\n"
              << opts;
  };
  if (auto status = parse_command_line(command, args, opts, positional, vm, help))
    return *status;
  if (!positional.empty())
    return usage_error(command, "unexpected argument '" + positional.front() + "'");
  auto bytes = read_requests(requests_file);
  if (!bytes)
    return command_error(command, exit_environment, bytes.error());
  auto requests = driver::cuda::decode_requests(*bytes);
  if (!requests)
    return command_error(command, exit_environment, "the requests are truncated or malformed");
  int fd = STDOUT_FILENO;
  if (!out_file.empty()) {
    fd = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
      return command_error(command, exit_environment, "cannot create '" + out_file + "'");
  }
  const int status = serve(std::move(*requests), device, library, fd);
  if (fd != STDOUT_FILENO && ::close(fd) != 0)
    return command_error(command, exit_environment, "cannot write '" + out_file + "'");
  return status;
}

} // namespace

PTXGEN_REGISTER_COMMAND(device_worker, "device-worker",
                        "(internal) the GPU worker that run --sanitize starts", run_device_worker);

} // namespace ptxgen::cli
