// The multi-device dispatcher (driver/run/shard.hpp's hand_out) without a GPU:
// fake devices, each running the cases it takes from the shared queue in forked
// children (batch_process.hpp's run_queue_in_children with fake work), as
// run_conformance's launch_on_gpus does with one IsolatedRunner per device.

#include "driver/cuda/batch_process.hpp"
#include "driver/cuda/wire.hpp"
#include "driver/run/shard.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_shard_dispatch {

using namespace ptxgen::driver;
using cuda::BatchCase;
using cuda::BatchStep;
using cuda::LaunchOutcome;
using Status = LaunchOutcome::Status;
using Clock = std::chrono::steady_clock;

namespace {

/// What the parent saw of one case.
struct Seen {
  int times = 0; ///< outcomes received for it
  std::size_t device = 0;
  Status status = Status::unavailable;
  std::string message; ///< written by the child that ran it (or the parent's account)
};

/// Fake work of case `index` on fake device `device`, run in a child.
using FakeStep = std::function<BatchStep(std::size_t device, std::size_t index)>;

/// hand_out over `devices` fake devices, each running the cases it takes
/// through run_queue_in_children (as IsolatedRunner::launch_queue does); the
/// message of each outcome names the device, the case and the child's pid.
/// `on_outcome`, when given, is called in the parent with the device and case of each outcome.
using OnOutcome = std::function<void(std::size_t device, std::size_t index)>;
std::vector<Seen> dispatch(std::size_t count, std::size_t devices, const FakeStep& step,
                           const OnOutcome& on_outcome = nullptr) {
  std::vector<Seen> seen(count);
  std::vector<BatchCase> cases;
  for (std::size_t i = 0; i < count; ++i)
    cases.push_back({"c" + std::to_string(i), std::chrono::milliseconds(20000)});
  std::mutex m;
  hand_out(count, devices, [&](std::size_t device, const NextItem& next) {
    cuda::run_queue_in_children(
        cases, next,
        [&](std::size_t i) {
          BatchStep s = step(device, i);
          s.outcome.message = "device " + std::to_string(device) + " case " + std::to_string(i) +
                              " pid " + std::to_string(::getpid());
          return s;
        },
        [&](std::size_t i, LaunchOutcome& out) {
          std::lock_guard<std::mutex> lock(m);
          Seen& s = seen[i];
          ++s.times;
          s.device = device;
          s.status = out.status;
          s.message = out.message;
          if (on_outcome)
            on_outcome(device, i);
        });
  });
  return seen;
}

BatchStep ok_after(std::chrono::milliseconds pause) {
  std::this_thread::sleep_for(pause);
  BatchStep s;
  s.outcome.status = Status::ok;
  return s;
}

/// The message a case's child must have written, by its device and index.
std::string expected_prefix(std::size_t device, std::size_t index) {
  return "device " + std::to_string(device) + " case " + std::to_string(index) + " pid ";
}

/// The pid of the child that ran a case, from its message.
std::string pid_of(const Seen& s) {
  return s.message.substr(s.message.rfind(' ') + 1);
}

} // namespace

TEST_CASE("dispatch: one worker takes every item in order, on this thread") {
  std::vector<std::size_t> items;
  const auto self = std::this_thread::get_id();
  int calls = 0;
  hand_out(5, 1, [&](std::size_t worker, const NextItem& next) {
    ++calls;
    CHECK(worker == 0);
    CHECK(std::this_thread::get_id() == self);
    for (auto i = next(); i; i = next())
      items.push_back(*i);
  });
  CHECK(calls == 1);
  CHECK(items == std::vector<std::size_t>{0, 1, 2, 3, 4});
  // Nothing to hand out: each worker finds the queue empty at once.
  hand_out(0, 2, [&](std::size_t, const NextItem& next) { CHECK_FALSE(next()); });
}

TEST_CASE("dispatch: several workers share the queue; each item goes to one of them") {
  std::mutex m;
  std::vector<int> times(500, 0);
  std::vector<std::size_t> per_worker(3, 0);
  hand_out(times.size(), 3, [&](std::size_t worker, const NextItem& next) {
    for (auto i = next(); i; i = next()) {
      std::lock_guard<std::mutex> lock(m);
      ++times[*i];
      ++per_worker[worker];
    }
  });
  for (int t : times)
    CHECK(t == 1);
  CHECK(per_worker[0] + per_worker[1] + per_worker[2] == times.size());
}

TEST_CASE("dispatch: one fake device, one child for the whole batch, as before") {
  auto seen = dispatch(12, 1, [](std::size_t, std::size_t) { return ok_after({}); });
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CAPTURE(i);
    CHECK(seen[i].times == 1);
    CHECK(seen[i].status == Status::ok);
    CHECK(seen[i].message == expected_prefix(0, i) + pid_of(seen[0]));
  }
}

TEST_CASE("dispatch: two fake devices run every case once, each device in one child") {
  // Device 1 is slower: the faster one must take more of the cases.
  auto seen = dispatch(40, 2, [](std::size_t device, std::size_t) {
    return ok_after(std::chrono::milliseconds(device == 1 ? 40 : 2));
  });
  std::size_t per_device[2] = {0, 0};
  std::set<std::string> pids[2];
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CAPTURE(i);
    CHECK(seen[i].times == 1);
    CHECK(seen[i].status == Status::ok);
    // The child that ran it was on the device the parent recorded.
    CHECK(seen[i].message.rfind(expected_prefix(seen[i].device, i), 0) == 0);
    ++per_device[seen[i].device];
    pids[seen[i].device].insert(pid_of(seen[i]));
  }
  CHECK(per_device[0] > 0);
  CHECK(per_device[1] > 0);
  CHECK(per_device[0] > per_device[1]);
  // Without trouble a device keeps its child (its context) for all its cases.
  CHECK(pids[0].size() == 1);
  CHECK(pids[1].size() == 1);
}

TEST_CASE("dispatch: a fault on one device costs its case only") {
  // Case 5 faults and its child stops; case 9's child dies without an answer.
  auto seen = dispatch(24, 2, [](std::size_t, std::size_t index) {
    if (index == 9)
      ::_exit(7);
    BatchStep s = ok_after(std::chrono::milliseconds(5));
    if (index == 5) {
      s.outcome.status = Status::fault;
      s.stop = true;
    }
    return s;
  });
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CAPTURE(i);
    CHECK(seen[i].times == 1);
    const Status want = i == 5 || i == 9 ? Status::fault : Status::ok;
    CHECK(seen[i].status == want);
  }
  // The parent's own account of the death, not the child's message.
  CHECK(seen[9].message.find("exited with status 7") != std::string::npos);
}

TEST_CASE("dispatch: a device's long case does not hide another device's dead child") {
  // Device 0's children die at once on each case; device 1's children each wait until the
  // parent has seen an outcome of device 0 (a flag in memory shared with the children).
  // A child of device 1 that inherited the write end of device 0's outcome pipe would keep
  // it open, and device 0 from seeing its child's death, until it exits: it would wait for
  // the flag in vain and report so. Both devices fork at once at the start of each round,
  // so two rounds give such an inheritance its chance. The verdict is an order of events
  // (the flag raised, then read), not a time: the wait's bound only ends a broken run.
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    void* page = ::mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(page != MAP_FAILED);
    auto* device0_seen = new (page) std::atomic<int>(0);
    static_assert(std::atomic<int>::is_always_lock_free);
    auto seen = dispatch(
        4, 2,
        [&](std::size_t device, std::size_t) {
          if (device == 0)
            ::_exit(9);
          const auto give_up = Clock::now() + std::chrono::seconds(15);
          while (device0_seen->load() == 0 && Clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          BatchStep s;
          s.outcome.status = device0_seen->load() != 0 ? Status::ok : Status::timed_out;
          return s;
        },
        [&](std::size_t device, std::size_t) {
          if (device == 0)
            device0_seen->store(1);
        });
    ::munmap(page, sizeof(std::atomic<int>));
    for (const auto& s : seen) {
      CHECK(s.times == 1);
      // Device 0's cases died; device 1's found the flag raised.
      CHECK(s.status == (s.device == 0 ? Status::fault : Status::ok));
    }
  }
}

TEST_CASE("dispatch: an exception from one worker empties the queue and reaches the caller") {
  std::atomic<int> taken{0};
  CHECK_THROWS_AS(hand_out(1000, 2,
                           [&](std::size_t worker, const NextItem& next) {
                             for (auto i = next(); i; i = next()) {
                               ++taken;
                               if (worker == 0)
                                 throw std::runtime_error("worker 0 failed");
                               std::this_thread::sleep_for(std::chrono::milliseconds(5));
                             }
                           }),
                  std::runtime_error);
  CHECK(taken < 1000);
}

TEST_CASE("probe answer: the device count crosses the pipe (--devices all)") {
  cuda::ProbeAnswer a;
  a.device.emplace();
  a.device->ordinal = 1;
  a.device->name = "Fake GPU";
  a.device->device_count = 2;
  auto back = cuda::decode_probe(cuda::encode_probe(a));
  REQUIRE(back);
  REQUIRE(back->device);
  CHECK(back->device->device_count == 2);
  CHECK(back->device->ordinal == 1);
}

} // namespace unit_shard_dispatch
