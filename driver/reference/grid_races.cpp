// Races between the CTAs of one launch on global memory (grid_races.hpp).

#include "driver/reference/grid_races.hpp"

#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <tuple>

namespace ptxgen::driver::ref {

void GridRaces::finish_cta() {
  // Most CTAs record their accesses in address order already.
  auto key = [](const GlobalAccess& a) { return std::tie(a.buffer, a.write, a.reduce, a.off); };
  if (!std::is_sorted(cta_.begin(), cta_.end(), [&](const GlobalAccess& a, const GlobalAccess& b) {
        return key(a) < key(b);
      }))
    std::sort(cta_.begin(), cta_.end(), [&](const GlobalAccess& a, const GlobalAccess& b) {
      return std::tie(a.buffer, a.write, a.reduce, a.off, a.tid, a.op) <
             std::tie(b.buffer, b.write, b.reduce, b.off, b.tid, b.op);
    });
  const std::size_t first_span = spans_.size();
  if (cta_.empty())
    return;
  const std::size_t index = ctas_.size();
  ctas_.push_back({bid_, records_.size(), records_.size() + cta_.size()});
  records_.insert(records_.end(), cta_.begin(), cta_.end());
  for (const GlobalAccess& a : cta_) {
    if (spans_.size() > first_span) {
      Span& s = spans_.back();
      if (s.buffer == a.buffer && s.write == a.write && s.reduce == a.reduce &&
          s.phase == a.phase && a.off <= s.hi) {
        s.hi = std::max(s.hi, a.off + a.len);
        continue;
      }
    }
    spans_.push_back(
        {a.off, a.off + a.len, a.buffer, a.write, a.reduce, bid_, index, cluster_, a.phase});
  }
  cta_.clear();
}

GlobalAccess GridRaces::covering(std::size_t cta, std::uint32_t buffer, bool write, bool reduce,
                                 std::uint32_t phase, std::int64_t byte) const {
  const CtaRecords& c = ctas_[cta];
  const auto first = records_.begin() + static_cast<std::ptrdiff_t>(c.begin);
  auto it = std::upper_bound(first, records_.begin() + static_cast<std::ptrdiff_t>(c.end),
                             std::tie(buffer, write, reduce, byte),
                             [](const auto& k, const GlobalAccess& a) {
                               return k < std::tie(a.buffer, a.write, a.reduce, a.off);
                             });
  // The records starting at or before the byte, nearest first (a race is rare: a scan).
  while (it != first) {
    --it;
    if (it->buffer != buffer || it->write != write || it->reduce != reduce)
      break;
    if (it->phase == phase && byte < it->off + it->len) {
      const std::int64_t k = (byte - it->off) / it->unit;
      GlobalAccess one = *it; // the run's access of thread tid + k
      one.off += k * it->unit;
      one.len = it->unit;
      one.tid += static_cast<std::int32_t>(k);
      return one;
    }
  }
  unreachable("GridRaces::covering(): a byte of a CTA's span that no access of it covers");
}

GridRace GridRaces::race(const Span& s, const Span& a) const {
  const std::int64_t byte = std::max(s.lo, a.lo);
  const bool s_later = s.bid > a.bid;
  const Span& later = s_later ? s : a;
  const Span& earlier = s_later ? a : s;
  GridRace r;
  r.access = covering(later.cta, later.buffer, later.write, later.reduce, later.phase, byte);
  r.other =
      covering(earlier.cta, earlier.buffer, earlier.write, earlier.reduce, earlier.phase, byte);
  r.same_cluster = later.cluster == earlier.cluster;
  r.bid = later.bid;
  r.other_bid = earlier.bid;
  r.byte = byte;
  r.bytes = std::min(s.hi, a.hi) - byte;
  return r;
}

std::optional<GridRace> GridRaces::first_race() {
  finish_cta(); // a CTA whose end_cta did not run (none normally)
  std::sort(spans_.begin(), spans_.end(), [](const Span& a, const Span& b) {
    return std::tie(a.buffer, a.lo, a.bid, a.write) < std::tie(b.buffer, b.lo, b.bid, b.write);
  });
  // The spans that start before the current one and reach past its start, writes, reads and
  // reductions apart: two reads never race, nor two reductions (atomic per element).
  std::vector<const Span*> writes, reads, reduces;
  auto prune = [](std::vector<const Span*>& v, const Span& s) {
    std::erase_if(v, [&](const Span* a) { return a->buffer != s.buffer || a->hi <= s.lo; });
  };
  for (const Span& s : spans_) {
    prune(writes, s);
    prune(reads, s);
    prune(reduces, s);
    for (const auto* active : {&writes, &reads, &reduces}) {
      if ((active == &reads && !s.write) || (active == &reduces && s.reduce))
        continue;
      for (const Span* a : *active) {
        // Two CTAs of one cluster with a cluster barrier between the accesses are ordered.
        const bool ordered = a->cluster == s.cluster && a->phase != s.phase;
        if (a->bid != s.bid && !ordered)
          return race(s, *a);
      }
    }
    (s.reduce ? reduces : s.write ? writes : reads).push_back(&s);
  }
  return std::nullopt;
}

} // namespace ptxgen::driver::ref
