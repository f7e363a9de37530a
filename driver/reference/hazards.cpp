#include "driver/reference/hazards.hpp"

#include <algorithm>
#include <initializer_list>
#include <utility>

namespace ptxgen::driver::ref {

void SharedBytes::reset(std::size_t n) {
  pending.assign(n, 0);
  pending_tid.assign(n, none);
  pending_op.assign(n, none);
  pending_group.assign(n, 0);
  skipped_by_wait.assign(n, none);
  skipped_apply.assign(n, none);
  writer.assign(n, none);
  write_epoch.assign(n, 0);
  reader.assign(n, none);
  read_epoch.assign(n, 0);
  read_op.assign(n, none);
  read_clock.assign(n, 0);
  land_tid.assign(n, none);
  land_seq.assign(n, 0);
  land_group.assign(n, 0);
  guard_barrier.assign(n, none);
  guard_phase.assign(n, 0);
  bulk_reads.assign(n, 0);
  bulk_read_tid.assign(n, none);
  bulk_read_op.assign(n, none);
  generic_tid.assign(n, none);
  generic_op.assign(n, none);
  generic_time.assign(n, 0);
}

namespace {

/// Each entry of v repeated 2^by times, in order.
template <class T>
void split(std::vector<T>& v, int by) {
  std::vector<T> out;
  out.reserve(v.size() << by);
  for (const T& x : v) {
    out.insert(out.end(), std::size_t{1} << by, x);
  }
  v = std::move(out);
}

} // namespace

void SharedBytes::refine(int by) {
  for (auto* v : {&pending,       &pending_tid,   &pending_op,   &pending_group, &skipped_by_wait,
                  &skipped_apply, &writer,        &write_epoch,  &reader,        &read_epoch,
                  &read_op,       &land_tid,      &land_seq,     &land_group,    &guard_barrier,
                  &bulk_reads,    &bulk_read_tid, &bulk_read_op, &generic_tid,   &generic_op}) {
    split(*v, by);
  }
  split(guard_phase, by);
  split(generic_time, by);
  split(read_clock, by);
}

void SharedBytes::note_read(std::size_t off, std::int32_t tid, std::int32_t epoch, std::int32_t op,
                            std::int64_t clock) {
  read_clock[off] = clock;
  if (reader[off] == none || read_epoch[off] != epoch) {
    reader[off] = tid;
    read_epoch[off] = epoch;
    read_op[off] = op;
  } else if (reader[off] != tid) {
    reader[off] = many_threads;
  }
}

std::int32_t SharedBytes::other_reader(std::size_t off, std::int32_t tid,
                                       std::int32_t epoch) const {
  if (reader[off] == none || read_epoch[off] != epoch || reader[off] == tid) {
    return none;
  }
  return reader[off];
}

void WaitSlack::start(LiveWait& live, std::size_t op, std::int64_t open, std::int64_t n) {
  // A count at or above `open` performs nothing: larger ones are all the same wait.
  live = {static_cast<std::int32_t>(op), open, n, std::max(n, open), -1};
  ++runs_[op];
  most_open_[op] = std::max(most_open_[op], open);
}

void WaitSlack::performed(LiveWait& live, std::int64_t group) {
  live.newest = std::max(live.newest, group);
}

void WaitSlack::needed(LiveWait& live, std::int64_t group) {
  live.bound = std::min(live.bound, live.open - 1 - group);
}

void WaitSlack::close(LiveWait& live, std::int64_t covered) {
  if (live.op == none) {
    return;
  }
  const auto op = static_cast<std::size_t>(live.op);
  closed_by_[op] |= covered == covers_nothing ? by_end : by_wait;
  if (live.newest >= 0) {
    worked_[op] = 1;
    if (live.newest >= covered) {
      needed(live, live.newest); // the next wait would leave it pending
    }
  }
  auto& best = best_[op];
  best = std::min(best, live.bound);
  live = LiveWait{};
}

void WaitSlack::add_runs(const std::vector<std::int64_t>& delta) {
  for (std::size_t op = 0; op < runs_.size() && op < delta.size(); ++op) {
    runs_[op] += delta[op];
  }
}

std::string element_text(const std::vector<std::int64_t>& shape, std::int64_t element_bytes,
                         std::int64_t off) {
  if (element_bytes <= 0) {
    return "element ?";
  }
  std::int64_t element = off / element_bytes;
  std::vector<std::int64_t> coords(shape.size(), 0);
  for (std::size_t a = shape.size(); a-- > 0;) {
    if (shape[a] > 0) {
      coords[a] = element % shape[a];
      element /= shape[a];
    }
  }
  std::string s = "element (";
  for (std::size_t i = 0; i < coords.size(); ++i) {
    s += (i ? "," : "") + std::to_string(coords[i]);
  }
  s += ")";
  if (element_bytes > 1) {
    s += " byte " + std::to_string(off % element_bytes);
  }
  return s;
}

} // namespace ptxgen::driver::ref
