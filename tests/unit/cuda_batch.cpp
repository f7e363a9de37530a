// Batched isolation (driver/cuda/frame.hpp, batch_process.hpp,
// IsolatedRunner::launch_batch) without a GPU: the frame stream, and the
// parent's handling of children driven by fake work that succeeds, stops,
// crashes, throws or hangs.

#include "driver/cuda/batch_process.hpp"
#include "driver/cuda/frame.hpp"
#include "driver/cuda/isolated_runner.hpp"
#include "driver/cuda/wire.hpp"

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <unistd.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_cuda_batch {

using namespace ptxgen::driver::cuda;
using Status = LaunchOutcome::Status;

namespace {

LaunchOutcome outcome(Status status, const std::string& message, std::size_t buffer_bytes) {
  LaunchOutcome o;
  o.status = status;
  o.message = message;
  o.error_name = status == Status::fault ? "CUDA_ERROR_MISALIGNED_ADDRESS" : "";
  std::vector<std::uint8_t> bytes(buffer_bytes);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::uint8_t>(i * 7 + 1);
  }
  if (buffer_bytes != 0) {
    o.buffers.push_back({"C", bytes});
  }
  o.registers = 32;
  o.load_ms = 1.5;
  return o;
}

BatchFrame frame(std::uint64_t index, bool last, LaunchOutcome o) {
  BatchFrame f;
  f.index = index;
  f.last = last;
  f.outcome = std::move(o);
  return f;
}

/// The three frames of a stream used below: different sizes, statuses, flags.
std::vector<BatchFrame> sample_frames() {
  return {frame(0, false, outcome(Status::ok, "case a", 100)),
          frame(1, false, outcome(Status::canary_damaged, "case bb: guard", 0)),
          frame(2, true, outcome(Status::fault, "case ccc: kernel k faulted", 70000))};
}

void check_frame(const BatchFrame& got, const BatchFrame& want) {
  CHECK(got.index == want.index);
  CHECK(got.last == want.last);
  CHECK(got.outcome.status == want.outcome.status);
  CHECK(got.outcome.error_name == want.outcome.error_name);
  CHECK(got.outcome.message == want.outcome.message);
  REQUIRE(got.outcome.buffers.size() == want.outcome.buffers.size());
  for (std::size_t i = 0; i < got.outcome.buffers.size(); ++i) {
    CHECK(got.outcome.buffers[i].name == want.outcome.buffers[i].name);
    CHECK(got.outcome.buffers[i].bytes == want.outcome.buffers[i].bytes);
  }
  CHECK(got.outcome.registers == want.outcome.registers);
  CHECK(got.outcome.load_ms == want.outcome.load_ms);
}

/// The frame's size by the format's definition: an 8-byte length, an 8-byte
/// index, one `last` byte, then the outcome's own encoding.
std::size_t expected_frame_size(const BatchFrame& f) {
  return 8 + 8 + 1 + encode_outcome(f.outcome).size();
}

} // namespace

TEST_CASE("a frame is the length, the index, the last flag and the outcome") {
  const BatchFrame f = frame(5, true, outcome(Status::ok, "case x", 3));
  const std::string bytes = encode_frame(f);
  REQUIRE(bytes.size() == expected_frame_size(f));
  std::uint64_t length = 0;
  std::uint64_t index = 0;
  std::memcpy(&length, bytes.data(), 8);
  std::memcpy(&index, bytes.data() + 8, 8);
  CHECK(length == bytes.size() - 8);
  CHECK(index == 5);
  CHECK(bytes[16] == 1);
  CHECK(bytes.substr(17) == encode_outcome(f.outcome));
}

TEST_CASE("several frames in one stream come back in order") {
  const auto frames = sample_frames();
  std::string stream;
  for (const BatchFrame& f : frames) {
    stream += encode_frame(f);
  }
  FrameReader reader;
  reader.feed(stream);
  for (const BatchFrame& want : frames) {
    BatchFrame got;
    REQUIRE(reader.next(got) == FrameReader::Next::frame);
    check_frame(got, want);
  }
  BatchFrame none;
  CHECK(reader.next(none) == FrameReader::Next::incomplete);
  CHECK(reader.partial_bytes() == 0);
}

TEST_CASE("frames arrive whole whatever the size of the pieces read") {
  const auto frames = sample_frames();
  std::string stream;
  std::vector<std::size_t> ends; // where each frame ends in the stream
  for (const BatchFrame& f : frames) {
    stream += encode_frame(f);
    ends.push_back((ends.empty() ? 0 : ends.back()) + expected_frame_size(f));
  }
  REQUIRE(ends.back() == stream.size());
  for (std::size_t piece :
       {std::size_t{1}, std::size_t{3}, std::size_t{8}, std::size_t{17}, std::size_t{4096}}) {
    CAPTURE(piece);
    FrameReader reader;
    std::size_t fed = 0;
    std::size_t got_count = 0;
    while (fed < stream.size()) {
      const std::size_t n = std::min(piece, stream.size() - fed);
      reader.feed(std::string_view(stream).substr(fed, n));
      fed += n;
      BatchFrame got;
      while (reader.next(got) == FrameReader::Next::frame) {
        REQUIRE(got_count < frames.size());
        // A frame comes out only once all its bytes were fed.
        CHECK(fed >= ends[got_count]);
        check_frame(got, frames[got_count]);
        ++got_count;
      }
      // ... and as soon as they were.
      const std::size_t complete =
          static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), fed) - ends.begin());
      CHECK(got_count == complete);
      CHECK(reader.partial_bytes() == fed - (complete == 0 ? 0 : ends[complete - 1]));
    }
    CHECK(got_count == frames.size());
  }
}

TEST_CASE("a truncated stream yields the whole frames and leaves the rest partial") {
  const auto frames = sample_frames();
  const std::string first = encode_frame(frames[0]);
  const std::string second = encode_frame(frames[1]);
  const std::string stream = first + second;
  for (std::size_t cut = first.size() + 1; cut < stream.size(); ++cut) {
    FrameReader reader;
    reader.feed(std::string_view(stream).substr(0, cut));
    BatchFrame got;
    REQUIRE(reader.next(got) == FrameReader::Next::frame);
    CHECK(got.index == 0);
    CHECK(reader.next(got) == FrameReader::Next::incomplete);
    CHECK(reader.partial_bytes() == cut - first.size());
  }
}

TEST_CASE("malformed frames are reported, not decoded") {
  const std::string good = encode_frame(frame(0, false, outcome(Status::ok, "case a", 4)));
  SUBCASE("a length too short to hold the header") {
    std::string bad = good;
    const std::uint64_t length = 3;
    std::memcpy(bad.data(), &length, 8);
    FrameReader reader;
    reader.feed(bad);
    BatchFrame got;
    CHECK(reader.next(got) == FrameReader::Next::malformed);
  }
  SUBCASE("a last flag other than 0 or 1") {
    std::string bad = good;
    bad[16] = 2;
    FrameReader reader;
    reader.feed(bad);
    BatchFrame got;
    CHECK(reader.next(got) == FrameReader::Next::malformed);
  }
  SUBCASE("an outcome that does not decode") {
    std::string bad = good;
    bad[17] = 99; // the status byte
    FrameReader reader;
    reader.feed(bad);
    BatchFrame got;
    CHECK(reader.next(got) == FrameReader::Next::malformed);
  }
}

TEST_CASE("a frame's head and its body sent apart are the frame") {
  const BatchFrame f = frame(7, false, outcome(Status::ok, "case y", 5));
  const std::string body = encode_outcome(f.outcome);
  CHECK(frame_head(f, body.size()) + body == encode_frame(f));
}

TEST_CASE("a length no frame can have waits for bytes that never come, without throwing") {
  // The reader reserves room for a frame once its length is known; a damaged length
  // (past any string's max_size, or 2^62 bytes: past the reader's bound) must not throw
  // or allocate it. (A length within the bound but beyond the memory is not tried here:
  // the sanitizers' allocator aborts where the standard one throws bad_alloc.)
  for (const std::uint64_t length : {~std::uint64_t{0} - 8, std::uint64_t{1} << 62}) {
    std::string head(8, '\0');
    std::memcpy(head.data(), &length, 8);
    FrameReader reader;
    CHECK_NOTHROW(reader.feed(head + std::string(9, '\0')));
    BatchFrame got;
    CHECK(reader.next(got) == FrameReader::Next::incomplete);
  }
}

namespace {

/// A fake case: ok, with the child's pid as its message.
BatchStep ok_step() {
  BatchStep s;
  s.outcome.status = Status::ok;
  s.outcome.message = std::to_string(::getpid());
  return s;
}

std::vector<BatchCase> named_cases(std::size_t n, std::chrono::milliseconds limit) {
  std::vector<BatchCase> cases;
  for (std::size_t i = 0; i < n; ++i) {
    cases.push_back({"c" + std::to_string(i), limit});
  }
  return cases;
}

} // namespace

TEST_CASE("a batch without trouble runs in one child and reports each case in order") {
  std::vector<std::size_t> seen;
  std::vector<std::string> seen_messages;
  const auto out = run_batch_in_children(
      named_cases(6, std::chrono::milliseconds(20000)), [](std::size_t) { return ok_step(); },
      [&](std::size_t i, const LaunchOutcome& o) {
        seen.push_back(i);
        seen_messages.push_back(o.message);
      });
  REQUIRE(out.size() == 6);
  CHECK(seen == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
  const std::string parent = std::to_string(::getpid());
  for (std::size_t i = 0; i < out.size(); ++i) {
    CHECK(out[i].status == Status::ok);
    CHECK(out[i].message == out[0].message); // one child for all
    CHECK(seen_messages[i] == out[i].message);
  }
  CHECK(out[0].message != parent);
}

TEST_CASE("an empty batch forks nothing") {
  bool called = false;
  const auto out = run_batch_in_children(
      {},
      [&](std::size_t) {
        called = true;
        return ok_step();
      },
      [&](std::size_t, const LaunchOutcome&) { called = true; });
  CHECK(out.empty());
  CHECK_FALSE(called);
}

TEST_CASE("a case that stops its child costs nothing but a new child") {
  const auto out =
      run_batch_in_children(named_cases(4, std::chrono::milliseconds(0)), [](std::size_t i) {
        BatchStep s = ok_step();
        if (i == 1) {
          s.outcome.status = Status::fault;
          s.stop = true;
        }
        return s;
      });
  REQUIRE(out.size() == 4);
  CHECK(out[0].status == Status::ok);
  CHECK(out[1].status == Status::fault);
  CHECK(out[2].status == Status::ok);
  CHECK(out[3].status == Status::ok);
  CHECK(out[0].message == out[1].message); // the fault ran in the first child
  CHECK(out[2].message != out[1].message); // the rest in a second one
  CHECK(out[3].message == out[2].message);
}

TEST_CASE("a child that dies costs the case it was on") {
  const auto out =
      run_batch_in_children(named_cases(4, std::chrono::milliseconds(20000)), [](std::size_t i) {
        if (i == 1) {
          // SIGKILL, not SIGSEGV: AddressSanitizer would catch a SEGV and exit instead.
          std::raise(SIGKILL);
        }
        if (i == 2) {
          throw std::runtime_error("lost");
        }
        return ok_step();
      });
  REQUIRE(out.size() == 4);
  CHECK(out[0].status == Status::ok);
  CHECK(out[1].status == Status::fault);
  CHECK(out[1].message.rfind("case c1: the worker process was killed by signal 9", 0) == 0);
  CHECK(out[1].message.find("before reporting an outcome") != std::string::npos);
  // Work that throws ends its child with status 3.
  CHECK(out[2].status == Status::fault);
  CHECK(out[2].message ==
        "case c2: the worker process exited with status 3 before reporting an outcome");
  CHECK(out[3].status == Status::ok);
  CHECK(out[3].message != out[0].message);
}

TEST_CASE("a case past its limit is killed and the rest still run") {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::size_t> seen;
  const auto out = run_batch_in_children(
      named_cases(3, std::chrono::milliseconds(300)),
      [](std::size_t i) {
        if (i == 1) {
          std::this_thread::sleep_for(std::chrono::seconds(60));
        }
        return ok_step();
      },
      [&](std::size_t i, const LaunchOutcome&) { seen.push_back(i); });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(out.size() == 3);
  CHECK(out[0].status == Status::ok);
  CHECK(out[1].status == Status::timed_out);
  CHECK(out[1].message ==
        "case c1: the worker process did not finish within 300 ms and was killed");
  CHECK(out[2].status == Status::ok);
  CHECK(out[2].message != out[0].message);
  CHECK(seen == std::vector<std::size_t>{0, 1, 2});
  CHECK(seconds < 45); // a hang guard: not the 60 s of the hung case
}

TEST_CASE("a timed_out outcome from the work says the later cases still run") {
  const auto out =
      run_batch_in_children(named_cases(2, std::chrono::milliseconds(0)), [](std::size_t i) {
        BatchStep s = ok_step();
        if (i == 0) {
          s.outcome.status = Status::timed_out;
          s.outcome.message = "case c0: kernel k did not finish";
          s.stop = true;
        }
        return s;
      });
  REQUIRE(out.size() == 2);
  CHECK(out[0].status == Status::timed_out);
  CHECK(out[0].message == "case c0: kernel k did not finish (the worker process was ended, so "
                          "later cases still run)");
  CHECK(out[1].status == Status::ok);
}

TEST_CASE("a batch on a machine without a driver is unavailable for every case") {
  IsolatedRunner runner(0, "libptxgen-no-such-cuda-driver.so.1");
  REQUIRE_FALSE(runner.available());
  std::vector<LaunchRequest> requests(3);
  requests[0].case_name = "a";
  requests[1].case_name = "b";
  requests[2].case_name = "c";
  std::vector<std::size_t> seen;
  const auto out = runner.launch_batch(requests, [&](std::size_t i, const LaunchOutcome& o) {
    seen.push_back(i);
    CHECK(o.status == Status::unavailable);
  });
  REQUIRE(out.size() == 3);
  CHECK(seen == std::vector<std::size_t>{0, 1, 2});
  const char* names[] = {"a", "b", "c"};
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(out[i].status == Status::unavailable);
    CHECK(out[i].message ==
          std::string("case ") + names[i] + " not run: " + runner.unavailable_reason());
  }
}

} // namespace unit_cuda_batch
