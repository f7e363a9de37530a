#pragma once
// What one CTA's run did that the reference's ordering checks see, in order: the ops it ran,
// and each access to a shared tensor (the issue of a copy into it, a read, a store) with its
// thread and bytes. Everything the ordering checks decide (evaluator.hpp: issue, read_run,
// write_run, perform, the notes about waits) is a function of this sequence: the groups and
// waits come from the ops, the granules from the accesses. A CTA whose sequence equals that
// of an earlier CTA that ran with every check and found nothing would find nothing either, so
// the reference replays it (moves its bytes without the checks) and compares the sequence as
// it goes (ReferenceInput::replay). The sequence is kept as runs of events whose first
// bytes step evenly (CtaTrace::Run), so a thread's chunks of an op compare at once.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ptxgen::driver::ref {

class CtaTrace {
public:
  enum class Kind : std::uint8_t { op, issue, read, write };

  /// Events that differ only in their first byte, which steps by `stride`: `count` of them,
  /// kept as one (a thread's chunks or rows in one op usually are such a run).
  struct Run {
    std::int64_t off = 0; ///< the first byte of the first (an op: its index)
    std::int64_t len = 0;
    std::uint64_t who = 0; ///< the thread, the shared tensor's slot and the kind (who())
    std::int64_t stride = 0;
    std::int64_t count = 1;
  };

  /// A CTA runs with every check: its sequence is recorded (note), replacing the last one.
  void record() {
    runs_.clear();
    replay();
  }
  void note(Kind kind, std::uint32_t tensor, std::int64_t tid, std::int64_t off, std::int64_t len) {
    const std::uint64_t w = who(kind, tensor, tid);
    if (!runs_.empty()) {
      Run& r = runs_.back();
      if (r.who == w && r.len == len && (r.count == 1 || off == r.off + r.count * r.stride)) {
        r.stride = r.count == 1 ? off - r.off : r.stride;
        ++r.count;
        return;
      }
    }
    runs_.push_back({off, len, w, 0, 1});
  }
  void note_op(std::size_t index) { note(Kind::op, 0, 0, static_cast<std::int64_t>(index), 0); }

  /// A CTA is replayed: its sequence is compared with the recorded one (match).
  void replay() {
    pos_ = 0;
    k_ = 0;
    ok_ = true;
  }
  /// The replayed CTA's next event: false once its sequence has left the recorded one.
  bool match(Kind kind, std::uint32_t tensor, std::int64_t tid, std::int64_t off,
             std::int64_t len) {
    if (!ok_ || pos_ >= runs_.size()) {
      return ok_ = false;
    }
    const Run& r = runs_[pos_];
    if (r.who != who(kind, tensor, tid) || r.len != len || r.off + k_ * r.stride != off) {
      return ok_ = false;
    }
    if (++k_ == r.count) {
      ++pos_;
      k_ = 0;
    }
    return true;
  }
  bool match_op(std::size_t index) {
    return match(Kind::op, 0, 0, static_cast<std::int64_t>(index), 0);
  }
  /// The next n events: `len` bytes at first + offsets[i] each. One comparison where the
  /// recording holds exactly them as one run: the offsets step evenly by `step` (`even`), as a
  /// thread's chunks or rows in one op usually do; else event by event.
  /// Inlined: the replay calls it for every thread of every op.
  [[gnu::always_inline]] bool match_points(Kind kind, std::uint32_t tensor, std::int64_t tid,
                                           std::int64_t first, const std::int64_t* offsets,
                                           std::size_t n, bool even, std::int64_t step,
                                           std::int64_t len) {
    if (n != 0 && ok_ && k_ == 0 && pos_ < runs_.size() && even) {
      const Run& r = runs_[pos_];
      if (r.count == static_cast<std::int64_t>(n) && r.who == who(kind, tensor, tid) &&
          r.len == len && r.off == first + offsets[0] && (n == 1 || r.stride == step)) {
        ++pos_;
        return true;
      }
    }
    return match_each(kind, tensor, tid, first, offsets, n, len);
  }

  /// match_points event by event.
  bool match_each(Kind kind, std::uint32_t tensor, std::int64_t tid, std::int64_t first,
                  const std::int64_t* offsets, std::size_t n, std::int64_t len) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!match(kind, tensor, tid, first + offsets[i], len)) {
        return false;
      }
    }
    return ok_;
  }

  /// After a replay: true when its sequence was the recorded one, event for event.
  bool matched() const { return ok_ && pos_ == runs_.size() && k_ == 0; }

  /// Run::who of an event.
  static std::uint64_t who(Kind kind, std::uint32_t tensor, std::int64_t tid) {
    return static_cast<std::uint64_t>(tid) << 32 | std::uint64_t{tensor} << 8 |
           static_cast<std::uint64_t>(kind);
  }

private:
  std::vector<Run> runs_;
  std::size_t pos_ = 0; ///< the run the next event is in
  std::int64_t k_ = 0;  ///< its place in that run
  bool ok_ = true;
};

} // namespace ptxgen::driver::ref
