// Races between CTAs on global memory (cross_cta.hpp).

#include "driver/sim/cross_cta.hpp"

#include "driver/sim/cta.hpp"
#include "driver/sim/ir.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace ptxgen::sim::exec {

bool cross_cta_checked(const ir::Entry& e) {
  for (const ir::Op& op : e.ops) {
    if (op.code == ir::Code::atom)
      return false;
    if (op.code == ir::Code::ld && op.strong && op.space != ir::Space::shared)
      return false;
  }
  return true;
}

void CtaGlobalLog::read(std::uint64_t addr, std::uint32_t n, std::int32_t buffer, std::uint32_t tid,
                        std::uint32_t op, std::uint32_t iteration) {
  recs_.push_back(Rec{addr, n, n, buffer, tid, op, iteration, 0, false});
}

void CtaGlobalLog::write(std::uint64_t addr, std::uint32_t n, std::int32_t buffer,
                         std::uint32_t tid, std::uint32_t op, std::uint32_t iteration,
                         const std::uint8_t* bytes) {
  recs_.push_back(Rec{addr, n, n, buffer, tid, op, iteration, data_.size(), true});
  data_.insert(data_.end(), bytes, bytes + n);
}

void CtaGlobalLog::compact() {
  // a total order (equal addresses by thread, op, iteration), so the result is deterministic
  std::sort(recs_.begin(), recs_.end(), [](const Rec& a, const Rec& b) {
    return std::tie(a.addr, a.write, a.tid, a.op, a.iteration) <
           std::tie(b.addr, b.write, b.tid, b.op, b.iteration);
  });
  std::vector<Rec> runs;
  std::vector<std::uint8_t> bytes; // the writes' bytes in address order: a run's are contiguous
  for (const Rec& r : recs_) {
    if (!runs.empty()) {
      Rec& run = runs.back();
      if (run.write == r.write && run.op == r.op && run.iteration == r.iteration &&
          run.buffer == r.buffer && run.unit == r.n && run.addr + run.n == r.addr &&
          run.tid + run.n / run.unit == r.tid) {
        run.n += r.n;
        if (r.write)
          bytes.insert(bytes.end(), data_.begin() + static_cast<std::ptrdiff_t>(r.data),
                       data_.begin() + static_cast<std::ptrdiff_t>(r.data + r.n));
        continue;
      }
    }
    runs.push_back(r);
    if (r.write) {
      runs.back().data = bytes.size();
      bytes.insert(bytes.end(), data_.begin() + static_cast<std::ptrdiff_t>(r.data),
                   data_.begin() + static_cast<std::ptrdiff_t>(r.data + r.n));
    }
  }
  recs_ = std::move(runs);
  data_ = std::move(bytes);
}

CrossCta::CrossCta(const ir::Entry& e, const Launch& l, const std::vector<GlobalBuffer>& mem)
    : e_(e), l_(l), mem_(mem) {}

std::string CrossCta::thread_text(std::uint64_t bid, std::int64_t tid) const {
  return "thread (bid " + dim_text(coordinates(bid, l_.grid_dim)) + " / tid " +
         dim_text(coordinates(static_cast<std::uint64_t>(tid), l_.block_dim)) + ")";
}

CtaGlobalLog::Rec CrossCta::covering(const CtaGlobalLog& log, std::uint64_t b, bool write) const {
  const auto& recs = log.recs();
  // the recs starting at or before b, nearest first (a race is rare: a scan is fine)
  auto it =
      std::upper_bound(recs.begin(), recs.end(), b,
                       [](std::uint64_t x, const CtaGlobalLog::Rec& r) { return x < r.addr; });
  while (it != recs.begin()) {
    --it;
    if (it->write == write && b < it->addr + it->n) {
      const std::uint32_t k = static_cast<std::uint32_t>((b - it->addr) / it->unit);
      CtaGlobalLog::Rec one = *it; // the run's access of thread tid + k
      one.addr += static_cast<std::uint64_t>(k) * it->unit;
      one.n = it->unit;
      one.tid += k;
      one.data += static_cast<std::uint64_t>(k) * it->unit;
      return one;
    }
  }
  unreachable("CrossCta::covering(): a byte of a CTA's span that no access of it covers");
}

std::optional<Fault> CrossCta::conflict(std::uint64_t bid, const CtaGlobalLog& log,
                                        const CtaGlobalLog::Rec& r, std::uint64_t other,
                                        const CtaGlobalLog::Rec& w, std::uint64_t b) {
  bool same = false;
  if (r.write && w.write) { // same values on the bytes both accesses write
    const CtaGlobalLog& wlog = logs_.at(other);
    const std::uint64_t lo = std::max(r.addr, w.addr);
    const std::uint64_t hi = std::min(r.addr + r.n, w.addr + w.n);
    same = std::memcmp(log.data().data() + r.data + (lo - r.addr),
                       wlog.data().data() + w.data + (lo - w.addr), hi - lo) == 0;
  }
  const RaceKind kind = same ? RaceKind::cross_cta_same_value : RaceKind::cross_cta;
  Observer* obs = l_.observer;
  if (obs == nullptr && same)
    return std::nullopt; // the result is either write's: only an observer notes it
  const ir::Op& op = e_.ops[r.op];
  const ir::Op& wop = e_.ops[w.op];
  if (obs != nullptr) {
    for (std::size_t i = 0; i < obs->races.size(); ++i) {
      const Race& x = *obs->races[i].race;
      if (x.kind == kind && x.access.ptx_line == op.line && x.other.ptx_line == wop.line) {
        ++obs->race_hits[i];
        return std::nullopt;
      }
    }
    if (obs->races.size() >= obs->max_races) {
      ++obs->dropped_races;
      return std::nullopt;
    }
  }
  const GlobalBuffer& buf = mem_[static_cast<std::size_t>(r.buffer)];
  Fault f;
  f.kind = FaultKind::race;
  f.bid = static_cast<std::int64_t>(bid);
  f.tid = r.tid;
  f.ptx_line = op.line;
  Race race;
  race.kind = kind;
  race.symbol = buf.name;
  race.offset = b - buf.address;
  race.access = RaceAccess{r.tid, op.line, r.iteration, -1}; // the fault's own CTA
  race.other = RaceAccess{w.tid, wop.line, w.iteration, static_cast<std::int64_t>(other)};
  const char* relation = !w.write ? "read" : r.write ? "also written" : "written";
  f.message = thread_text(bid, r.tid) + ", PTX line " + std::to_string(op.line) + " `" +
              e_.texts[op.text] + "`, iteration " + std::to_string(r.iteration) + ": " +
              std::string(name(kind)) + ": byte " + std::to_string(race.offset) + " of global `" +
              race.symbol + "` is " + relation + ", with nothing ordering the two CTAs, by " +
              thread_text(other, w.tid) + " at PTX line " + std::to_string(wop.line) +
              " (iteration " + std::to_string(w.iteration) + ")" +
              (same ? "; both write the same values, so the result is either write's"
                    : "; a grid has no barrier: its CTAs may run in any order, or at once");
  f.race = std::move(race);
  if (obs == nullptr)
    return f;
  obs->races.push_back(std::move(f));
  obs->race_hits.push_back(1);
  return std::nullopt;
}

std::optional<Fault> CrossCta::compare(std::uint64_t bid, const CtaGlobalLog& log, std::uint64_t lo,
                                       std::uint64_t hi, bool write, const Spans& owners,
                                       bool owner_writes) {
  auto it = owners.upper_bound(lo);
  if (it != owners.begin() && std::prev(it)->second.end > lo)
    --it;
  for (; it != owners.end() && it->first < hi; ++it) {
    const std::uint64_t b = std::max(lo, it->first);
    const CtaGlobalLog::Rec r = covering(log, b, write);
    const CtaGlobalLog::Rec w = covering(logs_.at(it->second.bid), b, owner_writes);
    if (auto f = conflict(bid, log, r, it->second.bid, w, b))
      return f;
  }
  return std::nullopt;
}

void CrossCta::claim(Spans& spans, std::uint64_t lo, std::uint64_t hi, std::uint64_t bid) {
  auto it = spans.upper_bound(lo);
  if (it != spans.begin() && std::prev(it)->second.end > lo)
    --it;
  std::uint64_t at = lo;
  while (at < hi) {
    const std::uint64_t gap_end = it == spans.end() ? hi : std::min(hi, it->first);
    if (at < gap_end) {
      // joined to the span before it when that is this CTA's and ends here
      auto before = spans.lower_bound(at);
      if (before != spans.begin() && std::prev(before)->second.end == at &&
          std::prev(before)->second.bid == bid)
        std::prev(before)->second.end = gap_end;
      else
        spans.emplace(at, Span{gap_end, bid});
    }
    if (it == spans.end())
      break;
    at = std::max(at, it->second.end);
    ++it;
  }
}

std::optional<Fault> CrossCta::add(std::uint64_t bid, CtaGlobalLog log) {
  // Its spans, writes and reads apart: runs of the sorted accesses that touch or overlap.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans[2];
  for (const CtaGlobalLog::Rec& r : log.recs()) {
    auto& v = spans[r.write ? 1 : 0];
    if (!v.empty() && r.addr <= v.back().second)
      v.back().second = std::max(v.back().second, r.addr + r.n);
    else
      v.emplace_back(r.addr, r.addr + r.n);
  }
  if (spans[0].empty() && spans[1].empty())
    return std::nullopt;
  const CtaGlobalLog& own = logs_.emplace(bid, std::move(log)).first->second;
  for (const auto& [lo, hi] : spans[1]) {
    if (auto f = compare(bid, own, lo, hi, true, writes_, true))
      return f;
    if (auto f = compare(bid, own, lo, hi, true, reads_, false))
      return f;
  }
  for (const auto& [lo, hi] : spans[0]) {
    if (auto f = compare(bid, own, lo, hi, false, writes_, true))
      return f;
  }
  for (const auto& [lo, hi] : spans[1])
    claim(writes_, lo, hi, bid);
  for (const auto& [lo, hi] : spans[0])
    claim(reads_, lo, hi, bid);
  return std::nullopt;
}

} // namespace ptxgen::sim::exec
