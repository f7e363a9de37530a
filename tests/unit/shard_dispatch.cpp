// The multi-device dispatcher (driver/run/shard.hpp's hand_out) without a GPU:
// fake devices, each running its chunks as batches in forked children
// (batch_process.hpp's run_batch_in_children with fake work), as
// run_conformance's launch_on_gpus does with one IsolatedRunner per device.

#include "driver/cuda/batch_process.hpp"
#include "driver/cuda/wire.hpp"
#include "driver/run/shard.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <unistd.h>

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
  std::string message; ///< written by the child that ran it
};

/// Fake work on fake device `device`: case `index` of the sweep (its chunk
/// starting at `begin`), run in a child. `step` decides the outcome; the
/// message names the device, the case and the child's pid.
using FakeStep = std::function<BatchStep(std::size_t device, std::size_t index)>;

/// hand_out over `devices` fake devices, each chunk one run_batch_in_children.
std::vector<Seen> dispatch(std::size_t count, std::size_t devices, const FakeStep& step,
                           std::vector<std::vector<double>>* chunk_ms = nullptr) {
  std::vector<Seen> seen(count);
  std::mutex m;
  if (chunk_ms)
    chunk_ms->assign(devices, {});
  hand_out(count, devices, [&](std::size_t device, std::size_t begin, std::size_t end) {
    const auto start = Clock::now();
    std::vector<BatchCase> chunk;
    for (std::size_t i = begin; i < end; ++i)
      chunk.push_back({"c" + std::to_string(i), std::chrono::milliseconds(20000)});
    cuda::run_batch_in_children(
        chunk,
        [&](std::size_t i) {
          BatchStep s = step(device, begin + i);
          s.outcome.message = "device " + std::to_string(device) + " case " +
                              std::to_string(begin + i) + " pid " + std::to_string(::getpid());
          return s;
        },
        [&](std::size_t i, const LaunchOutcome& out) {
          std::lock_guard<std::mutex> lock(m);
          Seen& s = seen[begin + i];
          ++s.times;
          s.device = device;
          s.status = out.status;
          s.message = out.message;
        });
    if (chunk_ms) {
      std::lock_guard<std::mutex> lock(m);
      (*chunk_ms)[device].push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
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

} // namespace

TEST_CASE("dispatch: chunk sizes shrink, stay at least 1 and add up to the whole") {
  for (std::size_t workers : {2u, 3u, 8u}) {
    for (std::size_t count : {1u, 2u, 7u, 99u, 1000u}) {
      CAPTURE(workers);
      CAPTURE(count);
      std::size_t left = count, previous = count, chunks = 0;
      while (left > 0) {
        const std::size_t c = next_chunk_size(left, workers);
        CHECK(c >= 1);
        CHECK(c <= previous);
        // Never more than half an even share while several chunks remain.
        CHECK((c == 1 || c * 2 * workers <= left));
        previous = c;
        left -= c;
        ++chunks;
      }
      CHECK(chunks <= count);
    }
  }
  CHECK(next_chunk_size(100, 2) == 25); // 100 / (2 * 2)
}

TEST_CASE("dispatch: one device runs every case in one chunk, on this thread") {
  std::vector<std::size_t> calls;
  const auto self = std::this_thread::get_id();
  hand_out(37, 1, [&](std::size_t worker, std::size_t begin, std::size_t end) {
    CHECK(worker == 0);
    CHECK(std::this_thread::get_id() == self);
    calls.push_back(begin);
    calls.push_back(end);
  });
  CHECK(calls == std::vector<std::size_t>{0, 37});
  // Nothing to run: no chunk at all (no worker process is started).
  bool called = false;
  hand_out(0, 2, [&](std::size_t, std::size_t, std::size_t) { called = true; });
  CHECK_FALSE(called);
}

TEST_CASE("dispatch: one fake device, one child for the whole batch, as before") {
  auto seen = dispatch(12, 1, [](std::size_t, std::size_t) { return ok_after({}); });
  const std::string pid = seen[0].message.substr(seen[0].message.rfind(' ') + 1);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CAPTURE(i);
    CHECK(seen[i].times == 1);
    CHECK(seen[i].status == Status::ok);
    CHECK(seen[i].message == expected_prefix(0, i) + pid);
  }
}

TEST_CASE("dispatch: two fake devices run every case once, and both take cases") {
  // Device 1 is slower: the faster one must take more of the cases.
  auto seen = dispatch(40, 2, [](std::size_t device, std::size_t) {
    return ok_after(std::chrono::milliseconds(device == 1 ? 40 : 2));
  });
  std::size_t per_device[2] = {0, 0};
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CAPTURE(i);
    CHECK(seen[i].times == 1);
    CHECK(seen[i].status == Status::ok);
    // The child that ran it was on the device the parent recorded.
    CHECK(seen[i].message.rfind(expected_prefix(seen[i].device, i), 0) == 0);
    ++per_device[seen[i].device];
  }
  CHECK(per_device[0] > 0);
  CHECK(per_device[1] > 0);
  CHECK(per_device[0] > per_device[1]);
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

TEST_CASE("dispatch: a device's long batch does not hold up another device's chunks") {
  // Device 1's first case sleeps 1.5 s in its child; device 0's work is
  // instant. A child of one device that inherited the write end of another
  // device's pipe would keep that pipe open, and its parent from seeing EOF,
  // until it exits: device 0's chunk would last as long as device 1's child.
  // Both threads fork at once at the start of each round, so a few rounds give
  // such an inheritance every chance to happen.
  for (int round = 0; round < 4; ++round) {
    CAPTURE(round);
    std::vector<std::vector<double>> chunk_ms;
    auto seen = dispatch(
        8, 2,
        [](std::size_t device, std::size_t index) {
          return ok_after(std::chrono::milliseconds(device == 1 && index % 2 == 0 ? 1500 : 0));
        },
        &chunk_ms);
    for (const auto& s : seen)
      CHECK(s.times == 1);
    REQUIRE_FALSE(chunk_ms[0].empty());
    for (double ms : chunk_ms[0])
      CHECK(ms < 1000);
  }
}

TEST_CASE("dispatch: an exception from one chunk stops the handing out and reaches the caller") {
  std::atomic<int> chunks{0};
  CHECK_THROWS_AS(hand_out(1000, 2,
                           [&](std::size_t, std::size_t begin, std::size_t) {
                             ++chunks;
                             if (begin == 0)
                               throw std::runtime_error("chunk 0 failed");
                             std::this_thread::sleep_for(std::chrono::milliseconds(20));
                           }),
                  std::runtime_error);
  CHECK(chunks <= 2); // the failing chunk and the one running beside it
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
