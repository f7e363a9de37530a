// The simulator's mbarrier objects: see mbarrier.hpp.

#include "driver/sim/mbarrier.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace ptxgen::sim::detail {
namespace {

/// Bytes of an mbarrier object (its alignment too).
constexpr std::uint64_t object_bytes = 8;

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

[[noreturn]] void error(std::string detail) {
  throw MbarrierError{FaultKind::undefined_behavior, std::move(detail)};
}

void check_count(std::int64_t v, std::int64_t lo, std::string_view what) {
  if (v < lo || v > mbarrier_count_max)
    error(std::string(what) + " " + std::to_string(v) + " is outside " + std::to_string(lo) + ".." +
          std::to_string(mbarrier_count_max) + " (undefined in PTX)");
}

} // namespace

Mbarriers::Mbarriers(std::uint32_t threads, bool clocks) : threads_(threads), clocks_(clocks) {
  if (clocks_)
    vc_.assign(static_cast<std::size_t>(threads) * threads, 0);
}

const Mbarrier* Mbarriers::find(std::uint64_t off) const {
  auto it = objects_.find(off);
  return it == objects_.end() ? nullptr : &it->second;
}

std::optional<std::uint64_t> Mbarriers::overlapping(std::uint64_t off, std::uint64_t n) const {
  if (objects_.empty() || n == 0)
    return std::nullopt;
  auto it = objects_.lower_bound(off >= object_bytes - 1 ? off - (object_bytes - 1) : 0);
  if (it != objects_.end() && it->first < off + n)
    return it->first;
  return std::nullopt;
}

Mbarrier& Mbarriers::valid(std::uint64_t off) {
  auto it = objects_.find(off);
  if (it == objects_.end())
    error("no valid mbarrier object at shared address " + hex(off) +
          " (an mbarrier instruction other than mbarrier.init on an object that is not "
          "initialised is undefined in PTX)");
  return it->second;
}

bool Mbarriers::completable(std::uint64_t off) const {
  const Mbarrier* b = find(off);
  return b != nullptr && b->pending == b->in_flight && b->tx == b->landing;
}

std::string Mbarriers::describe(std::uint64_t off) const {
  const Mbarrier* b = find(off);
  if (b == nullptr)
    return "no valid object";
  std::string s = "phase " + std::to_string(b->phase) + " (parity " + std::to_string(b->phase & 1) +
                  "), " + std::to_string(b->pending) + " of " + std::to_string(b->expected) +
                  " arrivals pending";
  if (b->in_flight > 0)
    s += " (" + std::to_string(b->in_flight) + " of them cp.async.mbarrier.arrive)";
  s += ", tx-count " + std::to_string(b->tx);
  if (b->landing > 0)
    s += " (" + std::to_string(b->landing) + " bytes of bulk copies in flight)";
  return s + ", initialised at PTX line " + std::to_string(b->init_line);
}

void Mbarriers::init(std::uint64_t off, std::int64_t count, std::uint32_t line) {
  if (off % object_bytes != 0)
    throw MbarrierError{FaultKind::misaligned_address,
                        "mbarrier object address " + hex(off) + " is not aligned to 8 bytes"};
  if (auto other = overlapping(off, object_bytes))
    error("mbarrier.init on the valid mbarrier object at shared address " + hex(*other) +
          " (initialised at PTX line " + std::to_string(objects_.at(*other).init_line) +
          "); invalidate it first (mbarrier.inval): undefined in PTX");
  check_count(count, 1, "the expected arrival count");
  Mbarrier b;
  b.expected = b.pending = static_cast<std::uint32_t>(count);
  b.init_line = line;
  if (clocks_) {
    b.release.assign(threads_, 0);
    b.done.assign(threads_, 0);
  }
  objects_.emplace(off, std::move(b));
  ++events_;
}

void Mbarriers::inval(std::uint64_t off) {
  valid(off);
  if (std::any_of(trackers_.begin(), trackers_.end(),
                  [&](const Tracker& t) { return t.bar == off; }))
    error("mbarrier.inval while cp.async.mbarrier.arrive arrivals on it are in flight (" +
          describe(off) + ")");
  objects_.erase(off);
  ++events_;
}

void Mbarriers::release(std::uint32_t tid, Mbarrier& b) {
  if (!clocks_ || tid == remote_thread)
    return;
  // The thread's clock moves on first: its accesses so far (stamped with the old value) are
  // below what the object now holds, its later ones are not.
  std::uint32_t* mine = vc_.data() + static_cast<std::size_t>(tid) * threads_;
  ++mine[tid];
  for (std::uint32_t u = 0; u < threads_; ++u)
    b.release[u] = std::max(b.release[u], mine[u]);
}

std::uint64_t Mbarriers::arrive(std::uint32_t tid, std::uint64_t off, std::int64_t count,
                                std::int64_t tx, bool drop) {
  Mbarrier& b = valid(off);
  check_count(count, 1, "the arrival count");
  if (tx != 0)
    expect_tx(tid, off, tx);
  if (static_cast<std::int64_t>(b.pending - b.in_flight) < count)
    error("an arrival of " + std::to_string(count) +
          " exceeds the arrivals the current phase still expects from threads (" + describe(off) +
          "); the extra arrivals would fall into another phase");
  if (drop) {
    if (b.expected < count)
      error("arrive_drop of " + std::to_string(count) + " exceeds the expected count (" +
            describe(off) + ")");
    b.expected -= static_cast<std::uint32_t>(count);
  }
  b.pending -= static_cast<std::uint32_t>(count);
  release(tid, b);
  ++events_;
  return (b.phase << 32) | b.pending;
}

void Mbarriers::expect_tx(std::uint32_t tid, std::uint64_t off, std::int64_t tx) {
  Mbarrier& b = valid(off);
  check_count(tx, 0, "the tx-count");
  check_count(b.tx + tx, -mbarrier_count_max, "the tx-count");
  b.tx += tx;
  release(tid, b);
  ++events_;
}

bool Mbarriers::overfed(std::uint64_t off) const {
  const Mbarrier* b = find(off);
  return b != nullptr && b->pending == b->in_flight && b->landing > b->tx;
}

void Mbarriers::absorb(std::uint64_t off) {
  Mbarrier& b = valid(off);
  b.tx = b.landing;
  ++events_;
}

void Mbarriers::track(std::uint32_t tid, std::uint64_t off, std::uint64_t seq, bool noinc) {
  Mbarrier& b = valid(off);
  if (!noinc) {
    check_count(static_cast<std::int64_t>(b.pending) + 1, 1, "the pending arrival count");
    ++b.pending;
  } else if (b.pending == b.in_flight) {
    error("cp.async.mbarrier.arrive.noinc counts as one of the phase's expected arrivals, but "
          "every expected arrival is already accounted for (" +
          describe(off) + "); the arrival would fall into another phase");
  }
  ++b.in_flight;
  trackers_.push_back(Tracker{tid, off, seq});
  release(tid, b);
  ++events_;
}

void Mbarriers::bulk(std::uint32_t tid, std::uint64_t off, std::int64_t bytes) {
  Mbarrier& b = valid(off);
  check_count(b.landing + bytes, 0, "the bytes in flight on one phase");
  b.landing += bytes;
  release(tid, b);
  ++events_;
}

std::vector<Tracker> Mbarriers::complete(std::uint64_t off) {
  Mbarrier& b = valid(off);
  std::vector<Tracker> done;
  std::size_t kept = 0;
  for (const Tracker& t : trackers_) {
    if (t.bar == off)
      done.push_back(t);
    else
      trackers_[kept++] = t;
  }
  trackers_.resize(kept);
  ++b.phase;
  b.pending = b.expected;
  b.in_flight = 0;
  b.tx = 0;
  b.landing = 0;
  b.done = b.release;
  ++events_;
  return done;
}

bool Mbarriers::test(std::uint32_t tid, std::uint64_t off, std::uint64_t token, bool parity) {
  Mbarrier& b = valid(off);
  bool complete = false;
  if (parity) {
    complete = (b.phase & 1) != (token & 1);
  } else {
    const std::uint64_t phase = token >> 32;
    if (phase > b.phase)
      error("the state " + hex(token) + " names phase " + std::to_string(phase) +
            ", which has not started (" + describe(off) +
            "); a state comes from an arrive on "
            "the same object");
    complete = phase < b.phase;
  }
  if (complete && clocks_) {
    std::uint32_t* mine = vc_.data() + static_cast<std::size_t>(tid) * threads_;
    for (std::uint32_t u = 0; u < threads_; ++u)
      mine[u] = std::max(mine[u], b.done[u]);
  }
  return complete;
}

void Mbarriers::release_into(std::uint32_t tid, std::vector<std::uint32_t>& into) {
  if (!clocks_)
    return;
  std::uint32_t* mine = vc_.data() + static_cast<std::size_t>(tid) * threads_;
  ++mine[tid]; // as release(): the later accesses are not covered
  into.resize(threads_, 0);
  for (std::uint32_t u = 0; u < threads_; ++u)
    into[u] = std::max(into[u], mine[u]);
}

void Mbarriers::acquire(std::uint32_t tid, const std::vector<std::uint32_t>& from) {
  if (!clocks_)
    return;
  std::uint32_t* mine = vc_.data() + static_cast<std::size_t>(tid) * threads_;
  for (std::uint32_t u = 0; u < threads_ && u < from.size(); ++u)
    mine[u] = std::max(mine[u], from[u]);
}

std::uint32_t Mbarriers::clock(std::uint32_t tid) const {
  return clocks_ ? vc_[static_cast<std::size_t>(tid) * threads_ + tid] : 0;
}

bool Mbarriers::ordered(std::uint32_t writer, std::uint32_t at, std::uint32_t reader) const {
  return clocks_ && vc_[static_cast<std::size_t>(reader) * threads_ + writer] > at;
}

} // namespace ptxgen::sim::detail
