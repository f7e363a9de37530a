#pragma once
// The global bytes a CTA's pending bulk and tensor stores will still write, one entry per
// piece, indexed by offset: a store, a read or a generic write asks which entries overlap its
// bytes in O(log n + k) rather than walking all of them (a persistent ring keeps thousands
// pending until its last bulk_wait: the walk made the reference quadratic in its tiles).

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace ptxgen::driver::evaluation {

/// One piece of a pending store: `len` bytes from `off` that it will still write.
struct PendingWrite {
  std::int64_t off = 0;
  std::int64_t len = 0;
  std::size_t op = 0;
  std::uint64_t store = 0; ///< its PendingStore::serial
  bool reduce = false;     ///< a reduction's (two of them on one byte do not race)
};

/// The pending writes of one global tensor, in the order they were added.
class PendingWrites {
public:
  bool empty() const { return by_order_.empty(); }
  void add(const PendingWrite& w);
  /// Drops every piece of store `store` (it completed).
  void erase_store(std::uint64_t store);
  /// The pending writes that overlap [off, off + len), in the order they were added.
  std::vector<const PendingWrite*> overlapping(std::int64_t off, std::int64_t len) const;

private:
  std::map<std::uint64_t, PendingWrite> by_order_;    ///< added-order number -> write
  std::multimap<std::int64_t, std::uint64_t> by_off_; ///< offset -> added-order number
  std::unordered_map<std::uint64_t,
                     std::vector<std::multimap<std::int64_t, std::uint64_t>::iterator>>
      of_store_;             ///< store serial -> its entries of by_off_
  std::int64_t max_len_ = 0; ///< the longest write ever added (where a search must start)
  std::uint64_t added_ = 0;
};

} // namespace ptxgen::driver::evaluation
