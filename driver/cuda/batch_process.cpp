#include "driver/cuda/batch_process.hpp"

#include "driver/cuda/fd_io.hpp"
#include "driver/cuda/frame.hpp"
#include "driver/cuda/wire.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ptxgen::driver::cuda {
namespace {

using Clock = std::chrono::steady_clock;
using Status = LaunchOutcome::Status;

/// How long a child that has sent its last outcome may take to close the pipe
/// and exit before it is killed (driver teardown can hang).
constexpr std::chrono::seconds exit_grace{30};

/// Held while a child is spawned (see spawn()).
std::mutex fork_mutex;

/// What the parent sends a child that is to exit (instead of a case index).
constexpr std::uint64_t no_more_cases = ~std::uint64_t{0};

/// The child: runs each case whose index the parent sends on `commands`, one
/// frame each on `fd`, until the parent sends no_more_cases (or is gone) or a
/// case stops it; then exits. Never returns; _exit skips the parent's
/// destructors and atexit handlers.
[[noreturn]] void child_main(int commands, int fd, const BatchWork& work) {
  for (;;) {
    std::uint64_t index = 0;
    if (!read_all(commands, &index, sizeof index) || index == no_more_cases) {
      break;
    }
    BatchFrame frame;
    frame.index = index;
    try {
      BatchStep step = work(static_cast<std::size_t>(index));
      frame.last = step.stop;
      frame.outcome = std::move(step.outcome);
    } catch (...) {
      ::_exit(3); // the parent blames this case: the worker died without an answer
    }
    const std::string body = encode_outcome(frame.outcome); // sent apart: no copy of it
    if (!write_all(fd, frame_head(frame, body.size())) || !write_all(fd, body)) {
      ::_exit(4);
    }
    if (frame.last) {
      break;
    }
  }
  ::close(fd); // EOF for the parent now, even if process teardown is slow
  ::_exit(0);
}

/// Waits for `pid`; kills it if it has not ended within exit_grace.
int reap(pid_t pid) {
  int status = 0;
  const auto deadline = Clock::now() + exit_grace;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      return status;
    }
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

/// One child and its pipe; kills and reaps the child if left alive (say, when
/// on_done throws).
class Child {
public:
  Child(pid_t pid, int fd, int commands) : pid_(pid), fd_(fd), commands_(commands) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      finish();
    }
  }
  int fd() const { return fd_; }
  /// Gives the child its next case (or no_more_cases); false when it is gone.
  /// The channel is a socket, so a dead child is EPIPE, never SIGPIPE.
  bool send(std::uint64_t index) const { return send_all(commands_, &index, sizeof index); }
  void kill() const { ::kill(pid_, SIGKILL); }
  /// Closes the channels and reaps the child; returns its wait status.
  int finish() {
    ::close(fd_);
    ::close(commands_);
    const int status = reap(pid_);
    pid_ = -1;
    return status;
  }

private:
  pid_t pid_;
  int fd_;       ///< the outcomes, from the child
  int commands_; ///< the case indices, to the child
};

/// Why reading from a child stopped.
enum class End : std::uint8_t {
  eof,       ///< the pipe closed (the child exited or died)
  stopped,   ///< the child sent a frame with `last` set
  deadline,  ///< a case (or the exit after the last one) ran out of time
  malformed, ///< the child sent bytes that are not a frame of the expected case
  drained,   ///< no case is left: the child was told to exit
};

LaunchOutcome failed(Status status, const std::string& text) {
  LaunchOutcome out;
  out.status = status;
  out.message = text;
  return out;
}

} // namespace

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    return "was killed by signal " + std::to_string(sig) +
           (name != nullptr ? std::string(" (") + name + ")" : std::string());
  }
  if (WIFEXITED(status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return "ended with wait status " + std::to_string(status);
}

BatchSource in_order(std::size_t count) {
  return [count, next = std::size_t{0}]() mutable -> std::optional<std::size_t> {
    if (next == count) {
      return std::nullopt;
    }
    return next++;
  };
}

std::vector<LaunchOutcome> run_batch_in_children(const std::vector<BatchCase>& cases,
                                                 const BatchWork& work, const BatchDone& on_done) {
  std::vector<LaunchOutcome> results(cases.size());
  run_queue_in_children(cases, in_order(cases.size()), work,
                        [&](std::size_t index, LaunchOutcome& outcome) {
                          results[index] = std::move(outcome);
                          if (on_done) {
                            on_done(index, results[index]);
                          }
                        });
  return results;
}

namespace {

/// A new child running child_main, or why none could be started.
struct Spawned {
  pid_t pid = -1;
  int fd = -1;       ///< the parent's end of the outcome pipe
  int commands = -1; ///< the parent's end of the command socket
  std::string error; ///< set when no child was started
};

Spawned spawn(const BatchWork& work) {
  // Several threads may run queues at once (one per device, `--devices`). A
  // child forked by one of them inherits every descriptor open in the parent
  // at that moment; holding another queue's outcome pipe's write end, it would
  // keep that queue's parent from seeing EOF when its own child dies. So the
  // channels, the fork and the parent's close of the child's ends happen under
  // one lock. (Inherited parent ends do no harm: a child is told to exit with
  // no_more_cases, not by EOF.)
  std::lock_guard<std::mutex> forking(fork_mutex);
  Spawned s;
  int commands[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, commands) != 0) {
    s.error = std::string("socketpair: ") + std::strerror(errno);
    return s;
  }
  int fds[2];
  if (::pipe(fds) != 0) {
    s.error = std::string("pipe: ") + std::strerror(errno);
    ::close(commands[0]);
    ::close(commands[1]);
    return s;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    s.error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {commands[0], commands[1], fds[0], fds[1]}) {
      ::close(fd);
    }
    return s;
  }
  if (pid == 0) {
    ::close(commands[0]);
    ::close(fds[0]);
    child_main(commands[1], fds[1], work);
  }
  ::close(commands[1]);
  ::close(fds[1]);
  s.pid = pid;
  s.fd = fds[0];
  s.commands = commands[0];
  return s;
}

/// The outcome blamed on the case a child was running when it stopped without reporting it.
LaunchOutcome child_failure(End end, const std::string& label, const BatchCase& c, int status,
                            bool died_mid_frame) {
  switch (end) {
  case End::deadline:
    return failed(Status::timed_out, label + ": the worker process did not finish within " +
                                         std::to_string(c.limit.count()) + " ms and was killed");
  case End::malformed:
    return failed(Status::fault,
                  label + ": the worker process sent an unreadable outcome and was killed");
  case End::eof:
    return failed(Status::fault, label + ": the worker process " + describe_wait_status(status) +
                                     (died_mid_frame ? " while reporting its outcome"
                                                     : " before reporting an outcome"));
  case End::drained:
  case End::stopped:
    break;
  }
  unreachable("child_failure(): the child did not fail");
}

} // namespace

void run_queue_in_children(const std::vector<BatchCase>& cases, const BatchSource& source,
                           const BatchWork& work, const QueueDone& on_done) {
  std::optional<std::size_t> current = source(); // the case being run, or the next one
  auto record = [&](LaunchOutcome outcome) {
    on_done(*current, outcome);
    current = source();
  };
  auto label = [&] { return "case " + cases[*current].name; };

  while (current) {
    Spawned spawned = spawn(work);
    if (spawned.pid < 0) {
      record(failed(Status::launch_error,
                    label() + ": could not start a worker process: " + spawned.error));
      continue;
    }
    Child child(spawned.pid, spawned.fd, spawned.commands);

    // The deadline of the case the child is on.
    // (A flag and a time point, not std::optional: g++ 12 warns falsely on it.)
    bool has_deadline = false;
    Clock::time_point deadline{};
    // Gives the child the current case; false when it is gone (it died).
    auto start_case = [&] {
      has_deadline = cases[*current].limit.count() > 0;
      if (has_deadline) {
        deadline = Clock::now() + cases[*current].limit;
      }
      return child.send(*current);
    };

    FrameReader reader;
    End end = End::eof;
    char chunk[65536];
    bool running = start_case();
    while (running && end == End::eof) {
      int wait_ms = -1;
      if (has_deadline) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
          end = End::deadline;
          break;
        }
        wait_ms = static_cast<int>(std::min<long long>(left + 1, 1000));
      }
      pollfd p{child.fd(), POLLIN, 0};
      const int ready = ::poll(&p, 1, wait_ms);
      if (ready < 0 && errno != EINTR) {
        break; // cannot watch the pipe: treat it as closed
      }
      if (ready <= 0) {
        continue; // EINTR or no data yet: check the deadline again
      }
      const ssize_t n = ::read(child.fd(), chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        break; // EOF: the child finished or died
      }
      reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
      BatchFrame frame;
      while (end == End::eof) {
        const FrameReader::Next next = reader.next(frame);
        if (next == FrameReader::Next::incomplete) {
          break;
        }
        if (next == FrameReader::Next::malformed || frame.index != *current) {
          end = End::malformed;
          break;
        }
        if (frame.outcome.status == Status::timed_out) {
          frame.outcome.message += " (the worker process was ended, so later cases still run)";
        }
        // The child gets its next case before this one is judged, so the GPU
        // and the parent's judging overlap.
        const std::size_t finished = *current;
        current = source();
        if (frame.last) {
          end = End::stopped;
        } else if (!current) {
          end = End::drained;
        } else if (!start_case()) {
          running = false; // it died between cases: the next one is blamed below
        }
        on_done(finished, frame.outcome);
        if (!running) {
          break;
        }
      }
    }

    if (end == End::drained) {
      child.send(no_more_cases); // it exits; finish() reaps it (killed past exit_grace)
    } else if (end != End::eof) {
      // Stopped: no need to wait for its teardown. Deadline or garbage: end it.
      child.kill();
    }
    const bool died_mid_frame = reader.partial_bytes() != 0;
    const int status = child.finish();
    if (end != End::drained && end != End::stopped) {
      record(child_failure(end, label(), cases[*current], status, died_mid_frame));
    } // else the next child, if any, takes the rest
  }
}

} // namespace ptxgen::driver::cuda
