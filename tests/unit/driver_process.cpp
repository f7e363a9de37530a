// run_process: argv passed literally, output captured, exit codes, signals,
// time limits that kill the whole process group, and spawn failures.

#include "driver/support/process.hpp"
#include "driver/support/temp_dir.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <sys/stat.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_driver_process {

namespace fs = std::filesystem;
using ptxgen::driver::ProcessOptions;
using ptxgen::driver::ProcessResult;
using ptxgen::driver::run_process;
using ptxgen::driver::TempDir;
using Status = ProcessResult::Status;
using namespace std::chrono_literals;

namespace {

ProcessOptions with_timeout(std::chrono::milliseconds t) {
  ProcessOptions o;
  o.timeout = t;
  return o;
}

TempDir make_dir() {
  auto d = TempDir::create("ptxgen-test-process-");
  REQUIRE_MESSAGE(d, d.error());
  return std::move(*d);
}

void write_script(const fs::path& p, const std::string& text, fs::perms perms) {
  std::ofstream(p) << text;
  fs::permissions(p, perms);
}

/// True when `pid` no longer runs: gone, or a zombie nobody has reaped yet.
bool process_gone(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat)
    return true;
  std::string line;
  std::getline(stat, line);
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

} // namespace

TEST_CASE("exit statuses are reported as the child gave them") {
  auto t = run_process("/bin/true", {}, with_timeout(10s));
  CHECK(t.status == Status::exited);
  CHECK(t.exit_code == 0);
  CHECK(t.succeeded());

  auto f = run_process("/bin/false", {}, with_timeout(10s));
  CHECK(f.status == Status::exited);
  CHECK(f.exit_code == 1);
  CHECK_FALSE(f.succeeded());
  CHECK(f.describe() == "exited with status 1");

  auto e = run_process("/bin/sh", {"-c", "exit 42"}, with_timeout(10s));
  CHECK(e.status == Status::exited);
  CHECK(e.exit_code == 42);
}

TEST_CASE("stdout and stderr are captured together, in order") {
  auto r = run_process("/bin/sh", {"-c", "echo out; echo err >&2; echo out2"}, with_timeout(10s));
  CHECK(r.status == Status::exited);
  CHECK(r.output == "out\nerr\nout2\n");
  CHECK_FALSE(r.output_truncated);
}

TEST_CASE("arguments are passed literally: no shell sees them") {
  TempDir dir = make_dir();
  const fs::path marker = dir.path() / "pwned";
  const std::vector<std::string> args = {
      "%s|\n", "a b;$(touch " + marker.string() + ")", "`touch " + marker.string() + "`",
      "",      "quote ' and \" and \\ and * ? ~ > x",  "line\nbreak",
  };
  auto r = run_process("/usr/bin/printf", args, with_timeout(10s));
  REQUIRE(r.status == Status::exited);
  CHECK(r.exit_code == 0);
  // printf repeats the format for each remaining argument.
  std::string expected;
  for (std::size_t i = 1; i < args.size(); ++i)
    expected += args[i] + "|\n";
  CHECK(r.output == expected);
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("stdin is /dev/null, so a reader of stdin ends at once") {
  auto r = run_process("/bin/cat", {}, with_timeout(10s));
  CHECK(r.status == Status::exited);
  CHECK(r.exit_code == 0);
  CHECK(r.output.empty());
}

TEST_CASE("a child killed by a signal is reported with the signal's name") {
  auto r = run_process("/bin/sh", {"-c", "echo before; kill -SEGV $$"}, with_timeout(10s));
  CHECK(r.status == Status::signaled);
  CHECK(r.signal == SIGSEGV);
  CHECK(r.output == "before\n");
  CHECK(r.describe() == "was killed by signal " + std::to_string(SIGSEGV) + " (SIGSEGV)");

  auto a = run_process("/bin/sh", {"-c", "kill -ABRT $$"}, with_timeout(10s));
  CHECK(a.status == Status::signaled);
  CHECK(a.signal == SIGABRT);
}

TEST_CASE("signal names") {
  CHECK(ptxgen::driver::signal_name(SIGKILL) == "SIGKILL");
  CHECK(ptxgen::driver::signal_name(SIGSEGV) == "SIGSEGV");
  CHECK(ptxgen::driver::signal_name(100000) == "signal 100000");
}

TEST_CASE("a time limit kills a hanging child quickly") {
  auto start = std::chrono::steady_clock::now();
  auto r = run_process("/bin/sleep", {"100"}, with_timeout(200ms));
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.status == Status::timed_out);
  CHECK(elapsed >= 0.19);
  CHECK(elapsed < 60.0); // a hang guard: the child sleeps 100 s
  CHECK(r.describe() == "did not finish in time and was killed");
}

TEST_CASE("a time-out kills the child's whole process group") {
  // The shell prints its background child's pid, then waits on it.
  auto r = run_process("/bin/sh", {"-c", "sleep 100 & echo $!; wait"}, with_timeout(1000ms));
  CHECK(r.status == Status::timed_out);
  REQUIRE_FALSE(r.output.empty());
  long grandchild = std::stol(r.output);
  REQUIRE(grandchild > 0);
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = process_gone(grandchild);
    if (!gone)
      std::this_thread::sleep_for(10ms);
  }
  CHECK_MESSAGE(gone, "the background sleep " << grandchild << " survived the time-out");
}

TEST_CASE("a grandchild holding the output pipe does not keep the caller waiting") {
  // The shell exits at once; its background sleep still has the pipe open.
  auto r = run_process("/bin/sh", {"-c", "sleep 100 & echo $!"}, with_timeout(20s));
  CHECK(r.status == Status::exited);
  CHECK(r.exit_code == 0);
  REQUIRE_FALSE(r.output.empty());
  long grandchild = std::stol(r.output);
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = process_gone(grandchild);
    if (!gone)
      std::this_thread::sleep_for(10ms);
  }
  CHECK(gone);
}

TEST_CASE("spawn failures are failed_to_start with errno") {
  TempDir dir = make_dir();

  auto missing = run_process(dir.path() / "no-such-program", {}, with_timeout(10s));
  CHECK(missing.status == Status::failed_to_start);
  CHECK(missing.error_number == ENOENT);
  CHECK(missing.describe() == "could not be started: No such file or directory");

  auto directory = run_process(dir.path(), {}, with_timeout(10s));
  CHECK(directory.status == Status::failed_to_start);
  CHECK(directory.error_number == EACCES);

  const fs::path plain = dir.path() / "not-executable";
  write_script(plain, "#!/bin/sh\nexit 0\n", fs::perms::owner_read | fs::perms::owner_write);
  auto not_exec = run_process(plain, {}, with_timeout(10s));
  CHECK(not_exec.status == Status::failed_to_start);
  CHECK(not_exec.error_number == EACCES);

  // An executable text file without "#!" is not handed to a shell.
  const fs::path no_shebang = dir.path() / "no-shebang";
  write_script(no_shebang, "touch " + (dir.path() / "ran").string() + "\n", fs::perms::owner_all);
  auto r = run_process(no_shebang, {}, with_timeout(10s));
  CHECK(r.status == Status::failed_to_start);
  CHECK(r.error_number == ENOEXEC);
  CHECK_FALSE(fs::exists(dir.path() / "ran"));

  // PATH is not searched: a bare name is a path relative to the working directory.
  auto bare = run_process("ptxgen-surely-not-a-program-here", {}, with_timeout(10s));
  CHECK(bare.status == Status::failed_to_start);
  CHECK(bare.error_number == ENOENT);
}

TEST_CASE("output beyond the cap is discarded, and the child still finishes") {
  ProcessOptions o = with_timeout(20s);
  o.max_output_bytes = 1000;
  auto r = run_process("/bin/sh", {"-c", "head -c 300000 /dev/zero; echo tail"}, o);
  CHECK(r.status == Status::exited);
  CHECK(r.exit_code == 0);
  CHECK(r.output.size() == 1000);
  CHECK(r.output_truncated);
  CHECK(r.output == std::string(1000, '\0'));
}

TEST_CASE("concurrent runs each get their own output, without waiting for each other") {
  // Long-lived children are spawned while short ones run on other threads: a
  // short run must neither see another run's output nor wait for a sleeper. A run
  // that waited would take most of a sleeper's 8 s; half of it is the hang guard.
  std::atomic<bool> all_ok{true};
  std::atomic<int> slow{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&] {
      auto r = run_process("/bin/sleep", {"8"}, with_timeout(30s));
      if (!r.succeeded())
        all_ok = false;
    });
  for (int i = 0; i < 2; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 30; ++k) {
        std::string word = std::to_string(i) + "-" + std::to_string(k);
        auto r = run_process("/bin/echo", {word}, with_timeout(20s));
        if (!r.succeeded() || r.output != word + "\n")
          all_ok = false;
        if (r.seconds > 4.0)
          ++slow;
      }
    });
  for (auto& t : threads)
    t.join();
  CHECK(all_ok);
  CHECK(slow == 0);
}

} // namespace unit_driver_process
