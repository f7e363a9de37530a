#include "driver/reference/pending_writes.hpp"

#include <algorithm>

namespace ptxgen::driver::evaluation {

void PendingWrites::add(const PendingWrite& w) {
  const std::uint64_t n = added_++;
  by_order_.emplace(n, w);
  of_store_[w.store].push_back(by_off_.emplace(w.off, n));
  max_len_ = std::max(max_len_, w.len);
}

void PendingWrites::erase_store(std::uint64_t store) {
  const auto it = of_store_.find(store);
  if (it == of_store_.end())
    return;
  for (const auto& e : it->second) {
    by_order_.erase(e->second);
    by_off_.erase(e);
  }
  of_store_.erase(it);
}

std::vector<const PendingWrite*> PendingWrites::overlapping(std::int64_t off,
                                                            std::int64_t len) const {
  std::vector<std::uint64_t> hits;
  // A write starting more than max_len_ bytes before `off` ends before it.
  for (auto it = by_off_.lower_bound(off - max_len_ + 1);
       it != by_off_.end() && it->first < off + len; ++it) {
    const PendingWrite& w = by_order_.at(it->second);
    if (w.off + w.len > off)
      hits.push_back(it->second);
  }
  std::sort(hits.begin(), hits.end());
  std::vector<const PendingWrite*> out;
  out.reserve(hits.size());
  for (std::uint64_t n : hits)
    out.push_back(&by_order_.at(n));
  return out;
}

} // namespace ptxgen::driver::evaluation
