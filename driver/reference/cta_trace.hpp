#pragma once
// What one CTA's run did that the reference's ordering checks see, in order: the ops it ran,
// and each access to a shared tensor (the issue of a copy into it, a read, a store) with its
// thread and bytes. Everything the ordering checks decide (reference.cpp: issue, read_run,
// write_run, perform, the notes about waits) is a function of this sequence: the groups and
// waits come from the ops, the granules from the accesses. A CTA whose sequence equals that
// of an earlier CTA that ran with every check and found nothing would find nothing either, so
// the reference replays it (moves its bytes without the checks) and compares the sequence as
// it goes (ReferenceInput::replay).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ptxgen::driver::ref {

class CtaTrace {
public:
  enum class Kind : std::uint8_t { op, issue, read, write };

  struct Event {
    std::int64_t off = 0; ///< the first byte (an op: its index)
    std::int64_t len = 0;
    std::uint64_t who = 0; ///< the thread, the shared tensor's slot and the kind (event())
    [[gnu::always_inline]] bool operator==(const Event& o) const {
      return off == o.off && len == o.len && who == o.who;
    }
  };

  /// A CTA runs with every check: its sequence is recorded (note), replacing the last one.
  void record() {
    events_.clear();
    pos_ = 0;
    ok_ = true;
  }
  void note(Kind kind, std::uint32_t tensor, std::int64_t tid, std::int64_t off, std::int64_t len) {
    events_.push_back(event(kind, tensor, tid, off, len));
  }

  /// A CTA is replayed: its sequence is compared with the recorded one (match).
  void replay() {
    pos_ = 0;
    ok_ = true;
  }
  /// The replayed CTA's next event: false once its sequence has left the recorded one.
  /// Inlined: a replay calls it for every chunk and row it moves.
  [[gnu::always_inline]] bool match(Kind kind, std::uint32_t tensor, std::int64_t tid,
                                    std::int64_t off, std::int64_t len) {
    ok_ = ok_ && pos_ < events_.size() && events_[pos_] == event(kind, tensor, tid, off, len);
    ++pos_;
    return ok_;
  }
  /// The next n recorded events, for a replay that compares a run of them itself (nullptr
  /// where fewer are left or the replay has left the recording); advance(n) then passes them.
  const Event* next(std::size_t n) const {
    return ok_ && pos_ + n <= events_.size() ? events_.data() + pos_ : nullptr;
  }
  void advance(std::size_t n) { pos_ += n; }
  /// Event::who of an event.
  static std::uint64_t who(Kind kind, std::uint32_t tensor, std::int64_t tid) {
    return static_cast<std::uint64_t>(tid) << 32 | std::uint64_t{tensor} << 8 |
           static_cast<std::uint64_t>(kind);
  }

  bool match_op(std::size_t index) {
    return match(Kind::op, 0, 0, static_cast<std::int64_t>(index), 0);
  }
  void note_op(std::size_t index) { note(Kind::op, 0, 0, static_cast<std::int64_t>(index), 0); }

  /// After a replay: true when its sequence was the recorded one, event for event.
  bool matched() const { return ok_ && pos_ == events_.size(); }

private:
  [[gnu::always_inline]] static Event event(Kind kind, std::uint32_t tensor, std::int64_t tid,
                                            std::int64_t off, std::int64_t len) {
    return {off, len, who(kind, tensor, tid)};
  }

  std::vector<Event> events_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

} // namespace ptxgen::driver::ref
